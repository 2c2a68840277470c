"""boardlog beside a peer: boardgame.io 0.50's own server, driven the way bench_spine drives boardlog.

Six paths, each at every count of games in `--games` (default 10 and 64), run ALTERNATELY in
one run (each round runs every path at every count once, the order turned by one each round,
so a swing in the machine's load falls on all of them alike):

- boardlog `POST /v1/games/{gid}/commands?wait=1` on race games (a die roll a command, seats
  alternating), API + workers + projector + an embedded Redis with AOF `everysec`;
- the skeleton of that path (bench/skeleton.py): uvicorn, boardlog's dramatiq broker, a worker
  that appends one stream entry and publishes the reply, on the same Redis, with none of
  boardlog's work in it, over boardlog's own Redis clients: what DESIGN.md's parts cost a
  command on their own, the floor boardlog could reach;
- the skeleton with no broker (`inline`: the API appends and answers);
- the boardlog stack with the AOF fsynced `always` (`CONFIG SET appendfsync`, as `serve --fsync
  always` starts it);
- boardgame.io's Server with its InMemory storage (not durable), as many matches of a counter
  game (bench/peers/game.js: a die roll a move, seats alternating);
- the same with its FlatFile storage (node-persist files, written without fsync).

Each game/match has one command in flight at a time and waits for its answer: boardlog's
`?wait=1` answer, boardgame.io's `update` broadcast carrying the next `_stateID` (0.50 takes
moves over socket.io only; bench/peers/driver.js). Every AOF and FlatFile dir is on the
checkout's disk (never tmpfs, where fsync costs nothing).

Besides moves/s, p50 and p99 (wall time: noisy on a shared machine), it prints CPU per command of
each server process (psutil, user + system, over the measured window: API, worker, Redis,
projector; node for boardgame.io), which holds better, the driver's own CPU per command apart
(this process for boardlog, `driver.js` for boardgame.io), and the command batch sizes the API
saw in the window (its `/metrics` histogram `boardlog_command_batch_size`: mean and largest
bucket; "n/a" where the API has none). Medians over the rounds; the ratios against InMemory and
FlatFile, and of each path's rate at the most games over the fewest, are each round's pair
measured in this run, then their median.

    make bench-peers        (npm ci into bench/peers/node_modules, then this)
    python -m bench.bench_peers [--rounds 3] [--seconds 6] [--games 10,64] [--workers 1] [--threads 4]
    python -m bench.bench_peers --rounds 1 --seconds 2 --games 2,4      (a smoke check)
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import psutil
import redis
from prometheus_client.parser import text_string_to_metric_families

from bench.bench_spine import ROOT, LoadResult, Stack, make_games, run_load, served_redis
from bench.skeleton import SkeletonStack
from events.store.store import EventStore
from service.runtime.embedded import free_port

PEERS = ROOT / "bench" / "peers"
WARMUP = 1.5
BATCH_METRIC = "boardlog_command_batch_size"
PARTS = ("api", "worker", "redis", "projector")


@dataclass
class Figures:
    rate: float  # answered commands per second
    p50: float
    p99: float
    cpu_us: float  # server CPU microseconds per command, every server part
    parts: dict[str, float]  # the same by process
    driver_us: float  # the load generator's own CPU microseconds per command (not in cpu_us)
    batch: Batches | None = None  # the command batch sizes the API saw (None: it has no such metric)


@dataclass
class Batches:
    """Observations of the batch-size histogram over one window: how many, their mean and the
    upper bound of the highest bucket any fell in."""

    count: float
    total: float
    buckets: dict[float, float] = field(default_factory=dict)  # le -> cumulative count

    def minus(self, before: Batches) -> Batches:
        return Batches(self.count - before.count, self.total - before.total,
                       {le: n - before.buckets.get(le, 0.0) for le, n in self.buckets.items()})

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else float("nan")

    @property
    def largest(self) -> float:
        """The smallest bucket bound holding every observation (inf: past the last bound)."""
        for le in sorted(self.buckets):
            if self.buckets[le] >= self.count:
                return le
        return math.inf

    def show(self) -> str:
        if not self.count:
            return "none"
        top = "" if math.isinf(self.largest) else f" (all <= {self.largest:g})"
        return f"mean {self.mean:.1f}{top}"


def scrape_batches(url: str, token: str) -> Batches | None:
    """The batch-size histogram summed over its labels, from a Prometheus text page; None when
    the page has no such metric (a branch without group commit) or does not answer."""
    try:
        r = httpx.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=5)
    except httpx.HTTPError:
        return None
    if r.status_code != 200:
        return None
    got: Batches | None = None
    for family in text_string_to_metric_families(r.text):
        if family.name != BATCH_METRIC:
            continue
        got = got or Batches(0.0, 0.0)
        for sample in family.samples:
            if sample.name.endswith("_count"):
                got.count += sample.value
            elif sample.name.endswith("_sum"):
                got.total += sample.value
            elif sample.name.endswith("_bucket"):
                le = float(sample.labels["le"])
                got.buckets[le] = got.buckets.get(le, 0.0) + sample.value
    return got


def _cpu(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


class Peer:
    """One boardgame.io server process (server.js) with one storage."""

    def __init__(self, storage: str, data_dir: Path, attempt: int = 0) -> None:
        self.port = free_port()
        self.storage, self.data_dir, self.attempt = storage, data_dir, attempt
        args = ["node", "server.js", str(self.port), storage]
        if storage == "flatfile":
            args.append(str(data_dir / ("flatfile" if not attempt else f"flatfile-{attempt}")))
        env = {**os.environ, "NODE_ENV": "production"}  # as deployed: no debug logging
        env.pop("FLATFILE_DIR", None)
        self.proc = subprocess.Popen(args, cwd=PEERS, env=env, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError(f"boardgame.io server ({storage}) did not start: {line!r}")

    def run(self, games: int, seconds: float) -> Figures:
        drv = subprocess.Popen(["node", "driver.js", str(self.port), str(games), str(WARMUP), str(seconds)],
                               cwd=PEERS, stdout=subprocess.PIPE, text=True)
        assert drv.stdout is not None
        first = drv.stdout.readline()
        if first.strip() != "warm":
            raise RuntimeError(f"driver: {first!r}")
        c0 = _cpu(self.proc.pid)
        out = orjson.loads(drv.stdout.readline())
        c1 = _cpu(self.proc.pid)
        drv.wait(timeout=30)
        if out["errors"]:
            raise RuntimeError(f"boardgame.io {self.storage}: {out['errors']} moves unanswered")
        lat = sorted(out["latencies_ms"])
        us = (c1 - c0) * 1e6 / out["moves"]
        return Figures(out["moves"] / out["seconds"], _pct(lat, 50), _pct(lat, 99), us, {"node": us},
                       out["cpu_us"] / out["moves"])

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)

    def again(self) -> Peer:
        """The same server started anew on a new directory (its process gone, or stopped)."""
        if self.proc.poll() is None:
            self.stop()
        return Peer(self.storage, self.data_dir, self.attempt + 1)


def _pct(xs: list[float], p: float) -> float:
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def boardlog_run(stack: Stack | SkeletonStack, client: redis.Redis, fsync: str,
                 games: list[tuple[str, list[str], int]], seconds: float,
                 metrics: tuple[str, str] | None = None) -> Figures:
    """One window of load on `stack`; `metrics` (URL, token): where its batch sizes are read."""
    client.config_set("appendfsync", fsync)
    before = scrape_batches(*metrics) if metrics else None
    r: LoadResult = run_load(stack.port, games, seconds, warmup=WARMUP, stack=stack)
    if r.errors:
        raise RuntimeError(f"{type(stack).__name__} {fsync}: {r.errors} commands not accepted")
    after = scrape_batches(*metrics) if metrics else None
    # The warm-up's batches fall in the window too: the sizes are the load's, not the window's alone.
    batch = after.minus(before) if after is not None and before is not None else None
    parts = {k: v for k, v in (r.cpu_us or {}).items() if k != "loadgen"}
    return Figures(r.rate, r.pct(50), r.pct(99), sum(parts.values()), parts, (r.cpu_us or {})["loadgen"], batch)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--games", default="10,64", help="comma-separated counts of games played at once")
    # One worker process on a 2-core machine: every command of a game then meets that game's
    # cached match (two processes each see half of a game's commands and read the tail they
    # missed), and one dramatiq consumer polls instead of two. bench_spine, the two alternating:
    # 1,180 and 953 us of server CPU a command against 1,457 and 1,148 at 2 x 2 (bench/RESULTS.md).
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=4)
    args = ap.parse_args(argv)
    counts = sorted({int(n) for n in args.games.split(",")})
    if not (PEERS / "node_modules" / "boardgame.io").is_dir():
        raise SystemExit("bench/peers/node_modules is missing: run `make bench-peers` (npm ci) first")
    peers: dict[str, Peer] = {}
    token = uuid.uuid4().hex
    with served_redis("bench-peers-", on_disk=True) as served:
        client = served.client
        games = make_games(EventStore(client, served.ns), max(counts), 50)
        with Stack(served.server.url, served.ns, args.workers, args.threads, redis_pid=served.pid,
                   env={"BOARDLOG_METRICS_TOKEN": token}) as stack:
            skeleton = SkeletonStack(served.server.url, served.ns, args.threads, served.pid)
            inline = SkeletonStack(served.server.url, served.ns, args.threads, served.pid, inline=True)
            try:
                for storage in ("inmemory", "flatfile"):
                    peers[storage] = Peer(storage, served.tmp)
                metrics = (f"http://127.0.0.1:{stack.port}/metrics", token)
                got = alternate(stack, (skeleton, inline), client, peers, games, counts, metrics, args)
            finally:
                skeleton.stop()
                inline.stop()
                for p in peers.values():
                    p.stop()
    report(got, counts, args.rounds)


Key = tuple[str, int]  # a path's name, and how many games it was played at


def alternate(stack: Stack, skeletons: tuple[SkeletonStack, SkeletonStack], client: redis.Redis,
              peers: dict[str, Peer], games: list[tuple[str, list[str], int]], counts: list[int],
              metrics: tuple[str, str], args: argparse.Namespace) -> dict[Key, list[Figures]]:
    """Every path at every count of games in rounds, the order turned by one each round; each
    round's figures."""
    skeleton, inline = skeletons
    s = args.seconds
    paths: dict[str, Callable[[int], Figures]] = {
        "boardlog everysec": lambda n: boardlog_run(stack, client, "everysec", games[:n], s, metrics),
        "skeleton everysec": lambda n: boardlog_run(skeleton, client, "everysec", games[:n], s),
        "inline everysec": lambda n: boardlog_run(inline, client, "everysec", games[:n], s),
        "boardlog always": lambda n: boardlog_run(stack, client, "always", games[:n], s, metrics),
        "bgio InMemory": lambda n: peer_run(peers, "inmemory", n, s),
        "bgio FlatFile": lambda n: peer_run(peers, "flatfile", n, s),
    }
    keys = [(name, n) for n in counts for name in paths]
    got: dict[Key, list[Figures]] = {k: [] for k in keys}
    print(f"boardlog vs boardgame.io 0.50: {args.rounds} rounds x {s:g} s, games {counts}, boardlog "
          f"{args.workers} worker processes x {args.threads} threads, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    for rnd in range(args.rounds):
        at = rnd % len(keys)
        for name, n in keys[at:] + keys[:at]:
            f = paths[name](n)
            got[(name, n)].append(f)
            print(f"  round {rnd + 1} {name:18} {n:3} games {f.rate:8,.0f} /s  p50 {f.p50:5.1f} ms  "
                  f"p99 {f.p99:5.1f} ms  server CPU {f.cpu_us:6,.0f} us/cmd ({_parts(f.parts)})  "
                  f"driver {f.driver_us:4,.0f}  batches {_batches([f])}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return got


def peer_run(peers: dict[str, Peer], storage: str, games: int, seconds: float) -> Figures:
    """A peer's run; once more on a new server when it failed. node-persist (FlatFile) writes a
    match's file in place, and under load a read can meet a file half written: the server then
    dies on its own parse error ("does not look like a valid storage file"), every move after
    unanswered. That is the peer's failure, said in the output, not the bench's."""
    try:
        return peers[storage].run(games, seconds)
    except RuntimeError as e:
        print(f"  bgio {storage} failed ({e}): started again on a new directory, run again", flush=True)
        peers[storage] = peers[storage].again()
        return peers[storage].run(games, seconds)


def _parts(parts: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:,.0f}" for k, v in sorted(parts.items(), key=lambda kv: _order(kv[0])))


def _order(part: str) -> int:
    return PARTS.index(part) if part in PARTS else len(PARTS)


def _batches(fs: list[Figures]) -> str:
    seen = [f.batch for f in fs if f.batch is not None]
    if not seen:
        return "n/a"
    means = [b.mean for b in seen if b.count]
    top = max(b.largest for b in seen if b.count) if means else math.nan
    if not means:
        return "none"
    return f"mean {statistics.median(means):.1f}" + ("" if math.isinf(top) else f" (all <= {top:g})")


def report(got: dict[Key, list[Figures]], counts: list[int], rounds: int) -> None:
    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    names = list(dict.fromkeys(name for name, _ in got))
    print(f"medians of {rounds} rounds (server CPU us a command by process):")
    for n in counts:
        for name in names:
            fs = got[(name, n)]
            parts = {k: med([f.parts[k] for f in fs]) for k in fs[0].parts}
            print(f"  {name:18} {n:3} games {med([f.rate for f in fs]):8,.0f} /s  p50 {med([f.p50 for f in fs]):5.1f} ms  "
                  f"p99 {med([f.p99 for f in fs]):5.1f} ms  server CPU {med([f.cpu_us for f in fs]):6,.0f} us/cmd "
                  f"({_parts(parts)}); driver {med([f.driver_us for f in fs]):,.0f}; batches {_batches(fs)}")
    pairs = [("boardlog everysec", "bgio InMemory"), ("boardlog always", "bgio FlatFile"),
             ("boardlog everysec", "bgio FlatFile"), ("skeleton everysec", "bgio InMemory"),
             ("boardlog everysec", "skeleton everysec"), ("inline everysec", "bgio InMemory")]
    print("ratios (each round's pair, then the median; cpu: commands per server CPU second):")
    for n in counts:
        for a, b in pairs:
            rate = [got[(a, n)][i].rate / got[(b, n)][i].rate for i in range(rounds)]
            cpu = [got[(b, n)][i].cpu_us / got[(a, n)][i].cpu_us for i in range(rounds)]
            print(f"  {n:3} games  {a} / {b}: rate {med(rate):.2f}x [{', '.join(f'{x:.2f}' for x in rate)}]; "
                  f"cpu {med(cpu):.2f}x")
    if len(counts) > 1:
        lo, hi = counts[0], counts[-1]
        print(f"growth with concurrency (rate at {hi} games / rate at {lo}, each round, then the median):")
        for name in names:
            grow = [got[(name, hi)][i].rate / got[(name, lo)][i].rate for i in range(rounds)]
            print(f"  {name:18} {med(grow):.2f}x [{', '.join(f'{x:.2f}' for x in grow)}]")


if __name__ == "__main__":
    main()
