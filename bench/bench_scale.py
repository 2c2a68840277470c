"""Capacity: many finished, archived games of mixed types in one Redis, and the lobby over them.

`played` games of each type are played to their end by seeded bots through the real store,
command handler and projector (two seats each, the lengths bench_memory and the soaks see) and
archived by the real archiver. The lobby is then filled to `total` games by copying those games'
keys (DUMP and RESTORE: the archive record, read models, meta, tokens, seed, lobby entry) under
new game ids, round robin over the played ones: the copies are byte for byte the played games'
keys, so Redis's memory for them is exact, though a copy's record names the game it was copied
from (it is a memory figure, not a valid record of its new id).

Prints Redis's used_memory before and after (INFO), the bytes a game by type, the figure for
100,000 games extrapolated linearly from the bytes a game (every key of a game is a fixed size
once it is archived; only the lobby's sorted sets and Redis's key table grow with the count,
and they are inside the per-game figure), and the lobby's page times at that size (the API's own
`lobby_rows`, medians of 20, wall and CPU).

Usage: .venv/bin/python -m bench.bench_scale [played per type] [total games] [--no-receipts]
"""

from __future__ import annotations

import logging
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import redis  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from bench.bench_memory import play  # noqa: E402
from events.records.signing import Signer  # noqa: E402
from events.store.layout import new_game_id  # noqa: E402
from events.store.store import EventStore  # noqa: E402
from projections.lobby import lobby_rows  # noqa: E402
from projections.projector import rebuild  # noqa: E402
from rules import catalog  # noqa: E402
from service.runtime.embedded import EmbeddedRedis  # noqa: E402
from service.runtime.logs import configure  # noqa: E402
from workers.commands import CommandHandler  # noqa: E402

TYPES = ("rite", "factions", "dragondale")
PARTITIONS = 64


def game_keys(client: redis.Redis, store: EventStore, gid: str) -> list[str]:
    return [k.decode() for k in client.scan_iter(match=f"{store.ns}:*:g:{gid}:*", count=1000)]


def used(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


def timed(fn: Any, n: int = 20) -> str:
    walls, cpus = [], []
    for _ in range(n):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - w) * 1000)
        cpus.append((time.process_time() - c) * 1000)
    return f"{statistics.median(walls):.2f} ms wall / {statistics.median(cpus):.2f} ms CPU (max {max(walls):.1f} wall)"


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    per_type = int(args[0]) if args else 8
    total = int(args[1]) if len(args) > 1 else 10_000
    catalog.load([])
    configure("json", logging.WARNING)
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="boardlog-scale-")) / "redis", appendonly=False).start()
    client = redis.Redis.from_url(server.url)
    try:
        store = EventStore(client, "scale", partitions=PARTITIONS)
        # Receipts in the answers as serve signs them, unless told not to (the figure without them).
        signer = None if "--no-receipts" in sys.argv else Signer.of(Ed25519PrivateKey.generate())
        handler = CommandHandler(store, signer=signer)
        base = used(client)
        t0 = time.perf_counter()
        played: list[tuple[str, str, int]] = []  # (type, gid, events)
        for game in TYPES:
            for seed in range(1, per_type + 1):
                gid, _, ended = play(store, handler, game, seed)
                assert ended, (game, seed)
                played.append((game, gid, store.head(gid).seq))  # type: ignore[union-attr]
        rebuild(store)
        for _, gid, _ in played:
            assert store.archives.archive(gid) == "archived"
        print(f"played and archived {len(played)} games ({per_type} a type, "
              f"{'no receipts' if signer is None else 'answers with signed receipts'}) in {time.perf_counter() - t0:.0f} s")
        size: dict[str, list[int]] = defaultdict(list)
        for game, gid, _ in played:
            size[game].append(sum(int(client.memory_usage(k, samples=0) or 0) for k in game_keys(client, store, gid)))
        for game in TYPES:
            ev = [e for g, _, e in played if g == game]
            print(f"  {game}: events median {statistics.median(ev):,.0f} (from {min(ev):,} to {max(ev):,}), "
                  f"archived keys {statistics.median(size[game]) / 1024:.1f} KiB a game (median; MEMORY USAGE)")
        # Fill to `total` with copies of the played games' keys under new ids.
        t0 = time.perf_counter()
        dumps = []
        for _, gid, _ in played:
            score = client.zscore(store.keys(gid).lobby, gid)
            dumps.append((gid, [(k, client.dump(k)) for k in game_keys(client, store, gid)], score))
        for i in range(total - len(played)):
            gid, dumped, score = dumps[i % len(dumps)]
            new = new_game_id(PARTITIONS)
            new_keys = store.keys(new)
            pipe = client.pipeline(transaction=False)
            for k, blob in dumped:
                suffix = k.split(f":g:{gid}:", 1)[1]
                assert blob is not None
                pipe.restore(f"{new_keys.base}:{suffix}", 0, blob)
            pipe.zadd(new_keys.lobby, {new: (score or 0) - i})
            pipe.execute()
        after = used(client)
        n = client.zcard(store.keys(played[0][1]).lobby)
        lobby_total = sum(client.zcard(store.lobby(p)) for p in range(PARTITIONS))
        assert lobby_total == total, lobby_total
        per_game = (after - base) / total
        print(f"filled to {total:,} games in {time.perf_counter() - t0:.0f} s; used_memory {base / 2**20:.1f} MiB "
              f"-> {after / 2**20:,.1f} MiB: {per_game / 1024:.1f} KiB a game (mixed, {len(played) // len(TYPES)} "
              f"of each type played; a partition's lobby holds ~{n:,})")
        print(f"  100,000 games: {(base + per_game * 100_000) / 2**30:.2f} GiB (linear: base + 100,000 x the bytes a "
              f"game; target <= 8 GiB)")
        fresh = EventStore(client, "scale", partitions=PARTITIONS)
        first, nxt = lobby_rows(fresh, 50)
        assert len(first) == 50 and nxt is not None
        deep = nxt
        for _ in range(20):  # twenty pages in
            _, deep = lobby_rows(fresh, 50, cursor=deep)  # type: ignore[assignment]
        print(f"  lobby at {total:,} games, 50 a page: first page {timed(lambda: lobby_rows(fresh, 50))}")
        print(f"    page 21: {timed(lambda: lobby_rows(fresh, 50, cursor=deep))}")
        print(f"    finished factions games only: {timed(lambda: lobby_rows(fresh, 50, 'finished', 'factions'))}")
    finally:
        client.close()
        server.stop()


if __name__ == "__main__":
    main()
