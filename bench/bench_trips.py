"""Redis round trips a command, side by side: the HTTP `?wait=1` path of two or more checkouts of
this repository (a baseline first, then the trees under change), each on its own embedded Redis
with AOF `everysec` and then `always`, alternating A B A B ... so that the shared machine's swings
fall on all alike.

    python -m bench.bench_trips --trees /tmp/base /work/main --rounds 3 --seconds 5

With no --trees (as `make bench` runs it) it measures this checkout against itself.

Each round starts one process per tree (`--one`, run with that tree's own code on its path) that
makes 10 games, starts the stack (2 workers x 2 threads, projector, API), and measures both fsync
modes: commands/s, p99, CPU per command per part (psutil, user + system) and Redis's calls per
command by name (INFO commandstats), with the load average. The figures are medians over rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

_MODES = ("everysec", "always")


def _commandstats(client: Any) -> dict[str, int]:
    raw = client.info("commandstats")
    return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in raw.items()}


def one(seconds: float, games: int, workers: int, threads: int) -> dict[str, Any]:
    """This tree's figures (imported from the tree on the path, so each tree runs its own code)."""
    import redis

    from bench.bench_spine import Stack, make_games, run_load
    from events.store.store import EventStore
    from service.runtime.embedded import EmbeddedRedis

    tmp = Path(tempfile.mkdtemp(prefix="bench-trips-"))
    server = EmbeddedRedis(tmp / "redis", appendonly=True, fsync="everysec").start()
    client = redis.Redis.from_url(server.url)
    ns = f"b{uuid.uuid4().hex[:8]}"
    stack = None
    out: dict[str, Any] = {}
    try:
        made = make_games(EventStore(client, ns), games, 50)
        assert server.proc is not None
        stack = Stack(server.url, ns, workers, threads, redis_pid=server.proc.pid)
        for mode in _MODES:
            client.config_set("appendfsync", mode)
            before = _commandstats(client)
            load0 = os.getloadavg()[0]
            r = run_load(stack.port, made, seconds, warmup=1.0, stack=stack)
            after = _commandstats(client)
            if r.errors:
                raise RuntimeError(f"{mode}: {r.errors} commands not accepted")
            # The warm-up's commands are in these counts too: divide by the window's HSETNX calls (one
            # a queued command, the API's pending record), not by the measured commands.
            calls = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
            cpu = {k: v for k, v in (r.cpu_us or {}).items() if k != "loadgen"}
            out[mode] = {"rate": r.rate, "p50": r.pct(50), "p99": r.pct(99), "cpu": cpu,
                         "cpu_total": sum(cpu.values()), "calls": calls, "commands": r.commands,
                         "load": (load0 + os.getloadavg()[0]) / 2}
    finally:
        if stack is not None:
            stack.stop()
        client.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def inproc(commands: int, fsync: str) -> dict[str, Any]:
    """One worker thread's `CommandHandler.handle`, no HTTP and no broker, on a Redis with AOF
    `fsync`: per command, the time from the handler's start until its waiter's message arrives
    (a subscriber on the reply channel, as the API's is), the handler's CPU, and Redis's CPU."""
    import time

    import psutil
    import redis

    from bench.bench_spine import make_games
    from events.store.store import EventStore
    from service.runtime.embedded import EmbeddedRedis
    from workers.commands import CommandHandler

    tmp = Path(tempfile.mkdtemp(prefix="bench-trips-"))
    server = EmbeddedRedis(tmp / "redis", appendonly=True, fsync=fsync).start()
    client = redis.Redis.from_url(server.url)
    assert server.proc is not None
    rproc = psutil.Process(server.proc.pid)
    out: dict[str, Any] = {}
    try:
        store = EventStore(client, f"b{uuid.uuid4().hex[:8]}")
        gid, _, seat = make_games(store, 1, 50)[0]
        handler = CommandHandler(store)
        sub = client.pubsub()
        sub.subscribe("trips-reply")
        assert sub.get_message(timeout=2) is not None
        waits: list[float] = []
        cpu0, r0 = time.process_time(), rproc.cpu_times()
        for i in range(commands):
            cid = f"t{i}"
            store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": (seat + i) % 2, "expect": None,
                                         "reply": "trips-reply"})
            t0 = time.perf_counter()
            handler.handle(gid, cid)
            while True:
                m = sub.get_message(timeout=2)
                if m is None:
                    raise RuntimeError(f"no reply for {cid}")
                if m["type"] == "message":
                    break
            waits.append((time.perf_counter() - t0) * 1000)
        cpu1, r1 = time.process_time(), rproc.cpu_times()
        waits.sort()
        out = {"p50": waits[len(waits) // 2], "p90": waits[int(len(waits) * 0.9)],
               "cpu": (cpu1 - cpu0) * 1e6 / commands,
               "redis": (r1.user + r1.system - r0.user - r0.system) * 1e6 / commands,
               "load": os.getloadavg()[0]}
    finally:
        client.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _run_tree(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", "--seconds", str(args.seconds),
           "--inproc", str(args.inproc), "--fsync", args.fsync,
           "--games", str(args.games), "--workers", str(args.workers), "--threads", str(args.threads)]
    got = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if got.returncode != 0:
        raise RuntimeError(f"{tree}: {got.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(got.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", nargs="+", type=Path, help="the baseline first")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--inproc", type=int, default=0,
                    help="commands for the in-process run instead of the HTTP stack (0: the stack)")
    ap.add_argument("--fsync", choices=_MODES, default="always", help="the in-process run's appendfsync")
    ap.add_argument("--one", action="store_true", help="measure the tree on the path (used by --trees)")
    args = ap.parse_args()
    if args.one:
        got = inproc(args.inproc, args.fsync) if args.inproc else one(args.seconds, args.games, args.workers, args.threads)
        print(json.dumps(got))
        return
    if not args.trees:
        # `make bench` names no trees: this checkout against itself, an A/A run whose spread is
        # the machine's noise (what a real A/B difference must stand above).
        here = Path(__file__).resolve().parent.parent
        args.trees = [here, here]
        print("no --trees: this checkout against itself (an A/A run: the spread is the noise)", flush=True)
    if len(args.trees) < 2:
        raise SystemExit("name two trees or more: --trees BASELINE CHANGED...")
    names = [chr(ord("A") + i) for i in range(len(args.trees))]
    got: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    print(f"{', '.join(f'{n} = {t}' for n, t in zip(names, args.trees, strict=True))}; {args.rounds} rounds x "
          f"{args.seconds:g} s a mode, {args.games} games, {args.workers} workers x {args.threads} threads",
          flush=True)
    if args.inproc:
        _inproc_rounds(names, args)
        return
    for rnd in range(args.rounds):
        for name, tree in zip(names, args.trees, strict=True):
            f = _run_tree(tree, args)
            got[name].append(f)
            for mode in _MODES:
                m = f[mode]
                queued = m["calls"].get("hsetnx", 1)
                calls = ", ".join(f"{k} {v / queued:.2f}" for k, v in sorted(m["calls"].items()) if v / queued >= 0.05)
                print(f"  round {rnd + 1} {name} {mode:8} {m['rate']:7,.0f}/s p99 {m['p99']:6.1f} ms  CPU "
                      f"{m['cpu_total']:6,.0f} us/cmd ({', '.join(f'{k} {v:,.0f}' for k, v in m['cpu'].items())})"
                      f"  load {m['load']:.1f}  calls/cmd: {calls}", flush=True)
    print("medians (ratio to A; per-round ratios in brackets); load average over each round:")
    for mode in _MODES:
        def med(name: str, key: str, mode: str = mode) -> float:
            return statistics.median(f[mode][key] for f in got[name])

        for name in names:
            line = [f"  {mode:8} {name}"]
            for key in ("rate", "p99", "cpu_total"):
                a, b = med("A", key), med(name, key)
                per = ", ".join(f"{y[mode][key] / x[mode][key]:.2f}" for x, y in zip(got["A"], got[name], strict=True))
                line.append(f"{key} {b:,.1f} ({b / a:.2f}; [{per}])")
            line.append(" ".join(f"{part} {statistics.median(f[mode]['cpu'][part] for f in got[name]):,.0f}"
                                 for part in sorted(got[name][0][mode]["cpu"])))
            loads = ", ".join(f"{f[mode]['load']:.1f}" for f in got[name])
            line.append(f"load {loads}")
            print("; ".join(line))


def _inproc_rounds(names: list[str], args: argparse.Namespace) -> None:
    got: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    keys = ("p50", "p90", "cpu", "redis")
    for rnd in range(args.rounds):
        for name, tree in zip(names, args.trees, strict=True):
            f = _run_tree(tree, args)
            got[name].append(f)
            print(f"  round {rnd + 1} {name} handler start to reply: p50 {f['p50']:.2f} ms, p90 {f['p90']:.2f} ms; "
                  f"CPU a command: handler {f['cpu']:,.0f} us, Redis {f['redis']:,.0f} us; load {f['load']:.1f}",
                  flush=True)
    print("medians (ratio to A; per-round ratios in brackets):")
    for name in names:
        line = [f"  {name}"]
        for key in keys:
            a = statistics.median(f[key] for f in got["A"])
            b = statistics.median(f[key] for f in got[name])
            per = ", ".join(f"{y[key] / x[key]:.2f}" for x, y in zip(got["A"], got[name], strict=True))
            line.append(f"{key} {b:,.2f} ({b / a:.2f}; [{per}])")
        print("; ".join(line))


if __name__ == "__main__":
    main()
