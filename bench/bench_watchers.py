"""Shared watchers: summaries' latency on one API process holding 1,000 SSE streams.

One API process (with workers and a projector) and ten games; 1,000 streams (100 a game) held
open over loopback while two clients play the games (so notices fan out all the time). Measured:
`GET /v1/games/{gid}` one at a time, p50 and p99, with the streams open and, in alternating
runs, with none (the baseline of the same run); and that every stream heard the games' moves.

    python -m bench.bench_watchers [--runs 3] [--watchers 1000] [--reads 400]
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

from bench.bench_spine import Conn, Stack, make_games, sse_chunks
from events.store.store import EventStore
from service.runtime.embedded import EmbeddedRedis


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))] if s else float("nan")


async def _watch(port: int, gid: str, opened: list[int], heard: dict[int, int], i: int, stop: asyncio.Event) -> None:
    def counted() -> None:
        opened[0] += 1

    async for got in sse_chunks(port, f"/v1/games/{gid}/stream", stop, opened=counted):
        heard[i] = heard.get(i, 0) + got.count(b"event: summary")


async def _play(port: int, games: list[tuple[str, list[str], int]], stop: asyncio.Event, pause: float) -> int:
    conn = await Conn("127.0.0.1", port).open()
    seats = {}
    for g, t, _ in games:
        _, raw = await conn.request("GET", f"/v1/games/{g}/legal", token=t[0])
        seats[g] = 0 if orjson.loads(raw)["commands"] else 1
    n = 0
    while not stop.is_set():
        for g, t, _ in games:
            body = orjson.dumps({"id": uuid.uuid4().hex, "type": "race.roll", "args": {}})
            status, _ = await conn.request("POST", f"/v1/games/{g}/commands?wait=1", body, t[seats[g]])
            if status == 200:
                seats[g] = 1 - seats[g]
                n += 1
            await asyncio.sleep(pause)
    conn.close()
    return n


async def _reads(port: int, gids: list[str], n: int) -> list[float]:
    conn = await Conn("127.0.0.1", port).open()
    lat = []
    for i in range(n):
        t0 = time.perf_counter()
        status, _ = await conn.request("GET", f"/v1/games/{gids[i % len(gids)]}")
        lat.append((time.perf_counter() - t0) * 1000)
        assert status == 200, status
    conn.close()
    return lat


def run(port: int, games: list[tuple[str, list[str], int]], watchers: int, reads: int) -> tuple[list[float], int, int, int]:
    async def main() -> tuple[list[float], int, int, int]:
        stop = asyncio.Event()
        opened = [0]
        heard: dict[int, int] = {}
        tasks = []
        deadline = time.monotonic() + 180
        # Opened 50 at a time, as clients arrive (a thousand at the same instant queue for the
        # API's Redis pool: that is the pool's bound, not what this measures).
        for i in range(watchers):
            tasks.append(asyncio.create_task(_watch(port, games[i % len(games)][0], opened, heard, i, stop)))
            if len(tasks) % 50 == 0:
                while opened[0] < len(tasks) and time.monotonic() < deadline and not any(t.done() for t in tasks):
                    await asyncio.sleep(0.02)
        while opened[0] < watchers and time.monotonic() < deadline and not any(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        assert opened[0] == watchers, f"{opened[0]} of {watchers} streams opened"
        player = asyncio.create_task(_play(port, games, stop, 0.01))
        lat = await _reads(port, [g for g, _, _ in games], reads)
        stop.set()
        moves = await player
        await asyncio.gather(*tasks, return_exceptions=True)
        deaf = sum(1 for i in range(watchers) if heard.get(i, 0) < 2)  # the first summary and one more
        return lat, opened[0], moves, deaf

    return asyncio.run(main())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--watchers", type=int, default=1000)
    ap.add_argument("--reads", type=int, default=400)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-watchers-"))
    server = EmbeddedRedis(tmp / "redis", appendonly=False).start()
    ns = f"b{uuid.uuid4().hex[:8]}"
    games = make_games(EventStore(redis.Redis.from_url(server.url), ns), 10, 50)
    # Every stream comes from 127.0.0.1: no per-client cap here, the total one above the count.
    os.environ["BOARDLOG_WATCHERS_PER_CLIENT"] = "0"
    os.environ["BOARDLOG_WATCHERS_TOTAL"] = str(args.watchers + 100)
    stack = Stack(server.url, ns, 2, 4)
    try:
        rows: dict[int, list[tuple[list[float], int, int, int]]] = {args.watchers: [], 0: []}
        cpu: dict[int, list[float]] = {args.watchers: [], 0: []}  # the API's CPU ms per move
        for _ in range(args.runs):
            for w in (args.watchers, 0):
                before = stack.cpu()["api"]
                rows[w].append(run(stack.port, games, w, args.reads))
                cpu[w].append((stack.cpu()["api"] - before) * 1000 / max(1, rows[w][-1][2]))
        print(f"GET /v1/games/{{gid}} one at a time on one API process while two seats play 10 games, "
              f"{args.runs} alternating runs of {args.reads} reads, {os.cpu_count()} cores:")
        for w in (args.watchers, 0):
            rs = rows[w]
            print(f"  {w:>5} SSE streams open: p50 {statistics.median(pct(r[0], 50) for r in rs):.1f} ms, "
                  f"p99 {statistics.median(pct(r[0], 99) for r in rs):.1f} ms "
                  f"(runs {', '.join(f'{pct(r[0], 99):.1f}' for r in rs)}); "
                  f"{sum(r[2] for r in rs)} moves meanwhile; streams that heard no move: {sum(r[3] for r in rs)}; "
                  f"API CPU {statistics.median(cpu[w]):.1f} ms per move (with its reads and the streams' opening)")
    finally:
        stack.stop()
        server.stop()


if __name__ == "__main__":
    main()
