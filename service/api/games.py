"""Games: create one, the lobby, a game's summary."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Annotated, Any

import structlog
from anyio import from_thread
from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.domain.match import fold_match
from events.records.codec import canonical, loads
from events.store.store import EventStore
from events.store.sweeps import watch_untouched
from projections.lobby import Cursor, lobby_rows
from projections.readmodels import summary_of
from projections.replay import one_command
from rules.core import games
from service.api.access import game_exists, our_gid
from service.api.auth import current_player
from service.api.body import json_body
from service.api.credentials import bearer_token, has_session_cookie
from service.api.errors import ApiError
from service.api.freshness import MIN_SEQ_DOC, at_least
from service.api.parts import ApiParts, parts
from service.api.players import limited
from service.api.refereeinvites import limit_invitations, mailer
from service.api.responses import json_response
from service.api.schemas import LOBBY_CURSOR
from service.usecases.gametypes import game_types
from service.usecases.matches import create_match
from service.usecases.referees import referee_invitation, referee_player
from service.usecases.tables import create_with_players, has_player_seats, plan_table

log = structlog.get_logger("boardlog.api")

router = APIRouter()

HOUR = 3600


def current_summary(store: EventStore, gid: str) -> dict[str, Any]:
    """The game's summary: the projected one, or, for a game the projector has not reached yet,
    its opening (the events before its first command), folded here. Not its head: the
    projector's first summary may be of an earlier seq than a head read now, and a reader must
    never see the game step back."""
    raw = store.read_model(gid, "summary")
    if raw is not None:
        out: dict[str, Any] = loads(raw)
        return out
    opening = one_command(store, gid, 1)
    match = fold_match((e.event for e in opening), gid)
    return summary_of(match, opening[0].at, opening[-1].at, store.imported(gid))


async def summary_frame(p: ApiParts, gid: str) -> bytes:
    """The game's summary as a stream first sends it: the projected one (one read, for a game
    that has one), else current_summary's; 404 for no such game."""
    raw = await p.reads.read_model(gid, "summary")
    if raw is not None:
        return raw
    await game_exists(p, gid)
    return canonical(await run_in_threadpool(current_summary, p.store, gid))


@router.post("/v1/games", status_code=201, summary="Create a game")
async def create(request: Request) -> Response:
    """Seats by name (their tokens in the answer), or, signed in, seats that invite players by
    id or name (`{"player": "..."}`) and open seats (`{"open": true}`): a game with an open
    seat is a forming table (service/usecases/tables.py) until its last seat is taken."""
    p = parts(request)
    refused = await _creation_refused(request, p)
    if refused is not None:
        return refused
    body = await json_body(request)
    if has_player_seats(body.get("seats")):
        who = await current_player(request)
        plan = await plan_table(p.players, who.player, body, p.settings.table_expiry_seconds)
        refused = await limited(request, "tables", p.settings.tables_per_minute)
        if refused is not None:
            return refused
        made, where = await create_with_players(p.players, p.tables, p.store, who.player, plan)
        return json_response(made, 201, {"Location": where})
    plain, referee = await referee_player(p.players, body)  # a player as referee, resolved
    plain, invite = referee_invitation(plain)  # a referee invited by mail: no token answered
    if invite is not None:
        await limit_invitations(p, invite)
    before = _lister(p, referee) if invite is None else mailer(p, invite, plain)
    out = await run_in_threadpool(lambda: create_match(p.store, plain, referee, before,
                                                       None if invite is None else invite.field))
    if referee is None and invite is None:  # a player-referee's game is listed as theirs: it stays
        await run_in_threadpool(watch_untouched, p.store, out["id"])
    log.info("game.created", game=out["id"], type=out["game"], seats=len(out["seats"]))
    return json_response(out, 201, {"Location": f"/v1/games/{out['id']}"})


async def _creation_refused(request: Request, p: ApiParts) -> Response | None:
    """The 429 for a creator past this hour's share of new games, else None. Without a session
    or player key the share is the client address's, taken before the body is even read (a
    flood costs one counter each); a signed-in player has their own share, and their address
    ten times the anonymous one. A credential that names no player counts as none here: it is
    the plain game's creation, which never needed one (a table's asks for it again)."""
    anon = p.settings.anon_games_per_hour
    caller = None
    if bearer_token(request) is not None or has_session_cookie(request):
        with suppress(ApiError):
            caller = await current_player(request)
    client = request.client.host if request.client else "unknown"
    if caller is None:
        wait = await p.limits.take("games:anon", client, anon, window=HOUR)
    else:
        wait = await p.limits.take("games:player", caller.player.id, p.settings.player_games_per_hour, window=HOUR)
        wait = wait or await p.limits.take("games:known", client, anon * 10, window=HOUR)
    if not wait:
        return None
    log.info("game.create_limited", signed_in=caller is not None)
    return json_response({"error": {"code": "rate_limited", "message": (
        "too many games created " + ("by this player" if caller else "from this address without signing in")
        + f" this hour; try again in {wait} s")}}, 429, {"Retry-After": str(wait)})


def _lister(p: ApiParts, referee: tuple[str, str] | None) -> Callable[[str], None] | None:
    """For the create's worker thread: lists the game among its player-referee's games (/v1/me)."""
    if referee is None:
        return None
    pid = referee[0]
    return lambda gid: from_thread.run(p.players.name_referee, gid, pid)


@router.get("/v1/game-types", summary="The game types: names, player counts, a line each, their options")
def game_types_list() -> Response:
    """For the lobby's form: each option as a choice per seat (`per_seat`, one value each, seat
    i taking the i-th), a `choice` or a `bool`, with its default; `options` is null for a game
    whose options are only known as raw JSON."""
    return json_response({"types": game_types()})


@router.get("/v1/games", summary="The lobby: games by last activity, a page at a time")
def lobby(
    request: Request, limit: int = 50, status: str | None = None, game: str | None = None, cursor: str | None = None
) -> Response:
    limit = max(1, min(limit, 500))
    # An empty cursor is none (a form's empty field): the first page. LOBBY_CURSOR is the document's pattern.
    if cursor and not LOBBY_CURSOR.fullmatch(cursor):
        raise ApiError(422, "bad_cursor", "'cursor' is the 'next' of a previous page")
    after = Cursor.decode(cursor) if cursor else None
    rows, nxt = lobby_rows(parts(request).store, limit, status, game, after)
    return json_response({"games": rows, "types": sorted(games()),
                          "next": None if nxt is None else nxt.encode()})


@router.get("/v1/games/{gid}", summary="A game's summary")
async def get_summary(gid: str, request: Request,
                      min_seq: Annotated[int | None, Query(description=MIN_SEQ_DOC)] = None) -> Response:
    p = parts(request)
    await at_least(p, gid, min_seq)  # (404 for no such game)
    if our_gid(p, gid):
        raw = await p.reads.read_model(gid, "summary")
        if raw is not None:
            return Response(raw, media_type="application/json")
    await game_exists(p, gid)
    return json_response(await run_in_threadpool(lambda: current_summary(p.store, gid)))
