"""Forking an analysis game from another game's seq: the new game's seats, tokens and opening.

The origin is only read. The fork gets its own id, seed, seat tokens (all handed to the forker)
and admin token; its first events come from events.domain.forks.
"""

from __future__ import annotations

import secrets
from typing import Any

from events.domain.clock import utcnow
from events.domain.forks import check_fork, fork_opening
from events.domain.match import fold_match
from events.mapping.chain import genesis, seal
from events.redisstore.keys import new_game_id
from events.redisstore.store import EventStore
from projections.replay import match_at
from service.matches import token_digest


def fork_game(store: EventStore, gid: str, at: int | None) -> dict[str, Any]:
    """Store a fork of `gid` at seq `at` (None: its head); the create answer. Raises
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
    fid = new_game_id(store.partitions)
    seed = secrets.token_bytes(32)
    names = [s.name for s in origin.seats]
    events = fork_opening(gid, envs[n - 1].hash, origin, seed, names)
    tokens = {i: secrets.token_urlsafe(24) for i in range(len(names))}
    admin = secrets.token_urlsafe(24)
    auth = {token_digest(t): f"seat:{i}" for i, t in tokens.items()}
    auth[token_digest(admin)] = "admin"
    at_time = utcnow()
    store.create(fid, seal(fid, 1, genesis(fid), events, None, at_time), fold_match(events, fid).status, seed,
                 auth, at_time)
    return {
        "id": fid,
        "game": origin.game,
        "seats": [{"seat": i, "name": name, "token": tokens[i]} for i, name in enumerate(names)],
        "admin_token": admin,
        "analysis": True,
        "fork": {"game": gid, "seq": n, "head": envs[n - 1].hash},
    }
