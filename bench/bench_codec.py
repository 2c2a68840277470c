"""The stream entry codec, chosen by measurement: the same envelopes (one game of each type,
played to its end by seeded bots through the real store) written as today's canonical JSON, as
orjson with short keys (no game, seq or prev), as msgpack and as msgspec MessagePack rows, each
by value size, Redis bytes an entry (MEMORY USAGE of a stream of them), and CPU time to encode
and decode (process time, best of 5 passes, so a shared machine's load counts less).

Usage: .venv/bin/python -m bench.bench_codec [first seed]
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import msgpack  # type: ignore[import-untyped]  # noqa: E402
import orjson  # noqa: E402
import redis  # noqa: E402

from bench.bench_memory import play  # noqa: E402
from events.records import compact  # noqa: E402
from events.records.codec import canonical  # noqa: E402
from events.records.envelope import Envelope  # noqa: E402
from events.store.entries import stored_all  # noqa: E402
from events.store.store import EventStore  # noqa: E402
from rules import catalog  # noqa: E402
from service.runtime.embedded import EmbeddedRedis  # noqa: E402
from service.runtime.logs import configure  # noqa: E402
from workers.commands import CommandHandler  # noqa: E402

GAMES = ("rite", "factions", "dragondale")


def short_keys(e: Envelope) -> bytes:
    return orjson.dumps({"t": e.type, "d": e.data, "s": e.seat, "c": e.command, "a": e.at, "h": e.hash})


def msgpack_rows(envs: list[Envelope]) -> list[bytes]:
    return [msgpack.packb(compact.row(e, envs[i - 1] if i else None)) for i, e in enumerate(envs)]


CODECS: dict[str, tuple[Callable[[list[Envelope]], list[bytes]], Callable[[bytes], Any]]] = {
    "canonical JSON (before)": (lambda envs: [canonical(e.to_json()) for e in envs], orjson.loads),
    "orjson, short keys": (lambda envs: [short_keys(e) for e in envs], orjson.loads),
    "msgpack rows": (msgpack_rows, msgpack.unpackb),
    "msgspec rows (chosen)": (stored_all, compact.decode_row),
}


def best(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(5):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times) / n * 1e6


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    catalog.load(["tests.support.racegame"])
    configure("json", logging.WARNING)
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="boardlog-codec-")) / "redis", appendonly=False).start()
    client = redis.Redis.from_url(server.url)
    print(f"stream entry codecs: one game a type (seed {seed}); CPU is process time, best of 5 passes")
    try:
        for game in GAMES:
            store = EventStore(client, f"codec{game}", partitions=8)
            gid, _, _ = play(store, CommandHandler(store), game, seed)
            envs = store.read(gid)
            print(f"{game}: {len(envs):,} events")
            for name, (enc, dec) in CODECS.items():
                values = enc(envs)
                key = f"codecbench:{game}:{name}"
                pipe = client.pipeline(transaction=False)
                for i, v in enumerate(values):
                    pipe.xadd(key, {"e": v}, id=f"{i + 1}-0")
                pipe.execute()
                per_entry = (client.memory_usage(key, samples=0) or 0) / len(values)
                client.delete(key)
                e_us = best(lambda enc=enc, envs=envs: enc(envs), len(envs))  # type: ignore[misc]
                d_us = best(lambda dec=dec, values=values: [dec(v) for v in values], len(values))  # type: ignore[misc]
                print(f"  {name:26s} value {sum(map(len, values)) / len(values):6.1f} B, Redis {per_entry:6.1f} B an entry, "
                      f"encode {e_us:5.2f} us, decode {d_us:5.2f} us")
            for key in client.scan_iter(match=f"{store.ns}:*", count=1000):
                client.delete(key)
    finally:
        client.close()
        server.stop()


if __name__ == "__main__":
    main()
