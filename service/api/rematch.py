"""Play again: `POST /v1/games/{gid}/rematch` (a seat of a finished game, by its token or its
player signed in) and `GET /v1/games/{gid}/rematch` (anyone: the rematch, once there is one)."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from service.api.access import game_exists, principal
from service.api.errors import ApiError
from service.api.parts import ApiParts, parts
from service.api.responses import json_response
from service.stores.rematches import RematchStore
from service.usecases.gametypes import TITLES
from service.usecases.notifications.channels import SendFailed, masked
from service.usecases.notifications.notices import Notice
from service.usecases.rematch import Asked, Former, former_game, play_again

log = structlog.get_logger("boardlog.api")

router = APIRouter()


def _store(p: ApiParts) -> RematchStore:
    if p.rematches is None:
        raise ApiError(503, "rematch_unavailable", "this deployment keeps no rematches")
    return p.rematches


@router.post("/v1/games/{gid}/rematch", summary="Play again: a new game with the same players and options")
async def rematch(gid: str, request: Request) -> Response:
    """201 with the new game when this call made it, 200 pointing at it when a seat asked before
    (two clicks or two seats make one rematch). Players holding a seat keep it in the new game
    and are told; a seat played by its token alone gets a new token, in the answer of the call
    that made the rematch, to share. 409 `game_active` before the end; 401/403 for anyone but
    a seat (a spectator, the admin, the referee)."""
    p = parts(request)
    await game_exists(p, gid)
    who = await principal(p, request, gid, required=True)
    if who.seat is None:
        raise ApiError(403, "seat_required", "only a seat of the game (its link, or its player signed in) "
                                             "asks for a rematch: the admin and the referee hold no seat")
    store = _store(p)
    former = await run_in_threadpool(former_game, p.store, gid)
    claims = await run_in_threadpool(p.notifications.targets.claims, gid)
    asked = await play_again(p.store, p.players, store, former, claims, who.seat)
    if asked.created:
        await run_in_threadpool(_tell, p, former, asked, {s: pid for s, pid in claims.items() if s != who.seat})
    return json_response(_answer(former, asked, claims), 201 if asked.created else 200,
                         {"Location": f"/v1/games/{asked.rematch.game}"})


def _answer(former: Former, asked: Asked, claims: dict[int, str]) -> dict[str, Any]:
    new = asked.rematch.game
    seats = [{"seat": s, "name": name, "held": s in claims,
              **({"token": asked.tokens[s], "link": f"/games/{new}#token={asked.tokens[s]}"} if s in asked.tokens else {})}
             for s, name in enumerate(former.seats)]
    out: dict[str, Any] = {"game": new, "of": former.gid, "by": asked.rematch.by, "at": asked.rematch.at,
                           "created": asked.created, "seat": asked.seat, "seats": seats}
    if asked.admin is not None:
        out["admin_token"] = asked.admin
    if not asked.created:
        out["join"] = (f"/games/{new}" if asked.seat in claims else None)
    return out


def _tell(p: ApiParts, former: Former, asked: Asked, players: dict[int, str]) -> None:
    """Each player holding a seat (but the one who asked) is told of the rematch on each of their
    targets that takes turn notices, now: their seat is theirs already."""
    targets = p.notifications.targets
    title = TITLES.get(former.game, former.game)
    for seat, pid in sorted(players.items()):
        words = (f"{asked.rematch.by} asks for a rematch of {former.gid}: you play {former.seats[seat]} "
                 f"in this new game of {title}")
        notice = Notice(asked.rematch.game, former.game, 1, seat, former.seats[seat], "conduct", words, "",
                        asked.rematch.at)
        for t in targets.targets(pid):
            if not t.confirmed or "turn" not in t.events:
                continue
            try:
                p.notifications.send_test(t, notice, f"{asked.rematch.game}:0:{pid}:{t.id}")
            except SendFailed as e:
                log.warning("rematch.notice_failed", player=pid, target=t.id, kind=t.kind,
                            to=masked(t.address), error=str(e))


@router.get("/v1/games/{gid}/rematch", summary="The rematch of a finished game, once one was asked for")
async def rematch_of(gid: str, request: Request) -> Response:
    """Anyone: `{"game", "by", "at", "ready"}` (`ready`: the new game is set up), or 404
    `no_rematch`."""
    p = parts(request)
    await game_exists(p, gid)
    got = await _store(p).get(gid)
    if got is None:
        raise ApiError(404, "no_rematch", f"nobody has asked for a rematch of {gid} yet")
    ready = await p.reads.exists(got.game)
    return json_response({**got.to_json(), "of": gid, "ready": ready})
