"""Play again: a finished game's rematch, a new game of the same type with the same players, seat
names and options (the game's own and the platform's: clock, takeback), and a new seed.

A seat of the finished game held by a player is that player's in the rematch at once (claimed
before the game's first event, as a table's start claims its players); a seat played by its
token alone gets a new token, handed back to whoever asked, to share. One rematch a game: the
finished game points at it (service/stores/rematches.py) before it is set up, so two clicks, or
two seats asking at once, make one; the later ones are pointed at it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import structlog
from fastapi.concurrency import run_in_threadpool

from events.domain.match import GAME_CREATED
from events.domain.platform import OPTIONS as PLATFORM_OPTIONS
from events.domain.wallclock import utcnow
from events.store.layout import new_game_id
from events.store.store import EventStore
from projections.replay import match_at
from rules.core import SeatInfo, get_game
from service.stores.players import PlayerStore, digest
from service.stores.rematches import Rematch, RematchStore
from service.usecases.errors import UseCaseError
from service.usecases.matches import store_match

log = structlog.get_logger("boardlog.api")


@dataclass(frozen=True, slots=True)
class Former:
    """What a rematch copies from the finished game."""

    gid: str
    game: str
    seats: tuple[str, ...]  # the seats' names, by seat
    options: dict[str, Any]  # the game's own options and the platform's chosen ones
    status: str


def former_game(store: EventStore, gid: str) -> Former:
    """The finished game's type, seats and options, from its first event, and its status as its
    log folds (the head's status is written a moment after the last move)."""
    first = store.read(gid, 1, 1)
    if not first or first[0].event.type != GAME_CREATED:
        raise UseCaseError("not_found", "unknown_game", f"no game {gid!r}")
    d = first[0].event.data
    platform = d.get("platform") or {}
    chosen = {k: v for k, v in platform.items() if k in PLATFORM_OPTIONS}
    return Former(gid, str(d["game"]), tuple(str(s["name"]) for s in d["seats"]),
                  {**dict(d.get("options") or {}), **chosen}, match_at(store, gid).status)


def check_ended(former: Former) -> None:
    if former.status == "active":
        raise UseCaseError("conflict", "game_active",
                           f"game {former.gid} is still being played: a rematch is offered once it has ended")


@dataclass(frozen=True, slots=True)
class Asked:
    """The rematch as one caller sees it: the game, who asked for it, whether this call made it,
    the caller's seat in it and, to the caller who made it, the new tokens of the seats no
    player holds (to share) and the new admin token."""

    rematch: Rematch
    created: bool
    seat: int
    tokens: Mapping[int, str]
    admin: str | None


async def play_again(store: EventStore, players: PlayerStore, rematches: RematchStore, former: Former,
                     claims: Mapping[int, str], seat: int) -> Asked:
    """The rematch of `former` asked for by `seat`: made by this call, or the one made before.
    `claims`: the finished game's seats held by players (seat -> player id)."""
    check_ended(former)
    wanted = Rematch(new_game_id(store.partitions), former.seats[seat], utcnow())
    got = await rematches.begin(former.gid, wanted)
    if got != wanted:
        return Asked(got, False, seat, {}, None)
    tokens = {s: secrets.token_urlsafe(24) for s in range(len(former.seats)) if s not in claims}
    admin = secrets.token_urlsafe(24)
    for s, pid in sorted(claims.items()):
        await players.claim(wanted.game, s, pid)  # before the first event: the notifier finds them
    auth = {digest(t): f"seat:{s}" for s, t in tokens.items()}
    auth[digest(admin)] = "admin"
    game = get_game(former.game)
    seats = [SeatInfo(i, n) for i, n in enumerate(former.seats)]
    await run_in_threadpool(store_match, store, wanted.game, game, seats, former.options, secrets.token_bytes(32),
                            [""] * len(seats), auth, wanted.at)
    log.info("rematch.created", game=wanted.game, of=former.gid, type=former.game, seats=len(seats),
             held=len(claims))
    return Asked(wanted, True, seat, tokens, admin)
