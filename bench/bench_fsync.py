"""What `serve --fsync` costs: HTTP commands/s and p99 with the embedded Redis's AOF fsynced
`always` (before each write is answered) and `everysec` (once a second).

Both Redis servers and both stacks (API, workers, projector) run at once, idle but one; the
load alternates between them (always, everysec, always, ...), so both modes see the same
machine. Figures are medians of the runs. The AOFs live on this machine's disk (not tmpfs),
or fsync would cost nothing.

    python -m bench.bench_fsync [--runs 3] [--seconds 6] [--games 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
from contextlib import ExitStack

from bench.bench_spine import LoadResult, Stack, make_games, run_load, served_redis
from events.store.store import EventStore
from service.runtime.embedded import FSYNC_MODES


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=4)
    args = ap.parse_args()
    results: dict[str, list[LoadResult]] = {m: [] for m in FSYNC_MODES}
    with ExitStack() as running:
        stacks: dict[str, Stack] = {}
        games = {}
        for mode in FSYNC_MODES:
            # Under the checkout, on its disk: /tmp may be a tmpfs, where fsync is free.
            served = running.enter_context(served_redis(f"bench-fsync-{mode}-", fsync=mode, on_disk=True))
            games[mode] = make_games(EventStore(served.client, served.ns), args.games, 50)
            stacks[mode] = running.enter_context(
                Stack(served.server.url, served.ns, args.workers, args.threads, redis_pid=served.pid))
        where = served.tmp.parent
        for _ in range(args.runs):
            for mode in FSYNC_MODES:
                r = run_load(stacks[mode].port, games[mode], args.seconds, stack=stacks[mode])
                assert r.errors == 0, (mode, r.errors)
                results[mode].append(r)
    print(f"serve --fsync: HTTP POST commands?wait=1, {args.games} games, {args.workers} workers x "
          f"{args.threads} threads, {args.runs} alternating runs of {args.seconds:.0f} s, "
          f"{os.cpu_count()} cores, AOF under {where}")
    base = statistics.median(r.rate for r in results["everysec"])
    for mode in FSYNC_MODES:
        rs = results[mode]
        rate = statistics.median(r.rate for r in rs)
        redis_us = statistics.median((r.cpu_us or {}).get("redis", 0.0) for r in rs)
        print(f"  {mode:>8}: {rate:,.0f} commands/s (runs {', '.join(f'{r.rate:,.0f}' for r in rs)}), "
              f"p50 {statistics.median(r.pct(50) for r in rs):.1f} ms, "
              f"p99 {statistics.median(r.pct(99) for r in rs):.1f} ms, Redis CPU {redis_us:.0f} us/command, "
              f"{rate / base:.2f}x everysec")

if __name__ == "__main__":
    main()
