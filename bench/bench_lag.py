"""Read-your-writes lag: how long after a command's 200 the read model shows it.

Ten busy games (one client each, as fast as the answers come): each client posts a command with
`?wait=1`, then reads the summary with `?min_seq=<its last seq>`. The lag is the time from the
command's answer to the summary's, so it holds the projector's delay and one HTTP round trip.
Also printed: the commands/s of the run, and the same clients' lag without `min_seq` (reading
the summary until its seq has caught up, polling every 5 ms) in alternating runs.

    python -m bench.bench_lag [--runs 3] [--seconds 6] [--games 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import orjson
import redis

from bench.bench_spine import Conn, Stack, make_games
from events.store.store import EventStore
from service.runtime.embedded import EmbeddedRedis


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))] if s else float("nan")


async def _client(port: int, gid: str, tokens: list[str], seat: int, stop_at: float, lags: list[float],
                  counts: list[int], use_min_seq: bool) -> None:
    conn = await Conn("127.0.0.1", port).open()
    try:
        while time.perf_counter() < stop_at:
            body = orjson.dumps({"id": uuid.uuid4().hex, "type": "race.roll", "args": {}})
            status, raw = await conn.request("POST", f"/v1/games/{gid}/commands?wait=1", body, tokens[seat])
            if status != 200:
                counts[1] += 1
                continue
            last = orjson.loads(raw)["seq"][1]
            t0 = time.perf_counter()
            if use_min_seq:
                status, raw = await conn.request("GET", f"/v1/games/{gid}?min_seq={last}")
                assert status == 200 and orjson.loads(raw)["seq"] >= last, (status, raw[:200])
            else:
                while True:
                    status, raw = await conn.request("GET", f"/v1/games/{gid}")
                    if orjson.loads(raw)["seq"] >= last:
                        break
                    await asyncio.sleep(0.005)
            lags.append((time.perf_counter() - t0) * 1000)
            counts[0] += 1
            seat = 1 - seat
    finally:
        conn.close()


def run(port: int, games: list[tuple[str, list[str], int]], seconds: float, use_min_seq: bool) -> tuple[float, list[float]]:
    async def main() -> tuple[float, list[float]]:
        # Whose turn it is now (the seats moved on in earlier runs).
        conn = await Conn("127.0.0.1", port).open()
        now = []
        for g, t, _ in games:
            _, raw = await conn.request("GET", f"/v1/games/{g}/legal", token=t[0])
            now.append((g, t, 0 if orjson.loads(raw)["commands"] else 1))
        conn.close()
        lags: list[float] = []
        counts = [0, 0]
        t0 = time.perf_counter()
        await asyncio.gather(*(_client(port, g, t, s, t0 + seconds, lags, counts, use_min_seq) for g, t, s in now))
        return counts[0] / (time.perf_counter() - t0), lags

    return asyncio.run(main())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--games", type=int, default=10)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-lag-"))
    server = EmbeddedRedis(tmp / "redis", appendonly=True).start()
    ns = f"b{uuid.uuid4().hex[:8]}"
    games = make_games(EventStore(redis.Redis.from_url(server.url), ns), args.games, 50)
    stack = Stack(server.url, ns, 2, 4)
    try:
        out: dict[bool, list[tuple[float, list[float]]]] = {True: [], False: []}
        run(stack.port, games, 1.5, True)  # warm-up
        for _ in range(args.runs):
            for mode in (True, False):
                out[mode].append(run(stack.port, games, args.seconds, mode))
        print(f"read-your-writes lag, {args.games} busy games (one client each), 2 workers x 4 threads, "
              f"{args.runs} alternating runs of {args.seconds:.0f} s, {os.cpu_count()} cores:")
        for mode, name in ((True, "GET summary?min_seq=N"), (False, "polling the summary every 5 ms")):
            runs = out[mode]
            print(f"  {name}: p50 {statistics.median(pct(r[1], 50) for r in runs):.1f} ms, "
                  f"p99 {statistics.median(pct(r[1], 99) for r in runs):.1f} ms "
                  f"(runs {', '.join(f'{pct(r[1], 99):.1f}' for r in runs)}), max "
                  f"{max(max(r[1]) for r in runs):.1f} ms; {statistics.median(r[0] for r in runs):,.0f} commands/s, "
                  f"{sum(len(r[1]) for r in runs):,} reads")
    finally:
        stack.stop()
        server.stop()


if __name__ == "__main__":
    main()
