"""Random-play figures for Factions: Battlegrounds.

Run: .venv/bin/python bench/bench_factions.py [games_2p] [games_3p] [games_4p]
Prints decide commands/s (through the platform's Decider, `rules.decider.decide`, whose Decision
already holds the folded state: the figure includes that one fold), evolve events/s (a second,
timed fold of the same events), the longest legal_commands call (wall clock, as the harness times
them, and CPU time from a re-run, which a busy machine does not dilute), game lengths and win rates
(by faction over 2-player pairs, by seat and by advantage).
"""

from __future__ import annotations

import itertools
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

# Put the repository root where the script's own folder would be, so that a module in bench/
# can never shadow the standard library for anything imported later.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from rules.core import Command, Rng, SeatInfo, fold  # noqa: E402
from rules.decider import decide  # noqa: E402
from rules.factions import GAME  # noqa: E402
from rules.factions.content import FACTION_IDS  # noqa: E402
from tests.support.randomplay import play_random  # noqa: E402


def pairings(n: int, games: int) -> list[list[str]]:
    """Every ordered faction pairing for 2 players, cycled; rotating picks for 3 and 4."""
    if n == 2:
        pairs = [list(p) for p in itertools.permutations(FACTION_IDS, 2)]
        return [pairs[i % len(pairs)] for i in range(games)]
    return [[FACTION_IDS[(i + 2 * k) % 9] for k in range(n)] for i in range(games)]


def cpu_rerun(options: dict[str, object], n: int, seed: int, steps: list[tuple[int, Command]]) -> tuple[float, float, float, int, int]:
    """Re-run a played game timing CPU (process_time), which a busy machine does not dilute.

    Returns decide seconds, evolve seconds, the longest legal_commands call, commands, events.
    """
    rng = Rng(seed.to_bytes(8, "big"), b"", f"test-{seed}")
    events = GAME.setup(options, [SeatInfo(i, f"p{i}") for i in range(n)], rng)
    state = fold(GAME, events)
    dec = evo = lmax = 0.0
    count = 0
    for _, cmd in steps:
        assert cmd.seat is not None
        t0 = time.process_time()
        GAME.legal_commands(state, cmd.seat)
        t1 = time.process_time()
        decision = decide(GAME, state, cmd, rng)
        t2 = time.process_time()
        new = decision.events
        for e in new:
            state = GAME.evolve(state, e)
        t3 = time.process_time()
        assert state == decision.state
        lmax = max(lmax, t1 - t0)
        dec += t2 - t1
        evo += t3 - t2
        count += len(new)
    return dec, evo, lmax, len(steps), count


def run(n: int, games: int, seed0: int) -> dict[str, object]:
    decide_s = evolve_s = 0.0
    cmds = events = 0
    legal_max = 0.0
    lengths: list[int] = []
    rounds: list[int] = []
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    seat_won: Counter[int] = Counter()
    role_won: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    cpu = [0.0, 0.0, 0.0, 0, 0]
    for i, facs in enumerate(pairings(n, games)):
        rec = play_random(GAME, {"factions": facs}, [f"p{k}" for k in range(n)], seed0 + i,
                          max_commands=50_000, replay_checks=2, check_audit=True)
        d, e, lm, c, ev = cpu_rerun({"factions": facs}, n, seed0 + i, rec.steps)
        cpu = [cpu[0] + d, cpu[1] + e, max(cpu[2], lm), cpu[3] + c, cpu[4] + ev]
        assert rec.outcome is not None and rec.outcome.winners, "every game must end with a winner"
        decide_s += rec.decide_seconds
        evolve_s += rec.evolve_seconds
        cmds += len(rec.commands)
        events += len(rec.events)
        legal_max = max(legal_max, rec.legal_seconds_max)
        lengths.append(len(rec.commands))
        rounds.append(rec.state.round)
        reasons[rec.outcome.reason] += 1
        for f in facs:
            played[f] += 1
        for w in rec.outcome.winners:
            won[facs[w]] += 1
            seat_won[w] += 1
            if n == 2:
                role_won["terrain (player 1)" if w == rec.state.tile_first else "resource (player 2)"] += 1
    return {
        "players": n, "games": games,
        "decide_cmds_per_s": round(cmds / decide_s),
        "evolve_events_per_s": round(events / evolve_s),
        "max_legal_ms": round(legal_max * 1000, 2),
        "cpu_decide_cmds_per_s": round(cpu[3] / cpu[0]),
        "cpu_evolve_events_per_s": round(cpu[4] / cpu[1]),
        "cpu_max_legal_ms": round(cpu[2] * 1000, 2),
        "mean_commands": round(statistics.mean(lengths), 1),
        "commands_min_median_max": (min(lengths), int(statistics.median(lengths)), max(lengths)),
        "rounds_min_median_max": (min(rounds), int(statistics.median(rounds)), max(rounds)),
        "end_reasons": dict(reasons),
        "faction_win_rate": {f: round(won[f] / played[f], 3) for f in sorted(played)},
        "seat_wins": dict(sorted(seat_won.items())),
        "role_wins": dict(role_won),
    }


def main() -> None:
    # Figures are wall-clock (the harness times with perf_counter): a busy machine lowers them.
    print(f"load average: {os.getloadavg()}")
    counts = [int(a) for a in sys.argv[1:4]] + [216, 100, 100][len(sys.argv[1:4]):]
    for n, games in zip((2, 3, 4), counts, strict=True):
        t0 = time.perf_counter()
        out = run(n, games, seed0=1000 * n)
        out["wall_s"] = round(time.perf_counter() - t0, 1)
        for k, v in out.items():
            print(f"{k}: {v}")
        print()


if __name__ == "__main__":
    main()
