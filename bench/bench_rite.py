"""Rite random-play benchmark: decide commands/s, evolve events/s, slowest legal_commands call,
game lengths and win rates, by line-up and map method.

Two sets of figures: the harness's own (wall clock, as `play_random` measures them) and CPU time
(`time.process_time`, replaying the recorded positions), which a shared, busy machine does not
distort.

Usage: .venv/bin/python -m bench.bench_rite [games per case] [first seed] [case|all] [seeking|uniform]
Cases: HG and HGU by each map method, then every line-up with Chaos or Primals (the map method
turning with the seed). The seeking bot of tests/rite/bot.py (the default) looks one command
ahead towards its objective; uniform bots play far longer games (10,000-50,000 commands).
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

# Run as a script, sys.path[0] is bench/, where another module named `platform` shadows the
# standard library one (orjson imports it): put the repository root there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from rules.core import Rng, fold  # noqa: E402
from rules.decider import decide  # noqa: E402
from rules.rite import GAME  # noqa: E402
from tests.rite.bot import seeking  # noqa: E402
from tests.rite.test_random_play import LINEUPS  # noqa: E402
from tests.support.randomplay import PlayRecord, play_random  # noqa: E402

CASES = {"HG": ["humans", "goblins"], "HGU": ["humans", "goblins", "undead"], **LINEUPS}
METHODS = ["premade", "random", "player"]
ROTATE = "rotate"  # one method per game, turning with the seed


def cpu_figures(rec: PlayRecord) -> tuple[float, float, float]:
    """Replay the record: CPU seconds in the platform's decide (its checks and the game's rules,
    the fold of the events as they are emitted included), in evolve, and the slowest legal_commands call."""
    state = fold(GAME, rec.events[: rec.steps[0][0]])
    rng = Rng(b"bench")
    dsec = esec = lmax = 0.0
    ends = [seq for seq, _ in rec.steps[1:]] + [len(rec.events)]
    for (seq, cmd), end in zip(rec.steps, ends, strict=True):
        t0 = time.process_time()
        GAME.legal_commands(state, cmd.seat if cmd.seat is not None else 0)
        lmax = max(lmax, time.process_time() - t0)
        t0 = time.process_time()
        with contextlib.suppress(Exception):  # timing only: a fresh Rng may roll differently
            decide(GAME, state, cmd, rng)
        dsec += time.process_time() - t0
        t0 = time.process_time()
        for e in rec.events[seq:end]:
            state = GAME.evolve(state, e)
        esec += time.process_time() - t0
    return dsec, esec, lmax


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    which = [sys.argv[3]] if len(sys.argv) > 3 and sys.argv[3] != "all" else list(CASES)
    bot = sys.argv[4] if len(sys.argv) > 4 else "seeking"
    for label in which:
        factions = CASES[label]
        for method in METHODS if label in ("HG", "HGU") else [ROTATE]:
            cmds = events = 0
            dsec = esec = cdsec = cesec = 0.0
            legal_max = cpu_legal_max = 0.0
            lengths: list[int] = []
            rounds: list[int] = []
            wins: Counter[str] = Counter()
            t0 = time.perf_counter()
            for seed in range(first, first + n):
                # The collector's full passes over a long game's event list are not the rules' cost.
                gc.collect()
                gc.disable()
                try:
                    policy = seeking() if bot == "seeking" else None
                    rec = play_random(
                        GAME,
                        {"factions": factions, "map": METHODS[seed % 3] if method == ROTATE else method},
                        [f"p{i}" for i in range(len(factions))],
                        seed,
                        max_commands=400_000,
                        replay_checks=1,
                        check_audit=False,
                        policy=policy,
                    )
                    cd, ce, cl = cpu_figures(rec)
                finally:
                    gc.enable()
                cmds += len(rec.commands)
                events += len(rec.events)
                dsec += rec.decide_seconds
                esec += rec.evolve_seconds
                cdsec += cd
                cesec += ce
                legal_max = max(legal_max, rec.legal_seconds_max)
                cpu_legal_max = max(cpu_legal_max, cl)
                lengths.append(len(rec.commands))
                rounds.append(sum(1 for e in rec.events if e.type == "rite.RoundEnded") + 1)
                assert rec.outcome is not None
                wins[factions[rec.outcome.winners[0]]] += 1
            wall = time.perf_counter() - t0
            print(
                f"{label:5} {method:8} {bot} games={n} | wall: decide={cmds / dsec:,.0f} cmd/s "
                f"evolve={events / esec:,.0f} ev/s max_legal={legal_max * 1000:.1f} ms | cpu: decide="
                f"{cmds / cdsec:,.0f} cmd/s evolve={events / cesec:,.0f} ev/s max_legal={cpu_legal_max * 1000:.1f} ms"
                f" | commands/game mean={statistics.mean(lengths):,.0f} median={statistics.median(lengths):,.0f}"
                f" min={min(lengths):,} max={max(lengths):,} rounds/game mean={statistics.mean(rounds):,.0f}"
                f" wins={dict(wins)} wall={wall:.0f}s",
                flush=True,
            )


if __name__ == "__main__":
    main()
