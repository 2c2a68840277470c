"""Rite soak: seeking-bot games of every line-up, interleaved, with every random-play check
(accepted commands, notation, replay == live, audit). One JSON line per game, then a summary.

Usage: python -m bench.soak_rite [games per line-up] [first seed] [shard k/n] [line-ups, comma-separated]
A line-up may name its map method (`HG@player`); otherwise the method turns with the seed. HG and
HGU (issue 3's two-player and three-player games) are line-ups here too: `test_random_play_full`
plays `HG@premade`... from seed 1000.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter, defaultdict

import orjson

from rules.rite import GAME
from tests.rite.bot import seeking
from tests.rite.test_random_play import HG, HGU, LINEUPS, METHODS
from tests.support.randomplay import play_random


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    k, shards = (int(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "0/1").split("/"))
    names = sys.argv[4].split(",") if len(sys.argv) > 4 else list(LINEUPS)
    lengths: dict[str, list[int]] = defaultdict(list)
    wins: dict[str, Counter[str]] = defaultdict(Counter)
    job = 0
    for i in range(n):
        for name in names:
            job += 1
            if job % shards != k:
                continue
            lineup, _, fixed = name.partition("@")
            facs = {"HG": HG, "HGU": HGU, **LINEUPS}[lineup]
            seed = first + i
            method = fixed or METHODS[seed % 3]
            t0 = time.perf_counter()
            rec = play_random(
                GAME, {"factions": facs, "map": method}, [f"p{j}" for j in range(len(facs))], seed,
                max_commands=400_000, policy=seeking(),
            )
            assert rec.outcome is not None
            winner = facs[rec.outcome.winners[0]]
            lengths[name].append(len(rec.commands))
            wins[name][winner] += 1
            print(orjson.dumps({
                "lineup": name, "seed": seed, "method": method, "commands": len(rec.commands),
                "events": len(rec.events), "winner": winner, "seconds": round(time.perf_counter() - t0, 2),
                "legal_max_ms": round(rec.legal_seconds_max * 1000, 1),
                # how often the simultaneous-effects prompt (Undead vs Chaos Rise Again) came up
                "simul": sum(1 for e in rec.events if e.type == "rite.ModeSet" and e.data["mode"] == "simul"),
                # issue 16's prompts: the rage split, the rune that lights, the Elementals' order
                **{m: sum(1 for e in rec.events if e.type == "rite.ModeSet" and e.data["mode"] == m)
                   for m in ("rage", "rune", "order")},
            }).decode(), flush=True)
    for name in names:
        if lengths[name]:
            ls = lengths[name]
            print(f"{name:6} games={len(ls)} commands/game median={statistics.median(ls):,.0f} "
                  f"mean={statistics.mean(ls):,.0f} max={max(ls):,} wins={dict(wins[name])}", flush=True)


if __name__ == "__main__":
    main()
