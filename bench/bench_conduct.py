"""What conduct costs: the fold with the last command tracked (for takebacks and disputes), and
a takeback request's checks (the past read, the draws compared, the views compared for a reveal).

    python -m bench.bench_conduct [runs]

CPU time (time.process_time), medians of the runs; the fold is measured beside the same fold
without the last command's tracking (a copy of the loop as it was before conduct), in one run,
on the same events of a long Rite game. The takeback request is timed in Dragon Dale positions
(hidden units: the views are compared) and in Factions ones (nothing hidden), its past read
from the record itself as the audit reads it (the worker reads it from the store).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from dataclasses import replace
from typing import Any

from events.domain import match as M
from events.domain.match import fold_match
from rules.catalog import load
from rules.core import Command, Event, IllegalCommand
from tests.support.records import play_offline
from tests.unit.test_conduct import Table


def fold_without_last(events: list[Event], gid: str) -> M.Match:
    """fold_match's loop before conduct: seq and draws only."""
    it = iter(events)
    m = M.apply(None, next(it))
    evolve = m.rules.evolve
    state, seq, draws = m.state, m.seq, m.draws
    for e in it:
        t = e.type
        if t == M.COMMAND_ACCEPTED:
            draws = e.data["rng"][1]
            seq += 1
        elif t.startswith("boardlog."):
            m = M.apply(replace(m, state=state, seq=seq, draws=draws), e)
            evolve = m.rules.evolve
            state, seq, draws = m.state, m.seq, m.draws
        else:
            state = evolve(state, e)
            seq += 1
    return replace(m, state=state, seq=seq, draws=draws, gid=gid)


def fold_figures(runs: int) -> dict[str, Any]:
    envs = play_offline("rite", ["ann", "bob"], {}, seed=3, max_commands=3000)
    events = [e.event for e in envs]
    old, new = [], []
    for _ in range(runs):
        t0 = time.process_time()
        fold_without_last(events, "p01-bench")
        t1 = time.process_time()
        fold_match(events, "p01-bench")
        t2 = time.process_time()
        old.append(t1 - t0)
        new.append(t2 - t1)
    return {"events": len(events), "old_ms": statistics.median(old) * 1e3, "new_ms": statistics.median(new) * 1e3}


def takeback_figures(game: str, positions: int) -> dict[str, Any]:
    bot = random.Random(1)
    costs: list[float] = []
    codes: dict[str, int] = {}
    for _ in range(positions):
        t = Table(game, 2)
        t.play(bot, bot.randrange(5, 60))
        last = t.match.last_command
        if t.match.over or last is None or last[0] is None:
            continue
        t0 = time.process_time()
        try:
            t.send(Command("boardlog.takeback", {}, last[0]))
            code = "asked"
        except IllegalCommand as e:
            code = e.code
        costs.append(time.process_time() - t0)
        codes[code] = codes.get(code, 0) + 1
    return {"median_ms": statistics.median(costs) * 1e3, "max_ms": max(costs) * 1e3, "codes": codes}


def main() -> None:
    load()
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    f = fold_figures(runs)
    print(f"fold of a {f['events']}-event Rite game: {f['new_ms']:.1f} ms CPU with the last command tracked, "
          f"{f['old_ms']:.1f} ms without (ratio {f['new_ms'] / f['old_ms']:.3f}, medians of {runs})")
    for game in ("dragondale", "factions"):
        t = takeback_figures(game, 60)
        print(f"takeback request in {game}: median {t['median_ms']:.1f} ms CPU, max {t['max_ms']:.1f} ms "
              f"(the past folded from the record, whole-game folds: the audit's way); answers {t['codes']}")


if __name__ == "__main__":
    main()
