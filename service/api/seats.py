"""Seats that belong to players: claiming a seat with its token, the seat a player holds in a
game, and the player's games (those waiting on them first).

A claim is account data, not a game fact: it is kept with the players (PlayerStore) and never
written to the game's event log, so a game's record, its replay and its audit are the same
whoever claimed its seats.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse

from events.records.codec import canonical, loads
from events.store.watchers import GamesWatch, TooManyWatchers
from rules.words import asked
from service.api.access import game_exists
from service.api.auth import Caller, current_player
from service.api.body import json_body
from service.api.errors import ApiError
from service.api.games import current_summary
from service.api.invitations import Invitation, mail_invitation
from service.api.parts import ApiParts, parts
from service.api.players import email_of
from service.api.responses import json_response
from service.api.streams import WatchStream, refused
from service.stores.players import digest
from service.usecases.matches import principal_of, referee_field, token_digest
from service.usecases.notifications.channels import masked

log = structlog.get_logger("boardlog.api")

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]


@router.post("/v1/games/{gid}/claim", summary="Claim a seat, or the referee's role, for the signed-in player, with its token")
async def claim(gid: str, who: Me, request: Request) -> Response:
    """The player by the cookie (or a player key as Bearer), the seat by its token in the body:
    `{"token": "<seat token>"}`. Once: a seat claimed by another player is theirs (409). With
    the game's referee token, the player becomes its referee (`"role": "referee"`): they read
    and rule signed in, on any device, and the referee's notices go to their targets."""
    p = parts(request)
    await game_exists(p, gid)
    body = await json_body(request)
    token = body.get("token")
    if not isinstance(token, str) or not token or set(body) != {"token"}:
        raise ApiError(422, "bad_request", "send {\"token\": \"<the seat's token, from its link>\"}")
    return json_response(await claim_by_digest(p, gid, token_digest(token), who.player.id))


async def claim_by_digest(p: ApiParts, gid: str, digest: str, pid: str) -> dict[str, Any]:
    """Claim for `pid` what the token of this digest holds in `gid` (a seat or the referee's
    role); the claim's answer, or an ApiError saying why not (nothing written then)."""
    head = await p.reads.head(gid, digest, "")
    held = principal_of(head.role)
    if held is not None and held.referee:
        return await _claim_referee(p, gid, pid)
    if held is None or held.seat is None:
        raise ApiError(422, "bad_seat_token", "that is not a seat token (nor the referee's) of this game")
    if await p.reads.role(gid, referee_field(pid)) is not None:
        raise ApiError(409, "referee_not_seat", "you are this game's referee, who holds no seat")
    # The steps to here are on the claimant's screen: the notifier tells them of later ones.
    got = await p.players.claim(gid, held.seat, pid, head.seq)
    if got.code == "seat_claimed":
        raise ApiError(409, "seat_claimed", f"seat {held.seat} of this game belongs to another player")
    if got.code == "already_seated":
        raise ApiError(409, "already_seated", f"you already hold seat {got.seat} of this game")
    if got.code == "claimed":
        log.info("seat.claimed", game=gid, seat=held.seat, player=pid)
    return {"game": gid, "role": "seat", "seat": held.seat, "claimed": got.code == "claimed"}


async def _claim_referee(p: ApiParts, gid: str, pid: str) -> dict[str, Any]:
    """The referee's role for `pid`, as a game made with a player referee names it (its auth
    field and the player's list of refereed games), so the notifier finds the player's targets."""
    seat = await p.players.seat_of(gid, pid)
    if seat is not None:
        raise ApiError(409, "referee_not_seat", f"you hold seat {seat} of this game: its referee holds none")
    got = await p.reads.name_referee(gid, referee_field(pid))
    if got == "taken":
        raise ApiError(409, "referee_claimed", "another player holds this game's referee role")
    await p.players.name_referee(gid, pid)
    if got == "named":
        log.info("referee.claimed", game=gid, player=pid)
    return {"game": gid, "role": "referee", "seat": None, "claimed": got == "named"}


@router.post("/v1/games/{gid}/invitations", status_code=202, summary="Mail a seat's link to the player invited to it")
async def invite(gid: str, who: Me, request: Request) -> Response:
    """`{"token": "<seat token>", "email": "<address>"}`, by a signed-in player holding the seat's
    token (its game's creator): the address gets the seat's link, which opens the seat on any
    device and offers to sign up or sign in to keep it. Limited per player and per address."""
    p = parts(request)
    await game_exists(p, gid)
    body = await json_body(request)
    token, raw = body.get("token"), body.get("email")
    if not isinstance(token, str) or not token or not isinstance(raw, str) or set(body) != {"token", "email"}:
        raise ApiError(422, "bad_request", "send {\"token\": \"<the seat's token>\", \"email\": \"<address>\"}")
    address = email_of(raw.strip())
    assert address is not None
    seat = principal_of((await p.reads.head(gid, token_digest(token), "")).role)
    if seat is None or seat.seat is None:
        raise ApiError(422, "bad_seat_token", "that is not a seat token of this game")
    for key in (who.player.id, digest(address.casefold())):
        wait = await p.limits.take("invite", key, p.settings.signin_mails_per_minute)
        if wait:
            raise ApiError(429, "rate_limited", f"too many invitations this minute; try again in {wait} s",
                           {"Retry-After": str(wait)})
    summary = await _summary(p, gid) or {}
    name = next((s["name"] for s in summary.get("seats", []) if s["seat"] == seat.seat), f"seat {seat.seat}")
    sent = await mail_invitation(p, Invitation(gid, str(summary.get("game", "")), name, who.player.name, address),
                                 token, who.player.id)
    if not sent:
        raise ApiError(503, "mail_unavailable", "the invitation could not be mailed just now: try again later")
    log.info("seat.invited", game=gid, seat=seat.seat, player=who.player.id, to=masked(address))
    return json_response({"game": gid, "seat": seat.seat, "mailed": True}, 202)


@router.get("/v1/games/{gid}/seat", summary="The seat the signed-in player holds in this game, or their referee's role")
async def my_seat(gid: str, who: Me, request: Request) -> Response:
    """`{"role": "seat", "seat": n}`; for the player the game names as its referee `{"role":
    "referee", "seat": null}`, who then reads and rules as a referee token's holder does."""
    p = parts(request)
    await game_exists(p, gid)
    seat = await p.players.seat_of(gid, who.player.id)
    if seat is not None:
        return json_response({"game": gid, "role": "seat", "seat": seat})
    if await p.reads.role(gid, referee_field(who.player.id)) is not None:
        return json_response({"game": gid, "role": "referee", "seat": None})
    raise ApiError(404, "not_seated", "you hold no seat in this game")


async def _summary(p: ApiParts, gid: str) -> dict[str, Any] | None:
    """The game's summary; None for a game not stored yet (an open table's seats are claimed
    a moment before its game is stored: service/usecases/tables.py)."""
    raw = await p.reads.read_model(gid, "summary")
    if raw is not None:
        out: dict[str, Any] = loads(raw)
        return out
    if not await p.reads.exists(gid):
        return None
    return await run_in_threadpool(lambda: current_summary(p.store, gid))


def game_row(summary: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The player's row of a game: their seat's (`seat`), or, with `seat` None, the referee's,
    whose game waits on them while a dispute is open (`dispute`: that dispute, else null)."""
    names = {s["seat"]: s["name"] for s in summary["seats"]}
    prompt = summary["prompt"]
    turn = [] if prompt is None or summary["status"] != "active" else list(prompt["seats"])
    dispute = _open_dispute(summary) if seat is None else None
    return {
        "id": summary["id"], "game": summary["game"], "seat": seat,
        "role": "seat" if seat is not None else "referee",
        "name": names.get(seat) if seat is not None else (summary.get("referee") or {}).get("name"),
        "opponents": [n for s, n in sorted(names.items()) if s != seat],
        "turn": [names.get(s) for s in turn], "your_turn": seat in turn, "asked": _asked(prompt) if turn else None,
        "dispute": dispute, "waiting_on_you": seat in turn or dispute is not None,
        "since": summary["updated"], "status": summary["status"],
        "analysis": bool(summary.get("analysis")), "refereed": bool(summary.get("refereed")),
        **(_clock_row(summary.get("clock"), seat) if seat is not None else _clock_row(None, 0)),
    }


def _open_dispute(summary: dict[str, Any]) -> dict[str, Any] | None:
    """The dispute waiting on the game's referee: who opened it, on what seq, with what note."""
    if summary["status"] != "active":
        return None
    for d in (summary.get("conduct") or {}).get("disputes") or []:
        if d.get("verdict") is None:
            by = d.get("by")
            named = next((s["name"] for s in summary["seats"] if s["seat"] == by), None)
            return {"seq": d.get("seq"), "on": d.get("on"), "by": named, "note": d.get("note")}
    return None


def _asked(prompt: dict[str, Any] | None) -> str | None:
    """What the prompt asks, without the names it starts with ("take an action, use a power or
    pass (round 2)"); None for a summary projected before it carried the words."""
    text = prompt.get("text") if prompt else None
    return (asked(text) if isinstance(text, str) else "") or None


def _clock_row(clock: dict[str, Any] | None, seat: int) -> dict[str, Any]:
    """The seat's own clock: its running deadline, or the time it has left while stopped."""
    if not clock:
        return {"deadline": None, "left_ms": None, "away": False}
    return {"deadline": (clock.get("deadlines") or {}).get(str(seat)),
            "left_ms": (clock.get("left_ms") or {}).get(str(seat)), "away": seat in (clock.get("vacation") or [])}


def _group(row: dict[str, Any]) -> int:
    """Disputes waiting on the referee first, then turns waiting on the seat, the other active
    games, then those over."""
    return 0 if row["dispute"] else 1 if row["your_turn"] else 2 if row["status"] == "active" else 3


KEEP_ALIVE_SECONDS = 15.0

# game id -> its summary (None: not stored yet), the seat (None: the player referees it)
Held = dict[str, tuple[dict[str, Any] | None, int | None]]


async def _mine(p: ApiParts, pid: str) -> dict[str, int | None]:
    """Game id -> the seat `pid` holds there, or None for a game they referee."""
    mine: dict[str, int | None] = dict.fromkeys(await p.players.refereed(pid))
    mine.update(await p.players.seats(pid))
    return mine


async def _held(p: ApiParts, seats: dict[str, int | None], known: Held | None = None) -> Held:
    """Each seat's game with its summary, read unless `known` has it."""
    known = known or {}
    return {gid: (known[gid][0] if gid in known else await _summary(p, gid), seat) for gid, seat in seats.items()}


def _games(held: Held, waiting: bool) -> dict[str, Any]:
    rows = [game_row(summary, seat) for summary, seat in held.values() if summary is not None]
    # Latest first within a group: sort by time descending, then (stably) by group.
    rows.sort(key=lambda r: r["since"], reverse=True)
    rows.sort(key=_group)
    if waiting:
        rows = [r for r in rows if r["waiting_on_you"]]
    return {"games": rows, "waiting": sum(1 for r in rows if r["waiting_on_you"])}


@router.get("/v1/me/games", summary="The signed-in player's games: those waiting on them first")
async def my_games(who: Me, request: Request, waiting: int = 0) -> Response:
    """The games the player holds a seat of or referees (`role`): disputes waiting on them as
    referee first, then turns waiting on them, then their other active games, then finished
    ones; each group by last activity, the latest first. `waiting` counts both kinds;
    `?waiting=1`: the waiting ones only."""
    p = parts(request)
    return json_response(_games(await _held(p, await _mine(p, who.player.id)), bool(waiting)))


@router.get("/v1/me/stream", summary="Server-sent events: the signed-in player's games waiting on them")
async def my_stream(who: Me, request: Request) -> StreamingResponse:
    """`event: waiting` with the body of `/v1/me/games?waiting=1`, when the stream opens and each
    time it changes: pushed from the projector's notices of the player's games (one watcher
    against the caps, however many games), so a page need not poll. Games the player takes a
    seat in later join within BOARDLOG_ME_STREAM_REFRESH_SECONDS, when the credential is checked
    again (the stream ends once it is no longer valid); a keep-alive every 15 s."""
    p = parts(request)
    client = request.client.host if request.client else "unknown"
    seats = await _mine(p, who.player.id)
    try:
        watch = p.watchers.open_games(seats, client)
    except TooManyWatchers as e:
        raise refused(e) from None
    try:
        await p.watchers.games_subscribed(watch, timeout=2.0)  # before the reads: no change between
        held = await _held(p, seats)
    except BaseException:
        p.watchers.close_games(watch)
        raise
    return WatchStream(_waiting(request, who.player.id, held, watch), lambda: p.watchers.close_games(watch))


async def _waiting(request: Request, pid: str, held: Held, watch: GamesWatch) -> AsyncIterator[bytes]:
    p = parts(request)
    loop = asyncio.get_running_loop()
    refresh = p.settings.me_stream_refresh_seconds
    seats_at = loop.time() + refresh
    said, wrote = b"", loop.time()
    while True:
        body = canonical(_games(held, True))
        if body != said:
            said, wrote = body, loop.time()
            yield b"event: waiting\ndata: " + body + b"\n\n"
        elif loop.time() - wrote >= KEEP_ALIVE_SECONDS:
            wrote = loop.time()
            yield b": keep-alive\n\n"  # a client gone is seen when a write to it fails
        changed = await watch.next(timeout=max(0.05, min(wrote + KEEP_ALIVE_SECONDS, seats_at) - loop.time()))
        if watch.broken:
            return  # the subscription broke (notices lost): the client reconnects and reads afresh
        for gid, summary in changed.items():
            if gid in held:
                held[gid] = (loads(summary), held[gid][1])
        if loop.time() >= seats_at:
            seats_at = loop.time() + refresh
            try:
                await current_player(request)  # signed out or revoked since: the stream ends
            except ApiError:
                return
            seats = await _mine(p, pid)
            if seats.keys() != held.keys():
                p.watchers.watch_games(watch, seats)
                await p.watchers.games_subscribed(watch, timeout=2.0)
                held = await _held(p, seats, held)
