"""The FastAPI app: the routers by concern, the error handlers, and the parts for its lifespan."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import structlog
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from starlette.types import Receive, Scope, Send

from service.api import (
    commands,
    conditional,
    confirmations,
    disputes,
    docs,
    errors,
    forks,
    games,
    gamestreams,
    health,
    messages,
    moves,
    ownemail,
    pages,
    players,
    publickeys,
    reads,
    refereeinvites,
    rematch,
    schemas,
    seats,
    tables,
    vacations,
)
from service.api import metrics as metrics_
from service.api import notifications as notifications_
from service.api.edge import refusal
from service.api.parts import ApiParts, keep

log = structlog.get_logger("boardlog.api")

# In the order their paths appear in the OpenAPI. Notifications go here too.
ROUTERS: tuple[APIRouter, ...] = (health.router, games.router, commands.router, reads.router, gamestreams.router,
                                  moves.router, disputes.router,
                                  messages.router, conditional.router,
                                  players.router, ownemail.router, seats.router, refereeinvites.router, tables.router, notifications_.router,
                                  confirmations.router, vacations.router,
                                  metrics_.router,
                                  publickeys.router, forks.router, rematch.router, pages.router, docs.router)

_POST_COMMANDS = re.compile(r"^/v1/games/([^/]+)/commands$")
_FAST_QUERIES = {b"": 0, b"wait=0": 0, b"wait=1": 1}


class BoardlogApp(FastAPI):
    """FastAPI, with `POST /v1/games/{gid}/commands` (the hot path) answered before its routing.

    FastAPI's middleware stack, router and parameter validation cost about as much CPU as
    the command's own work; the fast path calls the same endpoint function with a plain
    Request and answers its errors with the same builders (errors.answer) as the exception
    handlers. Any other query string takes the normal route.
    """

    fast_post: Callable[[str, Request, int], Awaitable[Response]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        refused = refusal(scope["path"], scope["query_string"])
        if refused is not None:
            await refused(scope, receive, send)
            return
        if scope["method"] == "POST" and self.fast_post is not None:
            m = _POST_COMMANDS.match(scope["path"])
            wait = _FAST_QUERIES.get(scope["query_string"])
            if m is not None and wait is not None:
                scope["app"] = self
                try:
                    response = await self.fast_post(m.group(1), Request(scope, receive), wait)
                except Exception as exc:
                    response = errors.answer(exc, scope["path"])
                await response(scope, receive, send)
                return
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            # Starlette has answered the standard JSON 500 (the Exception handler) and raises it
            # again for the server, which would log it and drop the connection: log it here.
            log.exception("api.failed", path=scope["path"])


def create_app(parts_for: Callable[[], AbstractAsyncContextManager[ApiParts]]) -> FastAPI:
    """The app whose lifespan holds the parts `parts_for()` builds (the composition root's,
    service/runtime/asgi.py), kept on the app's state while it runs."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with parts_for() as built:
            keep(app, built)
            yield
        keep(app, None)

    app = BoardlogApp(
        title="boardlog",
        version="1",
        lifespan=lifespan,
        docs_url=None,  # service/api/docs.py serves /docs and /redoc with their assets
        redoc_url=None,
        description="Event-sourced board game matches: create, command, replay, export, audit.",
    )
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    notifications_.install_webhooks(app)
    app.fast_post = commands.post_command
    schemas.document(app)  # the OpenAPI as the contract (service/api/schemas.py)
    return app
