"""The partitions' feeds as one consumer group follows them: reads, acknowledgements, claims of
a dead consumer's entries, and trims of what the group no longer needs.

Redis's own errors leave this module as the store's: `StoreUnavailable` when Redis is out of
reach (wait and read again: what was read and not acknowledged is delivered again), and
`GroupMissing` when the server lost its data (make the groups again).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ParamSpec, TypeVar

import redis

from events.store.errors import reaching_redis
from events.store.store import EventStore
from events.store.wire import Links, checked

# On a cluster the feeds are read without blocking: the pause after a round that found nothing.
CLUSTER_IDLE_MS = 20

# A feed entry as read: its feed, its entry id, and the game it names (None: an entry naming none).
Entry = tuple[str, Any, str | None]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _entry_order(entry_id: Any) -> tuple[int, int]:
    ms, _, n = (entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)).partition("-")
    return int(ms), int(n or 0)


class GroupMissing(Exception):
    """A feed or its consumer group is gone: the server restarted without its data (no AOF)."""


def _store_errors(method: Callable[_P, _R]) -> Callable[_P, _R]:
    @functools.wraps(method)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            with reaching_redis():
                return method(*args, **kwargs)
        except redis.ResponseError as e:
            if "NOGROUP" in str(e):
                raise GroupMissing(str(e)) from e
            raise

    return call


# A feed entry with this field asks for its game's projection at once: a reader is waiting for
# it (`?min_seq`, service/api/freshness.py). The projector skips its burst merge for that game.
URGENT = b"u"


def _entries(feed: str, rows: Iterable[tuple[Any, dict[bytes, bytes] | None]], urgent: set[str] | None) -> list[Entry]:
    out: list[Entry] = []
    for entry_id, fields in rows:
        if fields is None:
            continue  # claimed, but deleted from the stream meanwhile
        g = fields.get(b"g")
        gid = None if g is None else g.decode()
        if urgent is not None and gid is not None and URGENT in fields:
            urgent.add(gid)
        out.append((feed, entry_id, gid))
    return out


def _streams(reply: Any) -> list[tuple[bytes, Any]]:
    """A raw XREADGROUP reply's (feed, rows): RESP3 answers a map, RESP2 pairs, a timeout None."""
    if reply is None:
        return []
    if isinstance(reply, dict):
        return list(reply.items())
    return [(feed, rows) for feed, rows in reply]


def _rows(rows: Iterable[Any]) -> list[tuple[Any, dict[bytes, bytes] | None]]:
    """Raw stream rows [id, [field, value, ...]] as redis-py gives them: (id, {field: value})."""
    return [(entry_id, None if flat is None else dict(zip(flat[::2], flat[1::2], strict=True)))
            for entry_id, flat in rows]


class FeedGroup:
    """One consumer of a consumer group over every partition's feed."""

    def __init__(self, store: EventStore, group: str, consumer: str, start: str = "0", *,
                 urgent: bool = False) -> None:
        self.r: Any = store.r
        self.group = group
        # Where a new group begins: "0" (the projector: every entry still in the feed) or "$"
        # (the notifier: what happens from now on, not a deployment's past turns).
        self.start = start
        self.consumer = consumer
        self.feeds = [store.feed(p) for p in range(store.partitions)]
        self.cluster = isinstance(store.r, redis.RedisCluster)
        # Reads and acknowledgements go over the thread's raw link where the client allows one
        # (wire.py: no redis-py connection checkout, pipeline or reply callbacks).
        self._links = Links.for_client(store.r)
        # With `urgent` (the projector): the games whose entries read so far asked for their
        # projection at once (URGENT), taken out as they are projected. Other groups ignore them.
        self.urgent: set[str] = set()
        self._urgent = self.urgent if urgent else None

    @_store_errors
    def ensure(self) -> None:
        """Create the group on every feed (and the feed), if not there yet."""
        for feed in self.feeds:
            try:
                self.r.xgroup_create(feed, self.group, id=self.start, mkstream=True)
            except redis.ResponseError as e:
                if "BUSYGROUP" not in str(e):
                    raise

    @_store_errors
    def read(self, block_ms: int, count: int) -> list[Entry]:
        """New entries of every feed, up to `count` a feed, waiting up to `block_ms` for one."""
        if self._links is not None:
            reply = checked(self._links.run([("XREADGROUP", "GROUP", self.group, self.consumer, "COUNT", count,
                                              "BLOCK", block_ms, "STREAMS", *self.feeds, *([">"] * len(self.feeds)))]))[0]
            return [e for feed, rows in _streams(reply) for e in _entries(feed.decode(), _rows(rows), self._urgent)]
        if not self.cluster:
            resp = self.r.xreadgroup(
                self.group, self.consumer, dict.fromkeys(self.feeds, ">"), count=count, block=block_ms
            )
            return [e for feed, rows in (resp or []) for e in _entries(feed.decode(), rows, self._urgent)]
        # On a cluster each feed lives in its own slot, and one XREADGROUP cannot name keys in
        # several slots: read every feed without blocking in one pipeline (one call per node),
        # and pause when all were empty.
        pipe = self.r.pipeline(transaction=False)
        for feed in self.feeds:
            pipe.xreadgroup(self.group, self.consumer, {feed: ">"}, count=count)
        out = [e for resp in pipe.execute() for feed, rows in (resp or [])
               for e in _entries(feed.decode(), rows, self._urgent)]
        if not out:
            time.sleep(min(block_ms, CLUSTER_IDLE_MS) / 1000)
        return out

    @_store_errors
    def claim(self, feed: str, cursor: Any, idle_ms: int, count: int) -> tuple[Any, list[Entry]]:
        """Take over up to `count` entries of `feed` that another consumer read `idle_ms` ago or
        more and never acknowledged, from `cursor` ("0-0" to start); the next cursor (None: the
        whole feed was looked at) and the entries."""
        res = self.r.xautoclaim(feed, self.group, self.consumer, idle_ms, cursor, count=count)
        nxt, claimed = res[0], res[1]
        return (None if nxt in (b"0-0", "0-0") else nxt), _entries(feed, claimed, self._urgent)

    @_store_errors
    def ack(self, entries: Sequence[tuple[str, Any]]) -> None:
        """Acknowledge (feed, entry id) pairs, in one round trip."""
        if not entries:
            return
        if self._links is not None:
            checked(self._links.run([("XACK", feed, self.group, entry_id) for feed, entry_id in entries]))
            return
        pipe = self.r.pipeline(transaction=False)
        for feed, entry_id in entries:
            pipe.xack(feed, self.group, entry_id)
        pipe.execute()

    @_store_errors
    def trim(self) -> int:
        """Drop the feed entries below the group's oldest unacknowledged one (or, with none,
        below its last delivered one); how many feeds were trimmed."""
        pipe = self.r.pipeline(transaction=False)
        for feed in self.feeds:
            pipe.xinfo_groups(feed)
            pipe.xpending(feed, self.group)
        replies = pipe.execute(raise_on_error=False)
        pipe = self.r.pipeline(transaction=False)
        n = 0
        for i, feed in enumerate(self.feeds):
            groups, pending = replies[2 * i], replies[2 * i + 1]
            if isinstance(groups, Exception) or isinstance(pending, Exception):
                continue  # no feed or no group yet
            ours = [g for g in groups if g["name"] in (self.group, self.group.encode())]
            if not ours:
                continue
            bound = pending["min"] if pending["pending"] else ours[0]["last-delivered-id"]
            # Another group on the feed (the notifier's) may be behind this one: keep what it
            # has not read yet, and trim nothing while it holds entries unacknowledged.
            others = [g for g in groups if g is not ours[0]]
            if any(g["pending"] for g in others):
                continue
            for g in others:
                bound = min(bound, g["last-delivered-id"], key=_entry_order)
            if bound in (b"0-0", "0-0"):
                continue
            pipe.xtrim(feed, minid=bound, approximate=False)
            n += 1
        pipe.execute()
        return n
