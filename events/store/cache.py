"""Folded matches kept in memory by game id, caught up from the stream tail on demand."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from events.domain.match import Match, fold_match
from events.records.envelope import Envelope
from events.store.store import EventStore

K = TypeVar("K")
V = TypeVar("V")


@dataclass(slots=True)
class Loaded:
    match: Match
    hash: str
    at: str = ""  # when the last folded event was written, when known


class MatchCache:
    """Folded matches by game id, least recently used first out; refreshed from the stream tail."""

    def __init__(self, store: EventStore, size: int = 2048) -> None:
        self.store = store
        self.size = size
        self._items: OrderedDict[str, Loaded] = OrderedDict()

    def get(self, gid: str) -> Loaded:
        item = self._items.get(gid)
        if item is None:
            item = self._load(gid)
        self._put(gid, item)
        return item

    def refresh(self, gid: str) -> Loaded:
        """Catch the cached match up with events appended by someone else."""
        item = self._items.get(gid) or self._load(gid)
        return self.catch_up(gid, item, self.store.read(gid, item.match.seq + 1))

    def peek(self, gid: str) -> Loaded | None:
        """The cached match, if any, without loading or refreshing it."""
        return self._items.get(gid)

    def catch_up(self, gid: str, item: Loaded, tail: Sequence[Envelope]) -> Loaded:
        """Fold events read after the cached match (`tail` starts at its seq + 1) into it."""
        if tail:
            item = Loaded(fold_match((e.event for e in tail), gid, item.match), tail[-1].hash, tail[-1].at)
        self._put(gid, item)
        return item

    def put(self, gid: str, item: Loaded) -> None:
        self._put(gid, item)

    def _put(self, gid: str, item: Loaded) -> None:
        self._items[gid] = item
        self._items.move_to_end(gid)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def _load(self, gid: str) -> Loaded:
        head = self.store.head(gid)
        if head is None:
            raise KeyError(gid)
        snap = self.store.load_snapshot(gid, head.seq)
        base: Match | None = None
        start = 1
        if snap is not None:
            start, base = snap[0] + 1, snap[1]
        tail = self.store.read(gid, start)
        if base is None:
            match = fold_match((e.event for e in tail), gid)
        else:
            match = fold_match((e.event for e in tail), gid, base)
        if tail:
            return Loaded(match, tail[-1].hash, tail[-1].at)
        last = self.store.read(gid, match.seq, match.seq)[0]
        return Loaded(match, last.hash, last.at)

    def drop(self, gid: str) -> None:
        self._items.pop(gid, None)


class Memo(Generic[K, V]):
    """What a long-running part reads once a game and may read again: the `size` keys used last,
    least recently used first out, so that a deployment of 100,000 games does not keep one entry
    for each in every process."""

    def __init__(self, load: Callable[[K], V], size: int = 4096) -> None:
        self.load = load
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __call__(self, key: K) -> V:
        try:
            value = self._items[key]
        except KeyError:
            value = self._items[key] = self.load(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        return value

    def __len__(self) -> int:
        return len(self._items)
