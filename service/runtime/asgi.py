"""The API's ASGI app as the runtime starts it: settings from the environment, logs set up, and
its parts built by the composition root for as long as the app runs."""

from __future__ import annotations

import structlog
from fastapi import FastAPI

from service.api.app import create_app as app_with
from service.runtime.bootstrap import Parts, api_parts
from service.runtime.logs import configure
from service.runtime.settings import Settings


def create_app(settings: Settings | None = None, parts: Parts | None = None) -> FastAPI:
    """The app for `settings` (from the environment by default); its parts are built when it
    starts (from `parts`, the sync ones, when given). uvicorn calls it as a factory in each
    process it starts for itself (--processes)."""
    settings = settings or Settings.from_env()
    if not structlog.is_configured():
        configure(settings.log_format, settings.log_level)
    chosen = settings
    return app_with(lambda: api_parts(chosen, parts))
