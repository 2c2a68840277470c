"""Memory per game: the Redis bytes a finished game keeps (its event stream, command results,
head, read models, snapshots, tokens) and the worker's cached match, for each game type played
to its end by seeded bots through the real store, command handler and projector; then the same
once the game is archived (its stream, results and snapshots swapped for one zstd record).

Usage: .venv/bin/python -m bench.bench_memory [games per type] [first seed] [game ...]
Redis figures are MEMORY USAGE of every key a game owns (SAMPLES 0: exact), on the embedded
redis-server with AOF; the cached match is tracemalloc's count of what folding it allocates
and keeps.
"""

from __future__ import annotations

import logging
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

# Run as a script, sys.path[0] is bench/: put the repository root there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import redis  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from events.domain.match import fold_match  # noqa: E402
from events.records.signing import Signer  # noqa: E402
from events.store.store import EventStore  # noqa: E402
from projections.projector import rebuild  # noqa: E402
from rules import catalog  # noqa: E402
from rules.core import Command  # noqa: E402
from service.runtime.embedded import EmbeddedRedis  # noqa: E402
from service.runtime.logs import configure  # noqa: E402
from service.usecases.matches import create_match  # noqa: E402
from tests.rite.bot import seeking  # noqa: E402
from workers.commands import CommandHandler  # noqa: E402

CASES: dict[str, tuple[dict[str, Any], int]] = {
    # game: (options, seats)
    "race": ({"target": 100}, 2),
    "rite": ({"factions": ["humans", "goblins"], "map": "premade"}, 2),
    "factions": ({"factions": ["zyan", "zermano"]}, 2),
    "dragondale": ({"tribes": ["vikings", "celts"]}, 2),
}
MAX_COMMANDS = 5000


def play(store: EventStore, handler: CommandHandler, game: str, seed: int) -> tuple[str, int, bool]:
    """One game from creation to its end (or MAX_COMMANDS); its id, commands, and whether it ended."""
    options, seats = CASES[game]
    gid = create_match(store, {"game": game, "seats": [f"s{i}" for i in range(seats)], "options": options})["id"]
    bot = random.Random(seed)
    policy = seeking() if game == "rite" else None
    for n in range(MAX_COMMANDS):
        match = handler.cache.get(gid).match
        if match.over:
            return gid, n, True
        assert match.prompt is not None
        seat = bot.choice(list(match.prompt.seats))
        legal = list(match.rules.legal_commands(match.state, seat))
        cmd: Command = policy(match.state, seat, legal, bot) if policy else bot.choice(legal)
        cid = uuid.uuid4().hex
        store.put_pending(gid, cid, {**cmd.to_json(), "expect": None})
        result = handler.handle(gid, cid)
        assert result is not None and result["status"] == "accepted", result
    return gid, MAX_COMMANDS, False


def key_kind(key: str, gid: str) -> str:
    rest = key.split(f":g:{gid}", 1)[1].lstrip(":")
    return {"snapidx": "snap", "rm": "read models"}.get(rest, rest)


def main() -> None:
    per_type = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    first_seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    only = sys.argv[3:] or list(CASES)  # some of the games only (a short game's fixed keys weigh more an event)
    catalog.load(["tests.support.racegame"])
    configure("json", logging.WARNING)  # no line a command
    tmp = Path(tempfile.mkdtemp(prefix="boardlog-mem-"))
    server = EmbeddedRedis(tmp / "redis", appendonly=True).start()
    client = redis.Redis.from_url(server.url)
    signer = Signer.of(Ed25519PrivateKey.generate())
    print(f"memory per finished game: {per_type} games a type, seeds from {first_seed}, embedded Redis with AOF")
    try:
        for game in (g for g in CASES if g in only):
            store = EventStore(client, f"mem{game}", partitions=8)
            handler = CommandHandler(store, signer=signer)  # receipts in the answers, as serve signs them
            played = []
            t0 = time.perf_counter()
            for i in range(per_type):
                played.append(play(store, handler, game, first_seed + i))
            seconds = time.perf_counter() - t0
            rebuild(store)  # every read model, as the projector leaves them
            totals, events, cached = [], [], []
            kinds: dict[str, list[int]] = defaultdict(list)
            for gid, _, _ in played:
                by_kind: dict[str, int] = defaultdict(int)
                for key in client.scan_iter(match=f"{store.ns}:*:g:{gid}*", count=1000):
                    k = key.decode()
                    by_kind[key_kind(k, gid)] += int(client.memory_usage(k, samples=0) or 0)
                totals.append(sum(by_kind.values()))
                for kind, size in by_kind.items():
                    kinds[kind].append(size)
                envs = store.read(gid)
                events.append(len(envs))
                tracemalloc.start()
                match = fold_match((e.event for e in envs), gid)
                cached.append(tracemalloc.get_traced_memory()[0])
                tracemalloc.stop()
                del match
            ended = sum(1 for _, _, done in played if done)
            cmds = [n for _, n, _ in played]
            med = statistics.median
            print(f"{game}: {ended}/{len(played)} ended, commands {med(cmds):,.0f}, events {med(events):,.0f} "
                  f"(medians; {seconds / max(1, sum(cmds)) * 1e6:,.0f} us a command through the handler)")
            print(f"  Redis per game {med(totals) / 1024:,.1f} KiB (runs: {', '.join(f'{t / 1024:,.1f}' for t in totals)}), "
                  f"{med(t / e for t, e in zip(totals, events, strict=True)):,.0f} B an event; by key: "
                  + ", ".join(f"{k} {med(v) / 1024:,.1f}" for k, v in sorted(kinds.items(), key=lambda kv: -med(kv[1]))))
            print(f"  worker's cached match {med(cached) / 1024:,.1f} KiB")
            archived: list[int] = []
            record: list[int] = []
            for gid, _, _ in played:
                assert store.archives.archive(gid) == "archived"
                sizes = {key.decode(): int(client.memory_usage(key, samples=0) or 0)
                         for key in client.scan_iter(match=f"{store.ns}:*:g:{gid}*", count=1000)}
                archived.append(sum(sizes.values()))
                record.append(sizes[store.keys(gid).archive])
            print(f"  archived: Redis per game {med(archived) / 1024:,.1f} KiB, "
                  f"{med(t / e for t, e in zip(archived, events, strict=True)):,.0f} B an event (the record alone "
                  f"{med(t / e for t, e in zip(record, events, strict=True)):,.1f} B an event; the rest is read models, "
                  "tokens, meta)")
            for key in client.scan_iter(match=f"{store.ns}:*", count=1000):
                client.delete(key)
    finally:
        client.close()
        server.stop()


if __name__ == "__main__":
    main()
