"""Cost per command at seq ~100 and at seq ~10,000, side by side: the command handler's CPU
(what a worker thread spends: pending and tail read, decide, append, settle) and Redis's CPU
(INFO cpu of the server, so it counts the scripts and reads the commands cause), for `commands`
notes on each of two race games, one short and one long, alternating rounds. CPU time, not wall
time, so the shared machine's load counts less; the ratio long/short is the figure.

Usage: .venv/bin/python -m bench.bench_flat [rounds] [commands a round]
"""

from __future__ import annotations

import logging
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import redis  # noqa: E402

from events.store.store import EventStore  # noqa: E402
from rules import catalog  # noqa: E402
from service.runtime.embedded import EmbeddedRedis  # noqa: E402
from service.runtime.logs import configure  # noqa: E402
from service.usecases.matches import create_match  # noqa: E402
from workers.commands import CommandHandler  # noqa: E402


def redis_cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def note(store: EventStore, handler: CommandHandler, gid: str) -> None:
    cid = uuid.uuid4().hex
    store.put_pending(gid, cid, {"type": "race.note", "args": {"text": cid[:8]}, "seat": 0, "expect": None})
    result = handler.handle(gid, cid)
    assert result is not None and result["status"] == "accepted", result


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    catalog.load(["tests.support.racegame"])
    configure("json", logging.WARNING)
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="boardlog-flat-")) / "redis", appendonly=True).start()
    client = redis.Redis.from_url(server.url)
    try:
        store = EventStore(client, "flat", partitions=8)
        handler = CommandHandler(store)
        games = {}
        for name, prefill in (("short", 50), ("long", 5000)):
            gid = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})["id"]
            for _ in range(prefill):
                note(store, handler, gid)
            games[name] = gid
        got: dict[str, list[tuple[float, float]]] = {"short": [], "long": []}
        seqs: dict[str, int] = {}
        for _ in range(rounds):
            for name, gid in games.items():
                seqs.setdefault(name, store.head(gid).seq)  # type: ignore[union-attr]
                r0, c0 = redis_cpu(client), time.process_time()
                for _ in range(n):
                    note(store, handler, gid)
                got[name].append(((time.process_time() - c0) / n * 1e6, (redis_cpu(client) - r0) / n * 1e6))
        med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for k, v in got.items()}
        print(f"cost per command, {rounds} rounds of {n} a game (medians, CPU us):")
        for name in games:
            h, r = med[name]
            print(f"  from seq ~{seqs[name]:,}: handler {h:,.0f}, Redis {r:,.0f}")
        print(f"  long/short: handler {med['long'][0] / med['short'][0]:.2f}, Redis {med['long'][1] / med['short'][1]:.2f}")
    finally:
        client.close()
        server.stop()


if __name__ == "__main__":
    main()
