"""Forking an analysis game from another game's seq: the new game's seats, tokens and opening.

The origin is only read. The fork gets its own id, seed, seat tokens (handed to the forker, but
for seats that invite a player, who plays them signed in) and admin token; its first events come
from events.domain.forks.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from events.domain.forks import check_fork, fork_opening
from events.domain.match import fold_match
from events.domain.wallclock import utcnow
from events.records.chain import genesis, seal
from events.store.layout import new_game_id
from events.store.store import EventStore
from projections.replay import match_at
from rules.core import Event
from service.usecases.matches import token_digest


@dataclass(frozen=True, slots=True)
class ForkPlan:
    origin: str
    seq: int
    head: str
    fid: str
    game: str
    names: tuple[str, ...]
    seed: bytes
    events: list[Event]


def plan_fork(store: EventStore, gid: str, at: int | None) -> ForkPlan:
    """A fork of `gid` at seq `at` (None: its head), checked and made, not stored. Raises
    ForkRefused (a position that may not be forked), KeyError (no such game) or ValueError
    (a seq outside the log)."""
    head = store.head(gid)
    if head is None:
        raise KeyError(gid)
    n = head.seq if at is None else at
    if not 1 <= n <= head.seq:
        raise ValueError(f"the game has {head.seq} events: 'at' is from 1 to {head.seq}, not {n}")
    origin = match_at(store, gid, n)
    envs = store.read(gid, 1, min(n + 1, head.seq))
    check_fork(origin, head.status != "active", envs, head.seq)
    seed = secrets.token_bytes(32)
    names = tuple(s.name for s in origin.seats)
    events = fork_opening(gid, envs[n - 1].hash, origin, seed, names)
    return ForkPlan(gid, n, envs[n - 1].hash, new_game_id(store.partitions), origin.game, names, seed, events)


def store_fork(store: EventStore, plan: ForkPlan, invited: Mapping[int, str]) -> dict[str, Any]:
    """Store the planned fork; the create answer. `invited`: seat -> the player's name, for the
    seats claimed for a player (no token for them)."""
    tokens = {i: secrets.token_urlsafe(24) for i in range(len(plan.names)) if i not in invited}
    admin = secrets.token_urlsafe(24)
    auth = {token_digest(t): f"seat:{i}" for i, t in tokens.items()}
    auth[token_digest(admin)] = "admin"
    at_time = utcnow()
    fid = plan.fid
    store.create(fid, seal(fid, 1, genesis(fid), plan.events, None, at_time), fold_match(plan.events, fid).status,
                 plan.seed, auth, at_time)
    return {
        "id": fid,
        "game": plan.game,
        "seats": [{"seat": i, "name": name, **({"token": tokens[i]} if i in tokens else {"player": invited[i]})}
                  for i, name in enumerate(plan.names)],
        "admin_token": admin,
        "analysis": True,
        "fork": {"game": plan.origin, "seq": plan.seq, "head": plan.head},
    }
