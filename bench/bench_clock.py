"""What a clock costs a game's command path, in process (no Redis): the same random Factions
games played with and without the `clock` option, each command decided and folded as the worker
does (`decide_and_fold`, then the platform's automatic commands: with a clock, the ClockStarted
after each move), and the whole log folded again as replay does. CPU time of this process per
move; the median of several runs, each pair measured in the same run.

Run: `python -m bench.bench_clock [--runs 5] [--moves 400]`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from events.domain.match import Match, automatic, created_event, decide_and_fold, fold_match
from events.domain.platform import Context
from events.domain.platform.clock import parse_setting, to_iso
from rules import catalog
from rules.core import Event, SeatInfo, get_game

SEED = b"b" * 32
T0 = 1_800_000_000_000


def play(clock: dict[str, Any] | None, moves: int, seed: int) -> tuple[float, float, int]:
    """(CPU seconds deciding, CPU seconds re-folding, events) for `moves` random moves."""
    g = get_game("factions")
    seats = [SeatInfo(0, "ann"), SeatInfo(1, "bob")]
    platform = {"clock": parse_setting(clock, 1)} if clock else None
    log: list[Event] = list(created_event("p01-bench", g, seats, {}, SEED, ["", ""], None, platform))
    match: Match = fold_match(log, "p01-bench")
    pick = random.Random(seed)
    t0 = time.process_time()
    for i in range(moves):
        if match.over or match.prompt is None:
            break
        ctx = Context(at=to_iso(T0 + i * 1000))
        seat = match.prompt.seats[0]
        legal = list(g.legal_commands(match.state, seat))
        events, match = decide_and_fold(match, pick.choice(legal), f"c{i}", SEED, ctx)
        log += events
        for j in range(10):
            due = automatic(match)
            if due is None:
                break
            events, match = decide_and_fold(match, due[1], f"a{i}-{j}", SEED, ctx)
            log += events
    decide = time.process_time() - t0
    t1 = time.process_time()
    fold_match(log, "p01-bench")
    return decide, time.process_time() - t1, len(log)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--moves", type=int, default=400)
    a = ap.parse_args()
    catalog.load(())
    clock = {"per_move": 86400, "bank": 86400, "increment": 3600, "on_timeout": "skip"}
    ratios, folds, plain_us, clocked_us = [], [], [], []
    for r in range(a.runs):
        p_decide, p_fold, p_events = play(None, a.moves, r)
        c_decide, c_fold, c_events = play(clock, a.moves, r)
        plain_us.append(p_decide / a.moves * 1e6)
        clocked_us.append(c_decide / a.moves * 1e6)
        ratios.append(c_decide / p_decide)
        folds.append(c_fold / p_fold)
    print(f"factions, {a.moves} random moves, {a.runs} runs (CPU time of this process, medians):")
    print(f"  decide+fold per move: no clock {statistics.median(plain_us):.0f} us, "
          f"clock {statistics.median(clocked_us):.0f} us (x{statistics.median(ratios):.2f})")
    print(f"  replay fold of the whole log: x{statistics.median(folds):.2f} with the clock "
          f"({c_events} events against {p_events})")


if __name__ == "__main__":
    main()
