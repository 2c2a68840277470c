"""Reads of an archived game: a Rite game of 10,000+ events played to its end by the seeking bots
through the real store and command handler, archived, then viewed at random seqs by a store
with an empty cache (a fresh process): the first read (GET the record, unpack it, fold to the
seq from the record's nearest snapshot) and the reads after it (folded from the nearest match
kept in memory), in wall and CPU time; the same views of the live game from its Redis
snapshots beside them; and the record's bytes an event.

Usage: .venv/bin/python -m bench.bench_archive [rounds] [first seed]
"""

from __future__ import annotations

import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import redis  # noqa: E402

from bench.bench_memory import play  # noqa: E402
from events.store.store import EventStore  # noqa: E402
from projections.replay import replay  # noqa: E402
from rules import catalog  # noqa: E402
from service.runtime.embedded import EmbeddedRedis  # noqa: E402
from service.runtime.logs import configure  # noqa: E402
from workers.commands import CommandHandler  # noqa: E402

MIN_EVENTS = 10_000


def timed(fn: object) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()  # type: ignore[operator]
    return (time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    catalog.load([])
    configure("json", logging.WARNING)
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="boardlog-archive-")) / "redis", appendonly=False).start()
    client = redis.Redis.from_url(server.url)
    try:
        store = EventStore(client, "benchar", partitions=8)
        handler = CommandHandler(store)
        while True:
            gid, commands, ended = play(store, handler, "rite", seed)
            head = store.head(gid)
            assert head is not None
            if ended and head.seq >= MIN_EVENTS:
                break
            seed += 1
        n = head.seq
        rng = random.Random(7)
        seqs = [rng.randint(1, n) for _ in range(20)]
        live = [timed(lambda s=s: replay(store, gid, s, 0))[0] for s in seqs]
        t0 = time.process_time()
        assert store.archives.archive(gid) == "archived"
        pack_cpu = time.process_time() - t0
        blob = client.strlen(store.keys(gid).archive)
        print(f"archived Rite game: seed {seed}, {commands:,} commands, {n:,} events; record {blob:,} B "
              f"({blob / n:.1f} B an event), made and checked in {pack_cpu:.2f} s of CPU")
        first_head, first_any, after = [], [], []
        for r in range(rounds):
            fresh = EventStore(client, "benchar", partitions=8)  # an empty cache: a new process
            first_head.append(timed(lambda fresh=fresh: replay(fresh, gid, n, 0)))
            fresh = EventStore(client, "benchar", partitions=8)
            at = seqs[r % len(seqs)]
            first_any.append(timed(lambda fresh=fresh, at=at: replay(fresh, gid, at, 0)))
            after += [timed(lambda fresh=fresh, s=s: replay(fresh, gid, s, 0)) for s in seqs]

        def fmt(xs: list[tuple[float, float]]) -> str:
            walls, cpus = [x[0] for x in xs], [x[1] for x in xs]
            return (f"median {statistics.median(walls):.1f} ms wall / {statistics.median(cpus):.1f} ms CPU, "
                    f"max {max(walls):.1f} ms wall")

        print(f"  first read, view at the head: {fmt(first_head)}  (target < 50 ms)")
        print(f"  first read, view at a random seq: {fmt(first_any)}")
        print(f"  after the first read, views at 20 random seqs x {rounds}: {fmt(after)}  (target < 20 ms)")
        print(f"  the live game's views at the same seqs, from its Redis snapshots: median {statistics.median(live):.1f} ms")
        for key in client.scan_iter(match="benchar:*", count=1000):
            client.delete(key)
    finally:
        client.close()
        server.stop()


if __name__ == "__main__":
    main()
