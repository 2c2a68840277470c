"""Forks: an analysis game from any seq of a game (events/domain/forks.py says who may)."""

from __future__ import annotations

import structlog
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.domain.forks import ForkRefused
from service.forks import fork_game
from service.http.access import game_exists, principal
from service.http.body import json_body
from service.http.errors import ApiError
from service.http.parts import parts
from service.http.players import limited
from service.http.responses import json_response

log = structlog.get_logger("boardlog.api")

router = APIRouter()


@router.post("/v1/games/{gid}/forks", status_code=201, summary="Fork an analysis game from a seq of this game")
async def fork(gid: str, request: Request) -> Response:
    """`{"at": seq}` (the head without it): a new game, marked as analysis, starting from this
    game's position after `at`, with its own seed; every seat's token goes to the forker. Refused
    (409) inside a command's events, at a position already over, and, until this game is over, where
    its record up to `at` holds anything a spectator may not see. This game is left untouched."""
    p = parts(request)
    await game_exists(p, gid)
    await principal(p, request, gid)  # a token given must be valid here
    body = await json_body(request)
    extra = set(body) - {"at"}
    if extra:
        raise ApiError(422, "bad_request", f"unknown fields: {sorted(extra)}")
    at = body.get("at")
    if at is not None and (isinstance(at, bool) or not isinstance(at, int)):
        raise ApiError(422, "bad_seq", "'at' is a seq number (a whole number from 1)")
    refused = await limited(request, "forks", p.settings.tables_per_minute)
    if refused is not None:
        return refused
    try:
        out = await run_in_threadpool(fork_game, p.store, gid, at)
    except ForkRefused as e:
        raise ApiError(409, e.code, e.message) from None
    except ValueError as e:
        raise ApiError(422, "bad_seq", str(e)) from None
    log.info("game.forked", game=out["id"], origin=gid, seq=out["fork"]["seq"])
    return json_response(out, 201, {"Location": f"/v1/games/{out['id']}"})
