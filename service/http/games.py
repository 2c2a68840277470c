"""Games: create one, the lobby, a game's summary."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.mapping.codec import loads
from events.redisstore.store import EventStore
from projections.lobby import Cursor, lobby_rows
from projections.readmodels import summary_of
from projections.replay import match_at
from rules.core import games
from service.http.access import game_exists, our_gid
from service.http.body import json_body
from service.http.errors import ApiError
from service.http.parts import parts
from service.http.responses import json_response
from service.matches import create_match

log = structlog.get_logger("boardlog.api")

router = APIRouter()


def current_summary(store: EventStore, gid: str) -> dict[str, Any]:
    """The game's summary: the projected one, or (the projector a moment behind) folded live."""
    raw = store.read_model(gid, "summary")
    if raw is not None:
        out: dict[str, Any] = loads(raw)
        return out
    match = match_at(store, gid)
    first = store.read(gid, 1, 1)[0].at
    last = store.read(gid, match.seq, match.seq)[0].at
    return summary_of(match, first, last)


@router.post("/v1/games", status_code=201, summary="Create a game")
async def create(request: Request) -> Response:
    store = parts(request).store
    body = await json_body(request)
    out = await run_in_threadpool(lambda: create_match(store, body))
    log.info("game.created", game=out["id"], type=out["game"], seats=len(out["seats"]))
    return json_response(out, 201, {"Location": f"/v1/games/{out['id']}"})


@router.get("/v1/games", summary="The lobby: games by last activity, a page at a time")
def lobby(
    request: Request, limit: int = 50, status: str | None = None, game: str | None = None, cursor: str | None = None
) -> Response:
    limit = max(1, min(limit, 500))
    try:
        after = None if cursor is None else Cursor.decode(cursor)
    except ValueError:
        raise ApiError(422, "bad_cursor", "'cursor' is the 'next' of a previous page") from None
    rows, nxt = lobby_rows(parts(request).store, limit, status, game, after)
    return json_response({"games": rows, "types": sorted(games()),
                          "next": None if nxt is None else nxt.encode()})


@router.get("/v1/games/{gid}", summary="A game's summary")
async def get_summary(gid: str, request: Request) -> Response:
    p = parts(request)
    if our_gid(p, gid):
        raw = await p.reads.read_model(gid, "summary")
        if raw is not None:
            return Response(raw, media_type="application/json")
    await game_exists(p, gid)
    return json_response(await run_in_threadpool(lambda: current_summary(p.store, gid)))
