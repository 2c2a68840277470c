"""Where Redis spends its time on the HTTP command path: `INFO commandstats` over a load window,
per accepted command, by Redis command (a script's inner commands count under EVALSHA and under
their own names both, as Redis counts them).

The same stack and load as bench_spine's HTTP figure (10 race games, one command in flight each,
`?wait=1`), against an embedded Redis of its own with AOF everysec. commandstats time is the
command's execution only: the event loop, reading and writing the sockets are in Redis's CPU
(bench_spine's "redis" part) but not here.

    python -m bench.bench_redis_time [--seconds 8] [--games 10] [--workers 1] [--threads 4] [--top 20]
"""

from __future__ import annotations

import argparse
import os

from bench.bench_spine import Stack, make_games, run_load, served_redis
from events.store.store import EventStore


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    with served_redis("bench-redis-time-") as served:
        client = served.client
        games = make_games(EventStore(client, served.ns), args.games, 50)
        with Stack(served.server.url, served.ns, args.workers, args.threads, redis_pid=served.pid) as stack:
            run_load(stack.port, games, 2.0, warmup=1.0)  # scripts loaded, caches warm
            client.config_resetstat()
            r = run_load(stack.port, games, args.seconds, warmup=0.5, stack=stack)
            stats = client.info("commandstats")
    n = max(1, r.commands)
    parts = ", ".join(f"{k} {v:,.0f}" for k, v in (r.cpu_us or {}).items())
    print(f"{r.commands:,} commands in {r.seconds:.1f} s ({r.rate:,.0f}/s), load average "
          f"{os.getloadavg()[0]:.1f}; CPU us a command by part: {parts}")
    rows = sorted(((v["usec"] / n, v["calls"] / n, v["usec_per_call"], k.removeprefix("cmdstat_"))
                   for k, v in stats.items()), reverse=True)
    print(f"  {'command':16} {'us/cmd':>8} {'calls/cmd':>10} {'us/call':>8}")
    for us, calls, per, name in rows[:args.top]:
        print(f"  {name:16} {us:8.1f} {calls:10.2f} {per:8.1f}")


if __name__ == "__main__":
    main()
