"""Summarise soak_rite's JSON lines: games, commands per game, wins, simultaneous-effects prompts,
the slowest legal_commands call (wall, under the soak's load) and the seeds covered, per line-up.

Usage: python -m bench.soak_summary bench/results/soak-rite-*.jsonl
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter, defaultdict
from typing import Any

import orjson


def main(paths: list[str]) -> None:
    rows: list[dict[str, Any]] = []
    for path in paths:
        with open(path, "rb") as f:
            rows += [orjson.loads(line) for line in f if line.startswith(b"{")]
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["lineup"]].append(r)
    print("| line-up | games | commands/game median | max | wins | simultaneous prompts | slowest legal (ms, wall) | seeds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, games in sorted(by.items()):
        cmds = [g["commands"] for g in games]
        wins = Counter(g["winner"] for g in games)
        seeds = [g["seed"] for g in games]
        print(
            f"| {name} | {len(games)} | {statistics.median(cmds):,.0f} | {max(cmds):,} | "
            f"{', '.join(f'{k} {v}' for k, v in wins.most_common())} | {sum(g.get('simul', 0) for g in games)} | "
            f"{max(g['legal_max_ms'] for g in games)} | {min(seeds)}-{max(seeds)} |"
        )
    print(f"{len(rows)} games, {sum(g['seconds'] for g in rows):,.0f} s of play")


if __name__ == "__main__":
    main(sys.argv[1:])
