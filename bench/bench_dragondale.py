"""Dragon Dale random-play figures: decide/s, evolve/s, slowest legal_commands, game lengths, wins.

Run: .venv/bin/python bench/bench_dragondale.py [games per tribe count, default 100]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from pathlib import Path

# run as a script, bench/ would come first on the path and its platform.py would shadow the
# standard library's; the repository root is what the imports below need
sys.path[0] = str(Path(__file__).resolve().parents[1])

from rules.dragondale import GAME  # noqa: E402
from tests.support.randomplay import play_random  # noqa: E402

TRIBES = ["vikings", "celts", "druids", "dark_faery"]


def main(games: int) -> None:
    for n in (2, 3, 4):
        decide_s = evolve_s = 0.0
        commands = events = 0
        legal_max = 0.0
        lengths: list[int] = []
        wins: Counter[str] = Counter()
        seat_wins: Counter[int] = Counter()
        reasons: Counter[str] = Counter()
        wall0, cpu0 = time.perf_counter(), time.process_time()
        for seed in range(games):
            order = TRIBES[seed % 4:] + TRIBES[: seed % 4]
            opts = {"tribes": order[:n], "experienced": seed % 2 == 1}
            rec = play_random(GAME, opts, [f"p{i}" for i in range(n)], seed,
                              check_audit=False, replay_checks=0, check_notation=False)
            assert rec.outcome is not None
            decide_s += rec.decide_seconds
            evolve_s += rec.evolve_seconds
            commands += len(rec.commands)
            setup = next(i for i, e in enumerate(rec.events) if e.type.endswith("PromptChanged")) + 1
            events += len(rec.events) - setup
            legal_max = max(legal_max, rec.legal_seconds_max)
            lengths.append(len(rec.commands))
            for w in rec.outcome.winners:
                wins[opts["tribes"][w]] += 1
                seat_wins[w] += 1
            reasons[rec.outcome.reason] += 1
        lengths.sort()
        # on a shared machine the wall-clock figures below shrink by this share
        share = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
        print(f"== {n} tribes, {games} games (CPU share of wall time {share:.0%})")
        print(f"decide   {commands / decide_s:10.0f} commands/s")
        print(f"evolve   {events / evolve_s:10.0f} events/s")
        print(f"legal    {legal_max * 1000:10.2f} ms (slowest call)")
        print(f"commands per game: mean {statistics.mean(lengths):.0f}, min {lengths[0]}, "
              f"median {lengths[len(lengths) // 2]}, p90 {lengths[int(len(lengths) * 0.9)]}, max {lengths[-1]}")
        print("wins by tribe:", {t: f"{wins[t] / games:.0%}" for t in TRIBES})
        print("wins by seat:", {s: f"{seat_wins[s] / games:.0%}" for s in range(n)})
        print("endings:", dict(reasons))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
