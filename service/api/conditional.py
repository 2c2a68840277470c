"""A seat's conditional moves over HTTP: see, replace and clear its queue (its seat only).

The queue is kept beside the game, per seat (events.store.private), never in the game's log
(which spectators read); the worker plays its entries (workers/conditional.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.domain.queued import read_queue
from events.store.private import SeatPrivate
from rules.core import IllegalCommand
from service.api.access import game_exists, principal
from service.api.body import json_body
from service.api.errors import ApiError
from service.api.parts import ApiParts, parts
from service.api.responses import json_response

router = APIRouter()

_PATH = "/v1/games/{gid}/conditional"
_TRIES = 8


async def _seat(p: ApiParts, request: Request, gid: str) -> int:
    await game_exists(p, gid)
    who = await principal(p, request, gid, required=True)
    if who.seat is None:
        raise ApiError(403, "seat_required", "a queue of conditional moves is its seat's own: send the seat's token")
    return who.seat


def _shown(private: SeatPrivate, gid: str, seat: int) -> dict[str, Any]:
    return {"seat": seat, **private.queue(gid, seat).to_json()}


@router.get(_PATH, summary="The bearer seat's queued conditional moves (its seat only)")
async def get_queue(gid: str, request: Request) -> Response:
    p = parts(request)
    seat = await _seat(p, request, gid)
    return json_response(await run_in_threadpool(_shown, SeatPrivate(p.store, links=False), gid, seat))


@router.put(_PATH, summary="Replace the bearer seat's queue of conditional moves")
async def put_queue(gid: str, request: Request) -> Response:
    """`{"queue": [{"if": "<opponent command>"?, "then": "<your command>"}, ...]}`, in notation;
    each entry is read by the game's notation now (a clear 422 otherwise), and played by the
    worker when the prompt reaches the seat (docs/play-by-post.md, "Conditional moves")."""
    p = parts(request)
    seat = await _seat(p, request, gid)
    body = await json_body(request)
    if set(body) != {"queue"}:
        raise ApiError(422, "bad_queue", "send {\"queue\": [{\"if\": <opponent command>?, \"then\": <your command>}]}")

    def stored() -> dict[str, Any]:
        private = SeatPrivate(p.store, links=False)
        for _ in range(_TRIES):
            match = p.cache.refresh(gid).match
            if match.over:
                raise ApiError(409, "game_over", f"the game is {match.status}")
            try:
                entries = read_queue(match.rules, len(match.seats), seat, body["queue"])
            except IllegalCommand as e:
                raise ApiError(422, e.code, e.message) from None
            # written only if the game is still at the seq it was read at; else read it again
            if private.set_at(gid, seat, [e.to_json() for e in entries], since=match.seq) is not None:
                return _shown(private, gid, seat)
        raise ApiError(409, "game_moved", f"the game moved on {_TRIES} times while the queue was being saved; send it again")

    return json_response(await run_in_threadpool(stored))


@router.delete(_PATH, summary="Clear the bearer seat's queue of conditional moves")
async def clear_queue(gid: str, request: Request) -> Response:
    p = parts(request)
    seat = await _seat(p, request, gid)
    await run_in_threadpool(lambda: SeatPrivate(p.store, links=False).put(gid, seat, []))
    return Response(status_code=204)
