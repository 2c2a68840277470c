"""Platform benchmarks: HTTP commands through real workers, the Lua append, replay, idle latency.

Run with `make bench` (or `python -m bench.bench_spine [--runs 3] [--seconds 8]`). Every
figure is the median of several runs, each set beside a baseline measured in the
same run, because this machine is noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import orjson
import psutil
import redis

from events.domain.match import fold_match
from events.records.chain import genesis, seal
from events.records.codec import canonical
from events.store.store import APPEND_LUA, EventStore, Lua
from events.store.wire import Links
from projections.replay import match_at
from rules import catalog
from rules.core import Event
from service.runtime.embedded import EmbeddedRedis, free_port
from service.runtime.logs import configure
from service.usecases.matches import create_match
from workers.commands import CommandHandler

ROOT = Path(__file__).resolve().parent.parent
configure("json", logging.WARNING)
RACE = "tests.support.racegame"
catalog.load([RACE])


# -- a lean HTTP/1.1 client, so the load generator takes little of the 2 cores -----------


class Conn:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter

    async def open(self) -> Conn:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def request(self, method: str, path: str, body: bytes = b"", token: str = "") -> tuple[int, bytes]:
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(body)}\r\n"
        if body:
            head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + body)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.partition(b":")
            if k.lower() == b"content-length":
                length = int(v)
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def sse_chunks(port: int, path: str, stop: asyncio.Event, token: str = "",
                     opened: Callable[[], None] | None = None) -> AsyncIterator[bytes]:
    """What a server-sent event stream sends, as it comes, until `stop` is set or the server
    ends it; `opened` is called once it answered 200 (anything else raises)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n{auth}\r\n".encode())
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"{path} answered {head[:40]!r}")
        if opened is not None:
            opened()
        while not stop.is_set():
            try:
                got = await asyncio.wait_for(reader.read(65536), 0.5)
            except TimeoutError:
                continue
            if not got:
                return
            yield got
    finally:
        writer.close()


class Measured(Protocol):
    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far by each server part, and by this process as "loadgen"."""
        ...


@dataclass
class LoadResult:
    commands: int
    seconds: float
    latencies_ms: list[float]
    errors: int
    cpu_us: dict[str, float] | None = None  # CPU microseconds per accepted command, by part

    @property
    def rate(self) -> float:
        return self.commands / self.seconds

    def pct(self, p: float) -> float:
        xs = sorted(self.latencies_ms)
        return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


async def _player(url_port: int, gid: str, tokens: list[str], start_seat: int, stop_at: float,
                  lat: list[float], counts: list[int], pause: float = 0.0) -> None:
    conn = await Conn("127.0.0.1", url_port).open()
    seat = start_seat
    try:
        while time.perf_counter() < stop_at:
            body = orjson.dumps({"id": uuid.uuid4().hex, "type": "race.roll", "args": {}})
            t0 = time.perf_counter()
            status, _ = await conn.request("POST", f"/v1/games/{gid}/commands?wait=1", body, tokens[seat])
            lat.append((time.perf_counter() - t0) * 1000)
            if status == 200:
                counts[0] += 1
                seat = (seat + 1) % len(tokens)
            else:
                counts[1] += 1
            if pause:
                await asyncio.sleep(pause)
    finally:
        conn.close()


def run_load(port: int, games: Sequence[tuple[str, list[str], int]], seconds: float, warmup: float = 1.5,
             pause: float = 0.0, stack: Measured | None = None) -> LoadResult:
    async def main() -> LoadResult:
        warm: list[float] = []
        c0 = [0, 0]
        await asyncio.gather(*(_player(port, g, t, s, time.perf_counter() + warmup, warm, c0, pause)
                               for g, t, s in games))
        # Seats move on during warm-up: ask the live state (/legal) whose turn it is now.
        conn = await Conn("127.0.0.1", port).open()
        now = []
        for g, t, _ in games:
            _, raw = await conn.request("GET", f"/v1/games/{g}/legal", token=t[0])
            now.append((g, t, 0 if orjson.loads(raw)["commands"] else 1))
        conn.close()
        lat: list[float] = []
        counts = [0, 0]
        cpu0 = stack.cpu() if stack is not None else {}
        t0 = time.perf_counter()
        await asyncio.gather(*(_player(port, g, t, s, t0 + seconds, lat, counts, pause) for g, t, s in now))
        out = LoadResult(counts[0], time.perf_counter() - t0, lat, counts[1])
        if stack is not None and counts[0]:
            cpu1 = stack.cpu()
            out.cpu_us = {k: (cpu1[k] - cpu0[k]) * 1e6 / counts[0] for k in cpu1}
        return out

    return asyncio.run(main())


# -- the stack under test ---------------------------------------------------------------


def answering(url: str, seconds: float) -> None:
    """Wait until `url` answers 200; raise the last error after `seconds`."""
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        try:
            status = httpx.get(url, timeout=1).status_code
        except Exception:
            if time.monotonic() > deadline:
                raise
        else:
            if status == 200:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} answered {status} for {seconds:g} s")
        time.sleep(0.1)


class Stack:
    def __init__(self, redis_url: str, namespace: str, workers: int, threads: int, wake: bool = True,
                 redis_pid: int | None = None, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.redis_pid = redis_pid
        env = {**os.environ, "REDIS_URL": redis_url, "BOARDLOG_NAMESPACE": namespace,
               "BOARDLOG_EXTRA_GAMES": RACE, "BOARDLOG_LOG": "json", "PYTHONPATH": str(ROOT),
               "BOARDLOG_WAKE_CONSUMER": "1" if wake else "0",
               # A benchmark's clients are one address and make more games than a person.
               "BOARDLOG_ANON_GAMES_PER_HOUR": os.environ.get("BOARDLOG_ANON_GAMES_PER_HOUR", "0"), **(env or {})}
        self.log = tempfile.NamedTemporaryFile(prefix="bench-", suffix=".log", delete=False)  # noqa: SIM115
        cmd = [sys.executable, "-m", "service.runtime.cli"]
        self.procs = [subprocess.Popen([*cmd, "worker", "--threads", str(threads)], env=env, stdout=self.log,
                                       stderr=self.log) for _ in range(workers)]
        self.procs.append(subprocess.Popen([*cmd, "projector"], env=env, stdout=self.log, stderr=self.log))
        self.procs.append(subprocess.Popen([*cmd, "api", "--port", str(self.port)], env=env, stdout=self.log,
                                           stderr=self.log))
        answering(f"http://127.0.0.1:{self.port}/openapi.json", 120)  # a loaded machine starts the API slowly
        # structlog's per-command info lines cost CPU; the bench runs them as production would.
        self.roles = ["worker"] * workers + ["projector", "api"]

    def cpu(self) -> dict[str, float]:
        """CPU seconds (user + system) used so far by each part, with its children, and Redis."""
        out: dict[str, float] = {}
        pids = [(role, p.pid) for role, p in zip(self.roles, self.procs, strict=True)]
        if self.redis_pid is not None:
            pids.append(("redis", self.redis_pid))
        for role, pid in pids:
            proc = psutil.Process(pid)
            total = 0.0
            for q in [proc, *proc.children(recursive=True)]:
                try:
                    t = q.cpu_times()
                    total += t.user + t.system
                except psutil.NoSuchProcess:
                    pass
            out[role] = out.get(role, 0.0) + total
        t = psutil.Process().cpu_times()
        out["loadgen"] = t.user + t.system
        return out

    def stop(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.wait(timeout=20)

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


@dataclass
class Served:
    """An embedded redis-server of a bench's own, a client on it, and a namespace for its keys."""

    server: EmbeddedRedis
    client: redis.Redis
    ns: str
    tmp: Path  # the directory the server's data is in (a bench may put its peers' files there)

    @property
    def pid(self) -> int:
        assert self.server.proc is not None
        return self.server.proc.pid


@contextmanager
def served_redis(prefix: str, fsync: str = "everysec", on_disk: bool = False) -> Iterator[Served]:
    """An embedded Redis with its AOF fsynced `fsync`, in a new temp directory (`on_disk`: under
    the checkout, its var/ if there, since /tmp may be a tmpfs where fsync is free); stopped and
    its directory removed after the block."""
    under = (ROOT / "var" if (ROOT / "var").is_dir() else ROOT) if on_disk else None
    tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=under))
    server = EmbeddedRedis(tmp / "redis", appendonly=True, fsync=fsync).start()
    client = redis.Redis.from_url(server.url)
    try:
        yield Served(server, client, f"b{uuid.uuid4().hex[:8]}", tmp)
    finally:
        client.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def make_games(store: EventStore, n: int, prefill_commands: int = 0) -> list[tuple[str, list[str], int]]:
    games = []
    handler = CommandHandler(store)
    for _ in range(n):
        g = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})
        gid = g["id"]
        for i in range(prefill_commands):
            cid = f"pre{i}"
            store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": i % 2, "expect": None})
            handler.handle(gid, cid)
        games.append((gid, [s["token"] for s in g["seats"]], prefill_commands % 2))
    return games


# -- the individual benchmarks ----------------------------------------------------------


def bench_append(client: redis.Redis, n: int = 5000) -> dict[str, float]:
    """Sequential one-event appends, each one round trip, the same pre-encoded envelope bytes:
    the Lua append script alone vs a plain XADD, in alternating blocks of 100, each pair over
    the same client path (the worker's own connection, and redis-py's execute_command); also
    the whole EventStore.append (with encoding). Rates by name."""
    store = EventStore(client, f"b{uuid.uuid4().hex[:8]}", partitions=4)
    links = Links.for_client(client)
    assert links is not None

    def chain(gid: str) -> list[list[Any]]:
        envs = seal(gid, 1, genesis(gid), [Event("boardlog.GameCreated", {"game": "race"})], None, "t")
        store.create(gid, envs, "active", b"\0" * 32, {}, "t")
        prev, out = envs[-1].hash, []
        for i in range(n):
            e = seal(gid, i + 2, prev, [Event("race.DieRolled", {"die": 3, "bonus": 0}, 0)], f"c{i}", "t")
            out.append(e)
            prev = e[-1].hash
        return out

    result = canonical({"status": "accepted"})
    # A game's events stream, as the script writes to (same key shape and length).
    plain_key = store.keys("p01-benchplainxadd").events
    over_py = Lua(client, APPEND_LUA)  # no link: redis-py's execute_command
    rates: dict[str, float] = {}
    for path, gid in (("link", "p01-benchappend01"), ("redis-py", "p03-benchappend03")):
        k = store.keys(gid)
        calls = [([k.events, k.results, k.feed], [i + 1, f"c{i}", result, gid, canonical(e[0].to_json())])
                 for i, e in enumerate(chain(gid))]
        lua = store._append if path == "link" else over_py

        def plain(payload: bytes, path: str = path) -> None:
            if path == "link":
                links.run([("XADD", plain_key, "*", "e", payload)])
            else:
                client.execute_command("XADD", plain_key, "*", "e", payload)

        # Alternate blocks of each, so a swing in the machine's load falls on both alike.
        block, lua_s, plain_s = 100, 0.0, 0.0
        for at in range(0, n, block):
            t0 = time.perf_counter()
            for keys, args in calls[at:at + block]:
                lua(keys=keys, args=args)
            t1 = time.perf_counter()
            for _, args in calls[at:at + block]:
                plain(args[-1])
            t2 = time.perf_counter()
            lua_s += t1 - t0
            plain_s += t2 - t1
        rates[f"lua {path}"], rates[f"xadd {path}"] = n / lua_s, n / plain_s
    gid2 = "p02-benchappend02"
    batches2 = chain(gid2)
    t0 = time.perf_counter()
    for i, e in enumerate(batches2):
        store.append(gid2, i + 1, e, f"c{i}", {"status": "accepted"})
    rates["whole"] = n / (time.perf_counter() - t0)
    for key in client.scan_iter(match=f"{store.ns}:*"):
        client.delete(key)
    return rates


def bench_replay(client: redis.Redis, events: int = 10_000) -> tuple[float, float, float]:
    """A 10,000-event race game: fold in memory; read from Redis plus fold (no snapshot); and
    replay at seq 9,750 as `?at=` does it (nearest snapshot plus the tail)."""
    store = EventStore(client, f"b{uuid.uuid4().hex[:8]}", partitions=4)
    gid = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})["id"]
    handler = CommandHandler(store)
    i = 0
    while store.head(gid).seq < events:  # type: ignore[union-attr]
        cid = f"r{i}"
        store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": i % 2, "expect": None})
        handler.handle(gid, cid)
        i += 1
    envs = store.read(gid)
    evs = [e.event for e in envs]
    t0 = time.perf_counter()
    fold_match(evs, gid)
    fold_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    fold_match((e.event for e in store.read(gid)), gid)
    read_fold_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    match_at(store, gid, 9_750)
    at_ms = (time.perf_counter() - t0) * 1000
    for k in client.scan_iter(match=f"{store.ns}:*"):
        client.delete(k)
    return fold_ms, read_fold_ms, at_ms


def fmt(xs: list[float], unit: str = "") -> str:
    return f"{statistics.median(xs):,.1f}{unit} (runs: {', '.join(f'{x:,.1f}' for x in xs)})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--long-prefill", type=int, default=5000,
                    help="commands played before the long-game runs (0: skip them)")
    ap.add_argument("--only", default="append,replay,http,idle",
                    help="comma-separated parts to run: append, replay, http, idle")
    args = ap.parse_args()
    only = set(args.only.split(","))
    tmp = Path(tempfile.mkdtemp(prefix="boardlog-bench-"))
    server = EmbeddedRedis(tmp / "redis", appendonly=True).start()
    client = redis.Redis.from_url(server.url)
    print(f"boardlog platform bench: {args.runs} runs, {os.cpu_count()} cores, redis-server with AOF everysec")
    try:
        if "append" in only:
            bench_appends(client, args.runs)
        if "replay" in only:
            bench_replays(client, args.runs)
        if "http" in only or "idle" in only:
            bench_http(server, client, args, only)
    finally:
        client.close()
        server.stop()


def cpu_line(results: list[LoadResult]) -> str:
    parts = [k for k in (results[0].cpu_us or {}) if k != "loadgen"] + ["loadgen"]
    cols = []
    for k in parts:
        xs = [r.cpu_us[k] for r in results if r.cpu_us]
        cols.append(f"{k} {statistics.median(xs):,.0f}")
    total = statistics.median(sum(v for k, v in (r.cpu_us or {}).items() if k != "loadgen") for r in results)
    return f"CPU us per command (medians): {', '.join(cols)}; total without the load generator {total:,.0f}"


def bench_appends(client: redis.Redis, runs: int) -> None:
    got = [bench_append(client) for _ in range(runs)]

    def col(name: str) -> list[float]:
        return [g[name] for g in got]

    print("append (one event a round trip):")
    for path in ("link", "redis-py"):
        ratios = [g[f"lua {path}"] / g[f"xadd {path}"] for g in got]
        print(f"  over {path}: Lua script {fmt(col(f'lua {path}'), '/s')}, plain XADD {fmt(col(f'xadd {path}'), '/s')}, "
              f"ratio {statistics.median(ratios):.0%} (target >= 80%)")
    print(f"  whole EventStore.append with encoding (over the link) {fmt(col('whole'), '/s')}")


def bench_replays(client: redis.Redis, runs: int) -> None:
    folds, reads, ats = [], [], []
    for _ in range(runs):
        f, r, a = bench_replay(client)
        folds.append(f)
        reads.append(r)
        ats.append(a)
    print(f"replay of a 10,000-event game: fold {statistics.median(folds):.1f} ms (target < 100 ms); "
          f"read all from Redis + fold {statistics.median(reads):.1f} ms; replay at seq 9,750 from "
          f"the nearest snapshot {statistics.median(ats):.1f} ms")


def bench_http(server: EmbeddedRedis, client: redis.Redis, args: argparse.Namespace, only: set[str]) -> None:
    redis_pid = server.proc.pid if server.proc is not None else None
    ns = f"b{uuid.uuid4().hex[:8]}"
    store = EventStore(client, ns)
    short = make_games(store, args.games, 50)
    if "http" in only:
        long = make_games(store, args.games, args.long_prefill) if args.long_prefill else []
        seqs = (store.head(short[0][0]).seq, store.head((long or short)[0][0]).seq)  # type: ignore[union-attr]
        stack = Stack(server.url, ns, args.workers, args.threads, redis_pid=redis_pid)
        try:
            rates_s, rates_l, p50s, p99s, p50l, p99l = [], [], [], [], [], []
            rs, rls = [], []
            for _ in range(args.runs):
                r = run_load(stack.port, short, args.seconds, stack=stack)
                rs.append(r)
                rates_s.append(r.rate)
                p50s.append(r.pct(50))
                p99s.append(r.pct(99))
                if not long:
                    assert r.errors == 0, r.errors
                    continue
                r2 = run_load(stack.port, long, args.seconds, stack=stack)
                rls.append(r2)
                rates_l.append(r2.rate)
                p50l.append(r2.pct(50))
                p99l.append(r2.pct(99))
                assert r.errors == 0 and r2.errors == 0, (r.errors, r2.errors)
            print(f"HTTP POST commands?wait=1, {args.games} games, {args.workers} worker processes x "
                  f"{args.threads} threads:")
            print(f"  at seq ~{seqs[0]}: {fmt(rates_s, ' cmd/s')}; p50 {statistics.median(p50s):.1f} ms, "
                  f"p99 {statistics.median(p99s):.1f} ms (target >= 1,500/s, p99 < 25 ms)")
            print(f"    {cpu_line(rs)}")
            if not long:
                return
            print(f"  at seq ~{seqs[1]}: {fmt(rates_l, ' cmd/s')}; p50 {statistics.median(p50l):.1f} ms, "
                  f"p99 {statistics.median(p99l):.1f} ms; long/short rate ratio "
                  f"{statistics.median(rates_l) / statistics.median(rates_s):.2f}")
            print(f"    {cpu_line(rls)}")
        finally:
            stack.stop()

    if "idle" in only:
        # Idle latency: one command at a time with pauses, so workers go idle between commands.
        idle = {}
        for wake in (True, False):
            stack = Stack(server.url, ns, 1, 2, wake=wake)
            try:
                lat = []
                for _ in range(args.runs):
                    r = run_load(stack.port, short[:1], 3.0, warmup=0.5, pause=0.05)
                    lat.append(r.pct(50))
                idle[wake] = lat
            finally:
                stack.stop()
        print(f"idle command latency (p50, 50 ms pauses): wake-up list {fmt(idle[True], ' ms')}; "
              f"dramatiq's sleeping consumer {statistics.median(idle[False]):.1f} ms")


if __name__ == "__main__":
    main()
