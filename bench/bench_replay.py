"""One replay step (GET /v1/games/{gid}/replay): CPU time of `projections.replay.replay_step` for
steps spread over a long random game of each shipped game, finished (so each step's draws are
re-derived from the revealed seed), from a fakeredis store holding the record and a snapshot
every SNAPSHOT_EVERY events (as the worker keeps them). The move list is built once beforehand
(the API keeps it). Prints medians over the steps sampled, in CPU milliseconds, beside the same
step without the draws re-derived (the status a game in progress gets)."""

from __future__ import annotations

import statistics
import time

import fakeredis

from events.domain.match import fold_match
from events.store.store import SNAPSHOT_EVERY, EventStore
from projections import replay
from projections.moves import MoveList
from rules import catalog
from tests.support.records import play_offline

GID = "p01-abcdef012345"
CASES = (("rite", 2, 3000), ("factions", 2, 3000), ("dragondale", 2, 3000))
SAMPLES = 25


def main() -> None:
    catalog.load()
    print("game | commands | events | steps | finished | step (ms CPU, median) | p90 | without re-deriving draws (ms CPU)")
    for game, seats, commands in CASES:
        envs = play_offline(game, ["ann", "bob", "cat", "dan"][:seats], {}, 3, gid=GID, max_commands=commands)
        store = EventStore(fakeredis.FakeRedis(), "bench", partitions=4)
        over = envs[-1].type == "boardlog.SeedRevealed"
        store.create(GID, envs, "over" if over else "active", b"\0" * 32, {}, envs[0].at)
        match = None
        for i in range(0, len(envs), SNAPSHOT_EVERY):
            match = fold_match([e.event for e in envs[i:i + SNAPSHOT_EVERY]], GID, match)
            store.save_snapshot(GID, match.seq, match)
        moves = MoveList(GID, None, True)
        moves.feed(envs)
        entries = moves.entries()
        picks = sorted({1 + (k * (len(entries) - 1)) // (SAMPLES - 1) for k in range(SAMPLES)})
        full, plain = [], []
        keep = replay.step_draws
        for n in picks:
            t = time.process_time()
            replay.replay_step(store, GID, entries, n, None, True)
            full.append(time.process_time() - t)
            replay.step_draws = lambda s, g, e: {}  # type: ignore[assignment]
            t = time.process_time()
            replay.replay_step(store, GID, entries, n, None, True)
            plain.append(time.process_time() - t)
            replay.step_draws = keep
        full.sort()
        print(f"{game} | {sum(e.type == 'boardlog.CommandAccepted' for e in envs)} | {len(envs)} | {len(entries)} | {over} "
              f"| {statistics.median(full) * 1000:.1f} | {full[int(len(full) * 0.9)] * 1000:.1f} "
              f"| {statistics.median(plain) * 1000:.1f}")


if __name__ == "__main__":
    main()
