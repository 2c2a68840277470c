"""The move list: `GET /v1/games/{gid}/moves`, one entry per command in words, paged."""

from __future__ import annotations

import threading
from collections import OrderedDict

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.store.store import EventStore, Head
from projections.moves import DEFAULT_LIMIT, MAX_LIMIT, MoveList, page
from projections.replay import replay_step
from service.api.access import game_exists, principal, sees_everything
from service.api.errors import ApiError
from service.api.parts import parts
from service.api.reads import within_limit
from service.api.responses import json_response
from service.usecases.matches import Principal

router = APIRouter()


_PARAMETERS = [
    {"name": "before", "in": "query", "required": False,
     "description": "only entries numbered below this (default: up to the newest)",
     "schema": {"type": "integer", "minimum": 1}},
    {"name": "limit", "in": "query", "required": False, "description": "at most this many entries, the newest of them",
     "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}},
    {"name": "full", "in": "query", "required": False,
     "description": "1: every event as logged, secrets included (after the end, or for the referee)",
     "schema": {"type": "integer", "enum": [0, 1], "default": 0}},
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
    full = _full(q.get("full"))
    lists = kept_lists(request)
    return await run_in_threadpool(lambda: _moves_page(lists, p.store, gid, who, before, limit, full))


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

    def current(self, store: EventStore, gid: str, who: Principal, unredacted: bool | None = None) -> MoveList:
        """`unredacted` (default: the referee's) lists every event as logged."""
        whole = who.referee if unredacted is None else unredacted
        key = (gid, who.seat, whole)
        with self._lock:
            kept = self._items.pop(key, None)
        moves = kept or MoveList(gid, who.seat, whole)
        moves.feed(store.read(gid, moves.seq + 1))
        with self._lock:
            self._items[key] = moves
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return moves


def kept_lists(request: Request) -> MoveLists:
    """The API process's kept move lists (one set, made on first use)."""
    state = request.app.state
    lists = getattr(state, "move_lists", None)
    if not isinstance(lists, MoveLists):
        lists = state.move_lists = MoveLists()
    return lists


def _moves_page(lists: MoveLists, store: EventStore, gid: str, who: Principal, before: int | None,
                limit: int, full: bool = False) -> Response:
    if full:
        _may_see_all(store, gid, who)
        moves = lists.current(store, gid, Principal(), unredacted=True)
    else:
        moves = lists.current(store, gid, who)
    body = page(moves.entries(), before, limit)
    body["seq"] = moves.seq
    return json_response(body)


def _full(raw: str | None) -> bool:
    if raw not in (None, "0", "1"):
        raise ApiError(422, "bad_request", "'full' is 0 or 1")
    return raw == "1"


def _may_see_all(store: EventStore, gid: str, who: Principal) -> Head:
    """The game's head, if `who` may see everything in it: after the end anyone, before it the
    referee only (not the admin, not a seat)."""
    head = store.head(gid)
    if head is None:
        raise ApiError(404, "unknown_game", f"no game {gid!r}")
    if not sees_everything(head.status, who):
        raise ApiError(403, "game_not_over", "everything is shown after the end, or to the game's referee: "
                       "until then a seat replays its own view and anyone else the public one")
    return head


_REPLAY_PARAMETERS = [
    {"name": "at", "in": "query", "required": False,
     "description": "the step (from 1: one command with all its events, or a step the game takes on its own); "
     "the last one without it", "schema": {"type": "integer", "minimum": 1}},
    {"name": "full", "in": "query", "required": False,
     "description": "1: everything shown, every seat's secrets included (after the end, or for the referee)",
     "schema": {"type": "integer", "enum": [0, 1], "default": 0}},
    {"name": "seq", "in": "query", "required": False,
     "description": "a seq inside the step: the board after that one event (a sub-step), and what it changed",
     "schema": {"type": "integer", "minimum": 1}},
]


@router.get("/v1/games/{gid}/replay", summary="One replay step: a command with its events, the board after it, "
            "what changed and its draws", openapi_extra={"parameters": _REPLAY_PARAMETERS})
async def replay_step_of(gid: str, request: Request) -> Response:
    """Step `at` of the move list as the viewer may see it (a seat its own secrets, a spectator
    the public view; `full=1` everything, once the game is over or for its referee): the entry
    (who, when, notation, sentence, events), the board after it, the pieces moved, added,
    removed or turned over and the numbers changed since the step before, and its random draws
    (their indexes; once the seed is revealed, each re-derived from it)."""
    p = parts(request)
    await game_exists(p, gid)
    who = await principal(p, request, gid)
    q = request.query_params
    full = _full(q.get("full"))
    raw = q.get("at")
    step: int | None = None
    if raw is not None:
        try:
            step = int(raw)
        except ValueError:
            raise ApiError(422, "bad_step", f"'at' is a step number (a whole number from 1), not {raw[:20]!r}") from None
        if step < 1:
            raise ApiError(422, "bad_step", f"'at' counts steps from 1, not {step}")
    sub: int | None = None
    if "seq" in q:
        try:
            sub = int(q["seq"])
        except ValueError:
            raise ApiError(422, "bad_seq", f"'seq' is a seq number, not {q['seq'][:20]!r}") from None
    await within_limit(p, request, who, "replays")
    lists = kept_lists(request)
    return await run_in_threadpool(lambda: _step(lists, p.store, gid, who, step, full, sub))


def _step(lists: MoveLists, store: EventStore, gid: str, who: Principal, step: int | None, full: bool,
          sub: int | None = None) -> Response:
    head = _may_see_all(store, gid, who) if full else store.head(gid)
    if head is None:
        raise ApiError(404, "unknown_game", f"no game {gid!r}")
    viewer = None if full else who.seat
    moves = lists.current(store, gid, Principal(seat=viewer), unredacted=full)
    entries = moves.entries()
    if not entries:
        raise ApiError(404, "unknown_game", f"the game {gid!r} has no steps to replay")
    n = len(entries) if step is None else step
    if n > len(entries):
        raise ApiError(422, "bad_step", f"the replay has {len(entries)} steps so far: 'at' is from 1 to {len(entries)}, "
                       f"not {n}")
    try:
        body = replay_step(store, gid, entries, n, viewer, full, sub)
    except ValueError as err:
        raise ApiError(422, "bad_seq", f"'seq' names an event of the step: {err}") from None
    body["viewer"] = {"seat": viewer, "full": full,
                      "may_full": sees_everything(head.status, who)}
    return json_response(body)
