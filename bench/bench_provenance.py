"""What rules versions, the upcaster and forks cost (issue #21 items 6 and 9): CPU time, offline.

- the audit of finished Factions and race records (every command re-run) with the upcaster and
  the rules-version check of each command, against the same audit with both replaced by no-ops,
  alternated in one process, medians;
- a fork's opening: the ForkedFrom event's size, the time to make it and to fold it, per game.

Run: `python -m bench.bench_provenance [runs]`.
"""

from __future__ import annotations

import statistics
import sys
import time
from functools import partial

import events.domain.match as match_module
import events.records.envelope as envelope_module
import rules.catalog
from events.domain.audit import audit
from events.domain.forks import fork_opening
from events.domain.match import fold_match
from events.records.codec import canonical
from events.records.export import export_lines, read_record
from tests.support.records import play_offline


def _cpu(f: object) -> float:
    assert callable(f)
    t = time.process_time()
    f()
    return time.process_time() - t


def audit_figures(runs: int) -> None:
    up, req = envelope_module.upcast, match_module._require_rules
    for name, seed in (("factions", 3), ("factions", 4), ("race", 1)):
        envs = play_offline(name, ["a", "b"], {"target": 2000} if name == "race" else {}, seed=seed,
                            max_commands=20_000)
        rec = read_record(export_lines(envs))
        rerun = envs[-1].type == "boardlog.SeedRevealed"
        on: list[float] = []
        off: list[float] = []
        for _ in range(runs):
            envelope_module.upcast, match_module._require_rules = up, req
            on.append(_cpu(partial(audit, rec)))
            envelope_module.upcast, match_module._require_rules = (lambda t, d: d), (lambda m: None)
            off.append(_cpu(partial(audit, rec)))
        envelope_module.upcast, match_module._require_rules = up, req
        a, b = statistics.median(on), statistics.median(off)
        print(f"audit {name} seed {seed}: {len(envs)} events ({'every command re-run' if rerun else 'chain only'}): "
              f"{len(envs) / a:,.0f} events/s with the upcaster and version checks, {len(envs) / b:,.0f} without "
              f"(CPU time {100 * (a / b - 1):+.1f} %)")


def fork_figures(runs: int) -> None:
    for name, seats, commands in (("rite", ["a", "b", "c"], 400), ("factions", ["a", "b"], 200),
                                  ("dragondale", ["a", "b", "c"], 200)):
        envs = play_offline(name, seats, {}, seed=2, max_commands=commands)
        m = fold_match([e.event for e in envs], envs[0].game)
        names = [s.name for s in m.seats]
        make_it = partial(fork_opening, envs[0].game, envs[-1].hash, m, b"\1" * 32, names)
        make = statistics.median(_cpu(make_it) for _ in range(runs))
        opening = make_it()
        fold = statistics.median(_cpu(partial(fold_match, opening, "p01-000000000000")) for _ in range(runs))
        print(f"fork {name} at seq {len(envs)}: ForkedFrom {len(canonical(opening[1].to_json())):,} bytes, "
              f"made in {make * 1e3:.2f} ms, folded in {fold * 1e3:.2f} ms (CPU)")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rules.catalog.load(["tests.support.racegame"])
    audit_figures(runs)
    fork_figures(runs)


if __name__ == "__main__":
    main()
