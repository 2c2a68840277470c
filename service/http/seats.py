"""Seats that belong to players: claiming a seat with its token, the seat a player holds in a
game, and the player's games (those waiting on them first).

A claim is account data, not a game fact: it is kept with the players (PlayerStore) and never
written to the game's event log, so a game's record, its replay and its audit are the same
whoever claimed its seats.
"""

from __future__ import annotations

from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.mapping.codec import loads
from service.bootstrap import ApiParts
from service.http.access import game_exists
from service.http.auth import Caller, current_player
from service.http.body import json_body
from service.http.errors import ApiError
from service.http.games import current_summary
from service.http.parts import parts
from service.http.responses import json_response
from service.matches import principal_of, token_digest

log = structlog.get_logger("boardlog.api")

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]


@router.post("/v1/games/{gid}/claim", summary="Claim a seat for the signed-in player, with the seat's token")
async def claim(gid: str, who: Me, request: Request) -> Response:
    """The player by the cookie (or a player key as Bearer), the seat by its token in the body:
    `{"token": "<seat token>"}`. Once: a seat claimed by another player is theirs (409)."""
    p = parts(request)
    await game_exists(p, gid)
    body = await json_body(request)
    token = body.get("token")
    if not isinstance(token, str) or not token or set(body) != {"token"}:
        raise ApiError(422, "bad_request", "send {\"token\": \"<the seat's token, from its link>\"}")
    head = await p.reads.head(gid, token_digest(token), "")
    seat = principal_of(head.role)
    if seat is None or seat.seat is None:
        raise ApiError(422, "bad_seat_token", "that is not a seat token of this game")
    # The steps to here are on the claimant's screen: the notifier tells them of later ones.
    got = await p.players.claim(gid, seat.seat, who.player.id, head.seq)
    if got.code == "seat_claimed":
        raise ApiError(409, "seat_claimed", f"seat {seat.seat} of this game belongs to another player")
    if got.code == "already_seated":
        raise ApiError(409, "already_seated", f"you already hold seat {got.seat} of this game")
    if got.code == "claimed":
        log.info("seat.claimed", game=gid, seat=seat.seat, player=who.player.id)
    return json_response({"game": gid, "seat": seat.seat, "claimed": got.code == "claimed"})


@router.get("/v1/games/{gid}/seat", summary="The seat the signed-in player holds in this game")
async def my_seat(gid: str, who: Me, request: Request) -> Response:
    p = parts(request)
    await game_exists(p, gid)
    seat = await p.players.seat_of(gid, who.player.id)
    if seat is None:
        raise ApiError(404, "not_seated", "you hold no seat in this game")
    return json_response({"game": gid, "seat": seat})


async def _summary(p: ApiParts, gid: str) -> dict[str, Any] | None:
    """The game's summary; None for a game not stored yet (an open table's seats are claimed
    a moment before its game is stored: service/tables.py)."""
    raw = await p.reads.read_model(gid, "summary")
    if raw is not None:
        out: dict[str, Any] = loads(raw)
        return out
    if not await p.reads.exists(gid):
        return None
    return await run_in_threadpool(lambda: current_summary(p.store, gid))


def game_row(summary: dict[str, Any], seat: int) -> dict[str, Any]:
    names = {s["seat"]: s["name"] for s in summary["seats"]}
    prompt = summary["prompt"]
    turn = [] if prompt is None or summary["status"] != "active" else list(prompt["seats"])
    return {
        "id": summary["id"], "game": summary["game"], "seat": seat, "name": names.get(seat),
        "opponents": [n for s, n in sorted(names.items()) if s != seat],
        "turn": [names.get(s) for s in turn], "your_turn": seat in turn,
        "since": summary["updated"], "status": summary["status"],
        "analysis": bool(summary.get("analysis")), "refereed": bool(summary.get("refereed")),
        **_clock_row(summary.get("clock"), seat),
    }


def _clock_row(clock: dict[str, Any] | None, seat: int) -> dict[str, Any]:
    """The seat's own clock: its running deadline, or the time it has left while stopped."""
    if not clock:
        return {"deadline": None, "left_ms": None, "away": False}
    return {"deadline": (clock.get("deadlines") or {}).get(str(seat)),
            "left_ms": (clock.get("left_ms") or {}).get(str(seat)), "away": seat in (clock.get("vacation") or [])}


def _group(row: dict[str, Any]) -> int:
    return 0 if row["your_turn"] else 1 if row["status"] == "active" else 2


@router.get("/v1/me/games", summary="The signed-in player's games: those waiting on them first")
async def my_games(who: Me, request: Request, waiting: int = 0) -> Response:
    """Waiting on the player first, then their other active games, then finished ones; each
    group by last activity, the latest first. `?waiting=1`: the waiting ones only."""
    p = parts(request)
    held = [(await _summary(p, gid), seat) for gid, seat in (await p.players.seats(who.player.id)).items()]
    rows = [game_row(summary, seat) for summary, seat in held if summary is not None]
    # Latest first within a group: sort by time descending, then (stably) by group.
    rows.sort(key=lambda r: r["since"], reverse=True)
    rows.sort(key=_group)
    if waiting:
        rows = [r for r in rows if r["your_turn"]]
    return json_response({"games": rows, "waiting": sum(1 for r in rows if r["your_turn"])})
