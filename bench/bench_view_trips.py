"""Redis round trips of one board read after a move, `GET /v1/games/{gid}/view?min_seq=N`, for one
checkout or several side by side (a baseline first):

    python -m bench.bench_view_trips --trees /tmp/before /work/main --runs 5 --reads 300

With no --trees it measures this checkout alone.

Each tree gets its own embedded Redis (AOF `everysec`), a worker (1 process x 2 threads) and a
projector on it, and two API processes: one whose Redis is reached through `TripCounter`, a
proxy that counts round trips, and one connected directly, for the timing.

Counted, not timed: a round trip is a burst of commands one connection writes before Redis
answers it (commands pipelined in one write, or a script, are one trip). The proxy parses every
command and keeps the trips that name the game read, so the API's other traffic (its reply and
watcher subscriptions, the broker) is not counted. Three reads a move, for `--moves` moves of
one race game, `--pause` seconds apart: the seat's view right after its `?wait=1` move (the
projection may still be behind: then the read waits and reads again), the seat's view once the
projection has reached the move, and the spectator's view (no token) then. The projector merges
a game's moves that come within 50 ms of its last projection: with `--pause 0` most reads right
after a move find it behind, as a bot's rapid moves would.

Timed, the secondary figure: `--reads` reads in a row of the seat's view of a projected game,
`--runs` runs alternating between the trees; per read the wall time seen by the client (one
keep-alive connection), the API process's CPU (user + system, psutil) and Redis's own (INFO cpu:
its getrusage, finer than psutil's 10 ms ticks). The figures are medians over runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import hiredis
import httpx
import psutil
import redis

from service.runtime.embedded import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parent.parent
RACE = "tests.support.racegame"
_CHUNK = 65536


class TripCounter:
    """A TCP proxy in front of one Redis that records each connection's round trips: the commands
    a client writes before the server's next answer on that connection are one trip. Runs its
    own event loop on a thread, so a test or a bench can count around a plain HTTP call."""

    def __init__(self, upstream_port: int, host: str = "127.0.0.1") -> None:
        self.host = host
        self.upstream_port = upstream_port
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="trip-counter", daemon=True)
        self._lock = threading.Lock()
        self._trips: list[list[list[bytes]]] = []
        self._server: asyncio.Server | None = None

    @classmethod
    def in_front_of(cls, url: str) -> TripCounter:
        """A counter for the Redis at `url` (not started)."""
        u = urlsplit(url)
        return cls(u.port or 6379, u.hostname or "127.0.0.1")

    def through(self, url: str) -> str:
        """`url`, its credentials and database kept, reaching Redis through this proxy."""
        u = urlsplit(url)
        auth = u.netloc.rpartition("@")[0]
        return urlunsplit(u._replace(netloc=f"{auth}@{self.host}:{self.port}" if auth else f"{self.host}:{self.port}"))

    def start(self) -> TripCounter:
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(10)
        return self

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
                for task in asyncio.all_tasks():
                    if task is not asyncio.current_task():
                        task.cancel()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def reset(self) -> None:
        """Forget the trips so far: what `trips` answers next is what comes after this."""
        with self._lock:
            self._trips = []

    def trips(self, marker: str) -> list[list[str]]:
        """Since the last reset, the trips with a command naming `marker` (a game id), each as
        its commands' names in order (a script's call as `EVALSHA`)."""
        want = marker.encode()
        with self._lock:
            trips = [list(t) for t in self._trips]
        return [[bytes(c[0]).decode().upper() for c in t] for t in trips
                if any(want in bytes(arg) for c in t for arg in c)]

    async def _serve(self) -> int:
        self._server = await asyncio.start_server(self._pipe, self.host, 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def _pipe(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(self.host, self.upstream_port)
        except OSError:
            client_w.close()
            return
        parser = hiredis.Reader()
        # The trip the client is writing; None once the server has answered (the next write is
        # a new trip). Both directions run on this one loop, so an answer forwarded to the client
        # always ends its trip before the client's next write can arrive.
        state: dict[str, list[list[bytes]] | None] = {"trip": None}

        async def up() -> None:
            while data := await client_r.read(_CHUNK):
                with self._lock:
                    trip = state["trip"]
                    if trip is None:
                        trip = state["trip"] = []
                        self._trips.append(trip)
                    parser.feed(data)
                    while (command := parser.gets()) is not False:
                        trip.append(command)
                server_w.write(data)
                await server_w.drain()

        async def down() -> None:
            while data := await server_r.read(_CHUNK):
                state["trip"] = None
                client_w.write(data)
                await client_w.drain()

        try:
            await asyncio.wait([asyncio.ensure_future(up()), asyncio.ensure_future(down())],
                               return_when=asyncio.FIRST_COMPLETED)
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            for w in (client_w, server_w):
                w.close()


def _env(tree: Path, redis_url: str, ns: str, data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDLOG_")}
    env.update(REDIS_URL=redis_url, BOARDLOG_NAMESPACE=ns, BOARDLOG_PARTITIONS="8", BOARDLOG_EXTRA_GAMES=RACE,
               BOARDLOG_LOG="json", BOARDLOG_DATA=str(data), PYTHONPATH=str(tree))
    env.update(extra)
    return env


def _answering(url: str, proc: subprocess.Popen[bytes], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: the API exited ({proc.returncode})")
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url}: the API did not answer")


@dataclass
class TreeStack:
    """One tree's Redis, worker, projector and two APIs (counted through the proxy, and direct)."""

    tree: Path
    tmp: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="bench-view-trips-")))
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ns = f"b{uuid.uuid4().hex[:8]}"
        self.server = EmbeddedRedis(self.tmp / "redis", appendonly=True, fsync="everysec").start()
        self.proxy = TripCounter.in_front_of(self.server.url).start()
        self.client = redis.Redis.from_url(self.server.url)
        data = self.tmp / "data"
        direct = _env(self.tree, self.server.url, self.ns, data)
        try:
            self._start("worker", direct, "worker", "--threads", "2")
            self._start("projector", direct, "projector")
            # The broker direct: only the event store's traffic goes through the counter.
            counted = _env(self.tree, self.proxy.through(self.server.url), self.ns, data, BROKER_URL=self.server.url)
            self.counted_url = self._api("counted", counted)
            self.timed_url = self._api("timed", direct)
        except BaseException:
            self.stop()
            raise

    def _start(self, name: str, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
        log = (self.tmp / f"{name}.log").open("ab")
        proc = subprocess.Popen([sys.executable, "-m", "service.runtime.cli", *args], env=env, cwd=self.tree,
                                stdout=log, stderr=log)
        self.procs[name] = proc
        return proc

    def _api(self, name: str, env: dict[str, str]) -> str:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        _answering(url, self._start(name, env, "api", "--port", str(port)))
        return url

    def checkpoint(self, gid: str) -> int:
        raw: Any = self.client.hget(f"{self.ns}:{{p{int(gid[1:3]):02d}}}:g:{gid}:rm", "checkpoint")
        return 0 if raw is None else int(raw)

    def projected(self, gid: str, seq: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while self.checkpoint(gid) < seq:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{gid} not projected to {seq}")
            time.sleep(0.01)

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.proxy.stop()
        self.client.close()
        self.server.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def new_game(c: httpx.Client) -> tuple[str, list[str]]:
    r = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})
    r.raise_for_status()
    g = r.json()
    return g["id"], [s["token"] for s in g["seats"]]


def move(c: httpx.Client, gid: str, token: str) -> int:
    """One `?wait=1` move; its last seq."""
    r = c.post(f"/v1/games/{gid}/commands?wait=1", headers={"Authorization": f"Bearer {token}"},
               json={"id": str(uuid.uuid4()), "type": "race.roll", "args": {}})
    if r.status_code != 200:
        raise RuntimeError(f"move: {r.status_code} {r.text[:300]}")
    last: int = r.json()["seq"][1]
    return last


def counted_read(stack: TreeStack, c: httpx.Client, gid: str, last: int, token: str | None) -> list[str]:
    """One view read with min_seq=last through the counting proxy: its trips naming the game,
    each as its commands joined by '+'."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    stack.proxy.reset()
    r = c.get(f"/v1/games/{gid}/view", params={"min_seq": last}, headers=headers)
    if r.status_code != 200:
        raise RuntimeError(f"view: {r.status_code} {r.text[:300]}")
    return ["+".join(t) for t in stack.proxy.trips(gid)]


def count(stack: TreeStack, moves: int, pause: float) -> dict[str, list[list[str]]]:
    """The trips of each kind of read, one list a move; `pause` seconds before each move."""
    out: dict[str, list[list[str]]] = {"after the move": [], "projected": [], "spectator": []}
    with httpx.Client(base_url=stack.counted_url, timeout=30) as c:
        gid, tokens = new_game(c)
        # A first read loads any script the read uses (once per Redis server), as any
        # long-running API has.
        c.get(f"/v1/games/{gid}/view", headers={"Authorization": f"Bearer {tokens[0]}"}).raise_for_status()
        for i in range(moves):
            token = tokens[i % 2]
            time.sleep(pause)
            last = move(c, gid, token)
            out["after the move"].append(counted_read(stack, c, gid, last, token))
            stack.projected(gid, last)
            out["projected"].append(counted_read(stack, c, gid, last, token))
            out["spectator"].append(counted_read(stack, c, gid, last, None))
    return out


def _cpu(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


def _redis_cpu(client: redis.Redis) -> float:
    """Redis's own CPU seconds (its getrusage, in microseconds: psutil's clock ticks are 10 ms)."""
    info: Any = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def timed(stack: TreeStack, game: tuple[str, list[str], int], reads: int) -> dict[str, float]:
    """`reads` seat view reads in a row on the direct API: per read, wall, API and Redis CPU (us)."""
    gid, tokens, last = game
    api = stack.procs["timed"].pid
    with httpx.Client(base_url=stack.timed_url, timeout=30, headers={"Authorization": f"Bearer {tokens[0]}"}) as c:
        url = f"/v1/games/{gid}/view?min_seq={last}"
        for _ in range(20):  # the connection and the API's first-use work
            c.get(url).raise_for_status()
        a0, r0, t0 = _cpu(api), _redis_cpu(stack.client), time.perf_counter()
        for _ in range(reads):
            if c.get(url).status_code != 200:
                raise RuntimeError("a timed read failed")
        t1, a1, r1 = time.perf_counter(), _cpu(api), _redis_cpu(stack.client)
    return {"wall": (t1 - t0) * 1e6 / reads, "api": (a1 - a0) * 1e6 / reads, "redis": (r1 - r0) * 1e6 / reads,
            "load": os.getloadavg()[0]}


def _shape(trips: list[list[str]]) -> str:
    """The reads' trips, e.g. '1 trip: EVALSHA (x5)'; reads that differ are listed apart."""
    shapes: dict[str, int] = {}
    for t in trips:
        key = f"{len(t)} trip{'s' if len(t) != 1 else ''}: {', '.join(t)}"
        shapes[key] = shapes.get(key, 0) + 1
    return "; ".join(f"{k} (x{n})" for k, n in sorted(shapes.items(), key=lambda kv: -kv[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", nargs="+", type=Path, help="checkouts to measure, the baseline first")
    ap.add_argument("--moves", type=int, default=10, help="moves counted (three reads each)")
    ap.add_argument("--pause", type=float, default=0.2,
                    help="seconds before each counted move (the projector merges a game's moves within 50 ms)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs a tree, alternating")
    ap.add_argument("--reads", type=int, default=300, help="reads a timed run")
    args = ap.parse_args()
    trees = [t.resolve() for t in (args.trees or [ROOT])]
    names = [chr(ord("A") + i) for i in range(len(trees))]
    print(f"{', '.join(f'{n} = {t}' for n, t in zip(names, trees, strict=True))}; {args.moves} moves counted "
          f"({args.pause:g} s apart), {args.runs} runs x {args.reads} reads timed; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    stacks: dict[str, TreeStack] = {}
    try:
        for name, tree in zip(names, trees, strict=True):
            stacks[name] = TreeStack(tree)
        trips: dict[str, dict[str, list[list[str]]]] = {}
        for name, stack in stacks.items():
            trips[name] = count(stack, args.moves, args.pause)
            for kind, got in trips[name].items():
                print(f"  {name} round trips naming the game, {kind}: median "
                      f"{statistics.median(len(t) for t in got):g}, max {max(len(t) for t in got)}; {_shape(got)}",
                      flush=True)
        games: dict[str, tuple[str, list[str], int]] = {}
        for name, stack in stacks.items():
            with httpx.Client(base_url=stack.timed_url, timeout=30) as c:
                gid, tokens = new_game(c)
                last = 0
                for i in range(4):
                    last = move(c, gid, tokens[i % 2])
            stack.projected(gid, last)
            games[name] = (gid, tokens, last)
        figures: dict[str, list[dict[str, float]]] = {n: [] for n in names}
        for rnd in range(args.runs):
            for name in names:
                f = timed(stacks[name], games[name], args.reads)
                figures[name].append(f)
                print(f"  run {rnd + 1} {name}: wall {f['wall']:,.0f} us a read, CPU API {f['api']:,.0f} us, "
                      f"Redis {f['redis']:,.1f} us; load {f['load']:.1f}", flush=True)
        print("medians over runs (ratio to A):")
        for name in names:
            med = {k: statistics.median(f[k] for f in figures[name]) for k in ("wall", "api", "redis")}
            base = {k: statistics.median(f[k] for f in figures["A"]) for k in med}
            print(f"  {name}: round trips a read after the move "
                  f"{statistics.median(len(t) for t in trips[name]['after the move']):g}, projected "
                  f"{statistics.median(len(t) for t in trips[name]['projected']):g}, spectator "
                  f"{statistics.median(len(t) for t in trips[name]['spectator']):g}; "
                  + ", ".join(f"{k} {v:,.1f} us ({v / base[k] if base[k] else float('nan'):.2f})"
                             for k, v in med.items()))
    finally:
        for stack in stacks.values():
            stack.stop()


if __name__ == "__main__":
    main()
