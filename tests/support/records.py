"""Build exported records offline (no Redis) by running the same code the worker runs."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from events.domain.match import created_event, decide_and_fold, fold_match
from events.records.chain import genesis, seal
from events.records.envelope import Envelope
from events.store.store import EventStore
from rules.core import SeatInfo, get_game


def play_offline(
    game_name: str, names: Sequence[str], options: Mapping[str, Any], seed: int, *,
    gid: str = "p01-abcdef012345", max_commands: int = 5000,
    policy: Callable[[Any, int, list[Any], random.Random], Any] | None = None,
) -> list[Envelope]:
    game = get_game(game_name)
    bot = random.Random(seed)
    secret = bot.randbytes(32)
    events = created_event(gid, game, [SeatInfo(i, n) for i, n in enumerate(names)], options, secret,
                           [f"entropy-{i}" for i in range(len(names))])
    envs = seal(gid, 1, genesis(gid), events, None, "2026-11-29T12:00:00.000Z")
    match = fold_match(events, gid)
    for n in range(max_commands):
        if match.over:
            break
        seat = bot.choice(list(match.prompt.seats))  # type: ignore[union-attr]
        legal = list(game.legal_commands(match.state, seat))
        cmd = bot.choice(legal) if policy is None else policy(match.state, seat, legal, bot)
        cid = f"c{n}"
        new = decide_and_fold(match, cmd, cid, secret)[0]
        envs += seal(gid, match.seq + 1, envs[-1].hash, new, cid, "2026-11-29T12:00:01.000Z")
        match = fold_match(new, gid, match)
    return envs


def prev_hash(store: EventStore, gid: str, seq: int) -> str:
    """The hash a new event at seq+1 must link to, read from the store (tests that append by hand)."""
    return genesis(gid) if seq == 0 else store.read(gid, seq, seq)[0].hash
