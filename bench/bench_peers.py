"""boardlog beside a peer: boardgame.io 0.50's own server, driven the way bench_spine drives boardlog.

Six paths, run ALTERNATELY in one run (each round runs every path once, the order turned by
one each round, so a swing in the machine's load falls on all of them alike):

- boardlog `POST /v1/games/{gid}/commands?wait=1`, 10 race games (a die roll a command, seats
  alternating), API + workers + projector + an embedded Redis with AOF `everysec`;
- the skeleton of that path (bench/skeleton.py): uvicorn, boardlog's dramatiq broker, a worker
  that appends one stream entry and publishes the reply, on the same Redis, with none of
  boardlog's work in it: what DESIGN.md's parts cost a command on their own;
- the boardlog stack with the AOF fsynced `always` (`CONFIG SET appendfsync`, as `serve --fsync
  always` starts it);
- boardgame.io's Server with its InMemory storage (not durable), 10 matches of a counter game
  (bench/peers/game.js: a die roll a move, seats alternating);
- the same with its FlatFile storage (node-persist files, written without fsync).

Each of the 10 games/matches has one command in flight at a time and waits for its answer:
boardlog's `?wait=1` answer, boardgame.io's `update` broadcast carrying the next `_stateID`
(0.50 takes moves over socket.io only; bench/peers/driver.js). Every AOF and FlatFile dir is
on the checkout's disk (never tmpfs, where fsync costs nothing).

Besides moves/s and p99 (wall time: noisy on a shared machine), it prints CPU per command of
each server part (psutil, user + system, over the measured window), which holds better, and the
driver's own CPU per command apart (this process for boardlog, `driver.js` for boardgame.io), to
show that neither side's load generator holds its rate down more than the other's.

    make bench-peers        (npm ci into bench/peers/node_modules, then this)
    python -m bench.bench_peers [--rounds 3] [--seconds 6] [--games 10] [--workers 1] [--threads 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
import psutil
import redis

from bench.bench_spine import ROOT, LoadResult, Stack, make_games, run_load, served_redis
from bench.skeleton import SkeletonStack
from events.store.store import EventStore
from service.runtime.embedded import free_port

PEERS = ROOT / "bench" / "peers"
WARMUP = 1.5


@dataclass
class Figures:
    rate: float  # answered commands per second
    p50: float
    p99: float
    cpu_us: float  # server CPU microseconds per command, every server part
    parts: dict[str, float]  # the same by part
    driver_us: float  # the load generator's own CPU microseconds per command (not in cpu_us)


def _cpu(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


class Peer:
    """One boardgame.io server process (server.js) with one storage."""

    def __init__(self, storage: str, data_dir: Path) -> None:
        self.port = free_port()
        self.storage = storage
        args = ["node", "server.js", str(self.port), storage]
        if storage == "flatfile":
            args.append(str(data_dir / "flatfile"))
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


def _pct(xs: list[float], p: float) -> float:
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def boardlog_run(stack: Stack | SkeletonStack, client: redis.Redis, fsync: str,
                 games: list[tuple[str, list[str], int]], seconds: float) -> Figures:
    client.config_set("appendfsync", fsync)
    r: LoadResult = run_load(stack.port, games, seconds, warmup=WARMUP, stack=stack)
    if r.errors:
        raise RuntimeError(f"{type(stack).__name__} {fsync}: {r.errors} commands not accepted")
    parts = {k: v for k, v in (r.cpu_us or {}).items() if k != "loadgen"}
    return Figures(r.rate, r.pct(50), r.pct(99), sum(parts.values()), parts, (r.cpu_us or {})["loadgen"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--games", type=int, default=10)
    # One worker process on a 2-core machine: every command of a game then meets that game's
    # cached match (two processes each see half of a game's commands and read the tail they
    # missed), and one dramatiq consumer polls instead of two. bench_spine, the two alternating:
    # 1,180 and 953 us of server CPU a command against 1,457 and 1,148 at 2 x 2 (bench/RESULTS.md).
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=4)
    args = ap.parse_args()
    if not (PEERS / "node_modules" / "boardgame.io").is_dir():
        raise SystemExit("bench/peers/node_modules is missing: run `make bench-peers` (npm ci) first")
    peers: dict[str, Peer] = {}
    with served_redis("bench-peers-", on_disk=True) as served:
        client = served.client
        games = make_games(EventStore(client, served.ns), args.games, 50)
        with Stack(served.server.url, served.ns, args.workers, args.threads, redis_pid=served.pid) as stack:
            skeleton = SkeletonStack(served.server.url, served.ns, args.threads, served.pid)
            inline = SkeletonStack(served.server.url, served.ns, args.threads, served.pid, inline=True)
            try:
                for storage in ("inmemory", "flatfile"):
                    peers[storage] = Peer(storage, served.tmp)
                got = alternate(stack, (skeleton, inline), client, peers, games, args)
            finally:
                skeleton.stop()
                inline.stop()
                for p in peers.values():
                    p.stop()
    report(got, args.rounds)


def alternate(stack: Stack, skeletons: tuple[SkeletonStack, SkeletonStack], client: redis.Redis,
              peers: dict[str, Peer], games: list[tuple[str, list[str], int]],
              args: argparse.Namespace) -> dict[str, list[Figures]]:
    """The six paths in rounds, the order turned by one each round; each round's figures."""
    skeleton, inline = skeletons
    paths: dict[str, Callable[[], Figures]] = {
        "boardlog everysec": lambda: boardlog_run(stack, client, "everysec", games, args.seconds),
        "skeleton everysec": lambda: boardlog_run(skeleton, client, "everysec", games, args.seconds),
        "inline everysec": lambda: boardlog_run(inline, client, "everysec", games, args.seconds),
        "boardlog always": lambda: boardlog_run(stack, client, "always", games, args.seconds),
        "bgio InMemory": lambda: peers["inmemory"].run(args.games, args.seconds),
        "bgio FlatFile": lambda: peers["flatfile"].run(args.games, args.seconds),
    }
    names = list(paths)
    got: dict[str, list[Figures]] = {n: [] for n in names}
    print(f"boardlog vs boardgame.io 0.50: {args.rounds} rounds x {args.seconds:g} s, {args.games} games, "
          f"boardlog {args.workers} worker processes x {args.threads} threads, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    for rnd in range(args.rounds):
        order = names[rnd % len(names):] + names[:rnd % len(names)]
        for n in order:
            f = paths[n]()
            got[n].append(f)
            print(f"  round {rnd + 1} {n:18} {f.rate:8,.0f} /s  p50 {f.p50:5.1f} ms  p99 {f.p99:5.1f} ms  "
                  f"server CPU {f.cpu_us:6,.0f} us/cmd  driver {f.driver_us:4,.0f}", flush=True)
    return got

def report(got: dict[str, list[Figures]], rounds: int) -> None:
    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    print("medians:")
    for n, fs in got.items():
        parts = ", ".join(f"{k} {med([f.parts[k] for f in fs]):,.0f}" for k in fs[0].parts)
        print(f"  {n:18} {med([f.rate for f in fs]):8,.0f} /s  p50 {med([f.p50 for f in fs]):5.1f} ms  "
              f"p99 {med([f.p99 for f in fs]):5.1f} ms  server CPU {med([f.cpu_us for f in fs]):6,.0f} us/cmd "
              f"({parts}); driver {med([f.driver_us for f in fs]):,.0f}")
    pairs = [("boardlog everysec", "bgio InMemory", 1.0), ("boardlog always", "bgio FlatFile", 10.0),
             ("boardlog everysec", "bgio FlatFile", None),
             ("skeleton everysec", "bgio InMemory", None), ("boardlog everysec", "skeleton everysec", None),
             ("inline everysec", "bgio InMemory", None)]
    print("ratios (each round's pair, then the median):")
    for a, b, target in pairs:
        rate = [got[a][i].rate / got[b][i].rate for i in range(rounds)]
        cpu = [got[b][i].cpu_us / got[a][i].cpu_us for i in range(rounds)]
        goal = f" (target >= {target:g}x)" if target else ""
        print(f"  {a} / {b}: rate {med(rate):.2f}x{goal} [{', '.join(f'{x:.2f}' for x in rate)}]; "
              f"commands per server CPU second {med(cpu):.2f}x [{', '.join(f'{x:.2f}' for x in cpu)}]")


if __name__ == "__main__":
    main()
