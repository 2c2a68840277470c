"""The API process's floor: its CPU per request for the cheapest answers it gives, beside a command.

bench_peers compares the whole command path with boardgame.io's; this says how much of that the
HTTP stack costs before any of boardlog's work. Three requests against one stack (API, one
worker, the projector, an embedded Redis with AOF everysec), 10 connections each with one
request in flight, alternating in rounds:

- `GET /v1/health`: uvicorn, the app's middleware and a fixed JSON answer, no Redis;
- `GET /v1/games/{gid}`: an anonymous summary read (the read limit's count and the read model,
  from Redis);
- `POST /v1/games/{gid}/commands?wait=1`: a race roll through the worker (bench_spine's load).

    python -m bench.bench_floor [--rounds 3] [--seconds 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from bench.bench_spine import Conn, Stack, make_games, run_load, served_redis
from events.store.store import EventStore

CONNECTIONS = 10


async def _gets(port: int, path: str, seconds: float) -> int:
    """GETs of `path` on CONNECTIONS connections for `seconds`; how many answered 200."""
    done = [0]

    async def one() -> None:
        conn = await Conn("127.0.0.1", port).open()
        end = time.perf_counter() + seconds
        try:
            while time.perf_counter() < end:
                status, _ = await conn.request("GET", path)
                if status != 200:
                    raise RuntimeError(f"GET {path} answered {status}")
                done[0] += 1
        finally:
            conn.close()

    await asyncio.gather(*(one() for _ in range(CONNECTIONS)))
    return done[0]


def measure_get(stack: Stack, path: str, seconds: float) -> tuple[float, float]:
    """(requests a second, API CPU microseconds a request) for GETs of `path`."""
    asyncio.run(_gets(stack.port, path, 0.5))  # warm-up
    cpu0, t0 = stack.cpu(), time.perf_counter()
    n = asyncio.run(_gets(stack.port, path, seconds))
    cpu1, took = stack.cpu(), time.perf_counter() - t0
    return n / took, (cpu1["api"] - cpu0["api"]) * 1e6 / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    args = ap.parse_args()
    figures: dict[str, list[tuple[float, float]]] = {"health": [], "summary": [], "command": []}
    server_cpu: list[float] = []
    with served_redis("bench-floor-") as served:
        games = make_games(EventStore(served.client, served.ns), CONNECTIONS, 50)
        with Stack(served.server.url, served.ns, 1, 4, redis_pid=served.pid) as stack:
            for _ in range(args.rounds):
                figures["health"].append(measure_get(stack, "/v1/health", args.seconds))
                figures["summary"].append(measure_get(stack, f"/v1/games/{games[0][0]}", args.seconds))
                r = run_load(stack.port, games, args.seconds, warmup=0.5, stack=stack)
                assert r.errors == 0 and r.cpu_us is not None, r.errors
                figures["command"].append((r.rate, r.cpu_us["api"]))
                server_cpu.append(sum(v for k, v in r.cpu_us.items() if k != "loadgen"))
    print(f"the API's CPU a request: {args.rounds} rounds x {args.seconds:g} s, {CONNECTIONS} connections, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    health = statistics.median(cpu for _, cpu in figures["health"])
    for name, label in (("health", "GET /v1/health"), ("summary", "GET /v1/games/{gid}"),
                        ("command", "POST commands?wait=1")):
        rates = [rate for rate, _ in figures[name]]
        cpus = [cpu for _, cpu in figures[name]]
        print(f"  {label:22} {statistics.median(rates):7,.0f} /s  API CPU {statistics.median(cpus):5,.0f} us "
              f"[{', '.join(f'{c:,.0f}' for c in cpus)}]  {statistics.median(cpus) / health:4.2f}x health")
    print(f"  a command's CPU in every server part (API, worker, projector, Redis): "
          f"{statistics.median(server_cpu):,.0f} us [{', '.join(f'{c:,.0f}' for c in server_cpu)}]")


if __name__ == "__main__":
    main()
