"""The API's ASGI app as the runtime starts it: settings from the environment, logs set up, and
its parts built by the composition root for as long as the app runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
from fastapi import FastAPI

from service.api.app import create_app as app_with
from service.api.parts import ApiParts
from service.runtime.bootstrap import Parts, api_parts
from service.runtime.heap import settle_heap
from service.runtime.logs import configure
from service.runtime.settings import Settings


def create_app(settings: Settings | None = None, parts: Parts | None = None, settle: bool = False) -> FastAPI:
    """The app for `settings` (from the environment by default); its parts are built when it
    starts (from `parts`, the sync ones, when given). `settle`: the heap is settled once they
    are (service/runtime/heap.py), for the API's own process only."""
    settings = settings or Settings.from_env()
    if not structlog.is_configured():
        configure(settings.log_format, settings.log_level)
    chosen = settings

    @asynccontextmanager
    async def parts_for() -> AsyncIterator[ApiParts]:
        async with api_parts(chosen, parts) as built:
            if settle:
                settle_heap()
            yield built

    return app_with(parts_for)


def served_app() -> FastAPI:
    """The app as uvicorn builds it in each process it starts for itself (--processes)."""
    return create_app(settle=True)
