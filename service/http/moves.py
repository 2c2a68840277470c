"""The move list: `GET /v1/games/{gid}/moves`, one entry per command in words, paged."""

from __future__ import annotations

import threading
from collections import OrderedDict

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.redisstore.store import EventStore
from projections.moves import DEFAULT_LIMIT, MAX_LIMIT, MoveList, page
from service.http.access import game_exists, principal
from service.http.errors import ApiError
from service.http.parts import parts
from service.http.responses import json_response
from service.matches import Principal

router = APIRouter()


_PARAMETERS = [
    {"name": "before", "in": "query", "required": False,
     "description": "only entries numbered below this (default: up to the newest)",
     "schema": {"type": "integer", "minimum": 1}},
    {"name": "limit", "in": "query", "required": False, "description": "at most this many entries, the newest of them",
     "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}},
]


# The query is read by hand, so that a bad page answers the move list's own code (bad_page); the
# OpenAPI names its parameters all the same.
@router.get("/v1/games/{gid}/moves", summary="The move list, as the viewer may see it",
            openapi_extra={"parameters": _PARAMETERS})
async def moves(gid: str, request: Request) -> Response:
    """Entries numbered below `before` (default: all), the last `limit` of them (50 by default,
    500 at most), oldest first; `older` is the `before` that asks for the page before this one.
    Same credentials as /events: a seat sees its own secrets, a spectator the public log."""
    p = parts(request)
    await game_exists(p, gid)
    who = await principal(p, request, gid)
    q = request.query_params
    try:
        before = int(q["before"]) if "before" in q else None
        limit = int(q.get("limit", DEFAULT_LIMIT))
    except ValueError:
        raise ApiError(422, "bad_page", "'before' and 'limit' are whole numbers") from None
    if before is not None and before < 1:
        raise ApiError(422, "bad_page", "'before' counts entries from 1")
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(422, "bad_page", f"'limit' is from 1 to {MAX_LIMIT}")
    lists = _kept(request)
    return await run_in_threadpool(lambda: _moves_page(lists, p.store, gid, who, before, limit))


class MoveLists:
    """The move lists one API process keeps, by game and viewer, the least recently used out first.

    A kept list reads only the events after the ones it has seen, so a board that asks for the
    move list after every move costs one command's events, not the whole game. A list is taken out
    while a thread feeds it; a second request meanwhile builds its own (correct, only slower).
    """

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, int | None, bool], MoveList] = OrderedDict()
        self._lock = threading.Lock()

    def current(self, store: EventStore, gid: str, who: Principal) -> MoveList:
        key = (gid, who.seat, who.admin)
        with self._lock:
            kept = self._items.pop(key, None)
        moves = kept or MoveList(gid, who.seat, who.admin)
        moves.feed(store.read(gid, moves.seq + 1))
        with self._lock:
            self._items[key] = moves
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return moves


def _kept(request: Request) -> MoveLists:
    state = request.app.state
    lists = getattr(state, "move_lists", None)
    if not isinstance(lists, MoveLists):
        lists = state.move_lists = MoveLists()
    return lists


def _moves_page(lists: MoveLists, store: EventStore, gid: str, who: Principal, before: int | None,
                limit: int) -> Response:
    moves = lists.current(store, gid, who)
    body = page(moves.entries(), before, limit)
    body["seq"] = moves.seq
    return json_response(body)
