"""The API's parts, as the handlers reach them: built by the bootstrap, kept on the app's state."""

from __future__ import annotations

from fastapi import FastAPI, Request

from service.runtime.bootstrap import ApiParts


def keep(app: FastAPI, parts: ApiParts | None) -> None:
    app.state.parts = parts


def parts(request: Request) -> ApiParts:
    """The parts of the app serving `request` (set by its lifespan)."""
    got = request.app.state.parts
    if not isinstance(got, ApiParts):
        raise RuntimeError("the app's parts are not built (its lifespan has not run)")
    return got
