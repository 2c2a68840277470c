"""Forks: an analysis game from any seq of a game (events/domain/forks.py says who may)."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.domain.forks import ForkRefused
from service.api.access import game_exists, principal
from service.api.body import json_body
from service.api.errors import ApiError
from service.api.parts import parts
from service.api.players import limited
from service.api.responses import json_response
from service.usecases.forks import plan_fork, store_fork
from service.usecases.referees import find_player

log = structlog.get_logger("boardlog.api")

router = APIRouter()


@router.post("/v1/games/{gid}/forks", status_code=201, summary="Fork an analysis game from a seq of this game")
async def fork(gid: str, request: Request) -> Response:
    """`{"at": seq, "seats"?: [null | {"player": id or name}, ...]}` (`at` omitted: the head): a
    new game, marked as analysis, starting from this game's position after `at`, with its own
    seed; every seat's token goes to the forker, but a seat that invites a player is claimed for
    them (they play it signed in). Refused (409) inside a command's events, at a position already
    over, and, until this game is over, where its record up to `at` holds anything a spectator
    may not see. This game is left untouched."""
    p = parts(request)
    await game_exists(p, gid)
    await principal(p, request, gid)  # a token given must be valid here
    body = await json_body(request)
    extra = set(body) - {"at", "seats"}
    if extra:
        raise ApiError(422, "bad_request", f"unknown fields: {sorted(extra)}")
    at = body.get("at")
    if at is not None and (isinstance(at, bool) or not isinstance(at, int)):
        raise ApiError(422, "bad_seq", "'at' is a seq number (a whole number from 1)")
    try:
        plan = await run_in_threadpool(plan_fork, p.store, gid, at)
    except ForkRefused as e:
        raise ApiError(409, e.code, e.message) from None
    except ValueError as e:
        raise ApiError(422, "bad_seq", str(e)) from None
    invited = await _invited(request, body.get("seats"), len(plan.names))
    refused = await limited(request, "forks", p.settings.tables_per_minute)
    if refused is not None:
        return refused
    for seat, (pid, _) in invited.items():  # first, so that what follows the fork finds its players
        await p.players.claim(plan.fid, seat, pid)
    out = await run_in_threadpool(store_fork, p.store, plan, {s: name for s, (_, name) in invited.items()})
    log.info("game.forked", game=out["id"], origin=gid, seq=plan.seq, invited=len(invited))
    return json_response(out, 201, {"Location": f"/v1/games/{out['id']}"})


async def _invited(request: Request, raw: Any, seats: int) -> dict[int, tuple[str, str]]:
    """Seat -> (player id, name) for the seats `raw` invites a player to."""
    if raw is None:
        return {}
    if not isinstance(raw, list) or len(raw) != seats:
        raise ApiError(422, "bad_seats", f"'seats' lists the fork's {seats} seats: null (yours) or {{\"player\": ...}}")
    out: dict[int, tuple[str, str]] = {}
    for i, s in enumerate(raw):
        if s is None:
            continue
        if not isinstance(s, dict) or set(s) != {"player"}:
            raise ApiError(422, "bad_seats", f"seat {i}: null (yours) or {{\"player\": id or name}}")
        found = await find_player(parts(request).players, s["player"], f"seat {i}")
        if any(pid == found.id for pid, _ in out.values()):
            raise ApiError(422, "player_twice", f"seat {i}: {found.name} is invited to another seat (one seat a player)")
        out[i] = (found.id, found.name)
    return out
