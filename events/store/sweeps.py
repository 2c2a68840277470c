"""What the sweeper drops (issue #42 item 6: storage that only players can grow).

- A refused command's answer: `reject.lua` lists each refusal in its partition's refused set
  by when; once older than the setting, the answer leaves the game's results hash (the same id
  may then be sent again and decided afresh). Accepted commands' answers are never listed: they
  stay with the log, and so does their idempotency.
- A game made with seats by name that no command ever reached: the API lists it in its
  partition's untouched set at creation with its opening seq; once older than the setting and
  still at that seq with nothing queued, every key of it goes, in one script. A game that moved
  leaves the set for good.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from importlib import resources

from events.store.errors import reports_unavailable
from events.store.layout import partition_of, refused_key, untouched_key
from events.store.store import EventStore, private_key


def _script(name: str) -> str:
    return resources.files("events.store").joinpath("lua", name).read_text()


DROP_REFUSED_LUA = _script("drop_refused.lua")
DROP_UNTOUCHED_LUA = _script("drop_untouched.lua")
BATCH = 200  # members a script handles at once: a sweep never holds Redis for long


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@reports_unavailable
def watch_untouched(store: EventStore, gid: str) -> None:
    """List a new game for removal if no command reaches it (`sweep_untouched`)."""
    seq = int(store.r.xlen(store.keys(gid).events))
    store.r.zadd(untouched_key(partition_of(gid), store.ns), {f"{gid} {seq}": _now_ms()})


def game_keys(store: EventStore, gid: str) -> list[str]:
    """Every key a game of its own holds, meta first (its partition's sets are not among them)."""
    k = store.keys(gid)
    return [k.meta, k.results, k.secret, k.auth, k.snap, k.snap + "idx", k.rm, private_key(k),
            k.base + ":audit", k.base + ":deadline"]


@reports_unavailable
def sweep_refused(store: EventStore, keep_seconds: float, partitions: Sequence[int] | None = None) -> int:
    """Drop the answers of commands refused more than `keep_seconds` ago (0: keep them, only
    unlist them after a day, so the set stays small); the number dropped."""
    keep = keep_seconds if keep_seconds > 0 else 86400.0
    before = _now_ms() - int(keep * 1000)
    script = store.lua(DROP_REFUSED_LUA)
    dropped = 0
    for p in range(store.partitions) if partitions is None else partitions:
        key = refused_key(p, store.ns)
        while True:
            members = [m.decode() for m in store.r.zrangebyscore(key, "-inf", before, start=0, num=BATCH)]
            if not members:
                break
            hashes: dict[str, int] = {}
            args: list[object] = [before, 1 if keep_seconds > 0 else 0]
            for m in members:
                gid = m.partition(" ")[0]
                args += [m, hashes.setdefault(store.keys(gid).results, len(hashes) + 2)]
            dropped += int(script(keys=[key, *hashes], args=args))
            if len(members) < BATCH:
                break
    return dropped


@reports_unavailable
def sweep_untouched(store: EventStore, after_seconds: float, partitions: Sequence[int] | None = None) -> int:
    """Remove the games made more than `after_seconds` ago that no command reached; the number
    removed (0 for `after_seconds` 0: never)."""
    if after_seconds <= 0:
        return 0
    before = _now_ms() - int(after_seconds * 1000)
    script = store.lua(DROP_UNTOUCHED_LUA)
    removed = 0
    for p in range(store.partitions) if partitions is None else partitions:
        key = untouched_key(p, store.ns)
        for raw in store.r.zrangebyscore(key, "-inf", before, start=0, num=BATCH):
            member = raw.decode()
            gid, _, seq = member.partition(" ")
            k = store.keys(gid)
            got = script(keys=[key, k.events, k.pending, k.lobby, k.archive, *game_keys(store, gid)],
                         args=[member, seq, gid])
            removed += int(got) == 1
    return removed
