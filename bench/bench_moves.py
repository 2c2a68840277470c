"""The move list (GET /v1/games/{gid}/moves): CPU time to build one viewer's whole list from the
log, and to bring a kept list up to date after one more command (what the API does on each new
move), for a long random game of each shipped game. Offline (no Redis): the same MoveList the API
keeps. Prints medians of RUNS runs, in CPU milliseconds."""

from __future__ import annotations

import statistics
import time

from projections.moves import MoveList
from rules import catalog
from tests.support.records import play_offline

RUNS = 5
GID = "p01-abcdef012345"
CASES = (("rite", 4, 600), ("factions", 2, 600), ("dragondale", 4, 600))


def main() -> None:
    catalog.load()
    print("game | seats | commands | events | entries | whole list (ms CPU) | one more command (ms CPU) | per event (µs)")
    for game, seats, commands in CASES:
        envs = play_offline(game, ["ann", "bob", "cat", "dan"][:seats], {}, 3, gid=GID, max_commands=commands)
        whole, tail = [], []
        cut = max(i for i, e in enumerate(envs) if e.type == "boardlog.CommandAccepted")
        entries = 0
        for _ in range(RUNS):
            t = time.process_time()
            full = MoveList(GID, 1)
            full.feed(envs)
            entries = len(full.entries())
            whole.append(time.process_time() - t)
            kept = MoveList(GID, 1)
            kept.feed(envs[:cut])
            kept.entries()
            t = time.process_time()
            kept.feed(envs[cut:])
            kept.entries()
            tail.append(time.process_time() - t)
        w, k = statistics.median(whole), statistics.median(tail)
        print(f"{game} | {seats} | {sum(e.type == 'boardlog.CommandAccepted' for e in envs)} | {len(envs)} | {entries} "
              f"| {w * 1000:.1f} | {k * 1000:.2f} | {w / len(envs) * 1e6:.0f}")


if __name__ == "__main__":
    main()
