"""Archived finished games: the swap of a game's stream, results and snapshots for one zstd
record (checked against the chain first), the reads that serve an archived game from that
record, and putting a game back when something is appended to it after all.

The record also keeps the folded match every `SNAPSHOT_EVERY` events (snapshot bytes, a cache
as in Redis, used only under the rules they were folded with). Only the first read of an
archived game in a process pays to decompress it: the unpacked records are kept in a bounded
cache (least recently used out) with the matches decoded or folded so far, so a view at any seq
folds fewer than `SNAPSHOT_EVERY` events.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol

import structlog
import zstandard

from events.domain.match import Match, fold_match
from events.records import archived, snapshot
from events.records.chain import verify
from events.records.codec import canonical
from events.records.envelope import Envelope
from events.records.snapshot import SnapshotError
from events.records.upcast import upcast
from events.store.entries import stored_all
from events.store.errors import reports_unavailable
from events.store.layout import GameKeys
from rules.core import Event


class EventStore(Protocol):
    """What the archive needs of the store (events.store.store imports this module)."""

    r: Any
    partitions: int
    archives: Archives

    def keys(self, gid: str) -> GameKeys: ...
    def ended(self, partition: int) -> str: ...
    def lua(self, source: str) -> Any: ...
    def fingerprint(self) -> bytes: ...
    def read(self, gid: str, start: int = 1, end: int | None = None) -> list[Envelope]: ...

log = structlog.get_logger("boardlog.archive")

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # the first bytes of a zstd frame (a JSON value starts with "{")
COMPRESS_AT = 1024  # read models this large are compressed when their game is archived
ARCHIVED = "archived"  # the meta field: "<head seq> <head hash>" while the game is archived
SNAPSHOT_EVERY = 500
# A game shorter than this keeps no snapshot in its record: a read folds at most this many events
# (10-20 ms of CPU in the shipped games), and a snapshot is ~1.7 KiB of a short game's record (3 B
# of its ~40 an event in a 600-event Dragon Dale game).
SHORT = 2 * SNAPSHOT_EVERY
CACHE_SIZE = 16


def _script(name: str) -> str:
    return resources.files("events.store").joinpath("lua", name).read_text()


ARCHIVE_LUA = _script("archive.lua")
RESTORE_LUA = _script("restore.lua")


LIVE_LEVEL = 3  # a live game's views are written on every projection: fast; archiving makes them 19
_local = threading.local()  # a zstd compressor is not to be shared between threads


def plain(value: bytes) -> bytes:
    """A read model's value as stored: decompressed when it was written compressed."""
    return zstandard.ZstdDecompressor().decompress(value) if value.startswith(ZSTD_MAGIC) else value


def packed_view(value: bytes) -> bytes:
    """A view as the projector stores it: zstd when it is large. A board view is JSON of many
    like cells, about 7 times smaller compressed (a Factions view 22.9 KB -> 3.1 KB, ~30 us to
    compress, ~10 us to read back): a live game's views were a quarter of its Redis bytes."""
    if len(value) < COMPRESS_AT:
        return value
    zc = getattr(_local, "zc", None)
    if zc is None:
        zc = _local.zc = zstandard.ZstdCompressor(level=LIVE_LEVEL)
    out: bytes = zc.compress(value)
    return out


def archived_head(value: bytes | str) -> tuple[int, str]:
    """The head seq and hash a meta `archived` value names."""
    text = value.decode() if isinstance(value, bytes) else value
    seq, _, digest = text.partition(" ")
    return int(seq), digest


@dataclass(slots=True)
class Loaded:
    """An unpacked record and the matches folded from it so far, by seq."""

    record: archived.Record
    matches: dict[int, Match] = field(default_factory=dict)
    # The record's snapshots, when they were made under these rules: (seq -> bytes, decoder).
    stored: dict[int, bytes] = field(default_factory=dict)
    decode: Callable[[bytes], Match] | None = None

    def match_at(self, at: int) -> Match:
        """The match after `at` events, folded from the nearest match kept or snapshot stored
        before it; the matches at each multiple of SNAPSHOT_EVERY on the way are kept."""
        rec = self.record
        base_seq = max((s for s in self.matches if s <= at), default=0)
        snap_seq = max((s for s in self.stored if s <= at), default=0)
        if snap_seq > base_seq and self.decode is not None:
            try:
                self.matches[snap_seq] = self.decode(self.stored[snap_seq])
                base_seq = snap_seq
            except SnapshotError:
                self.stored.pop(snap_seq)  # folded from the events instead
        match = self.matches.get(base_seq)
        seq = base_seq
        while seq < at:
            stop = min(at, (seq // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY)
            events = (Event(e.type, upcast(e.type, e.data), e.seat) for e in rec.events(seq, stop))
            match = fold_match(events, rec.game, match)
            seq = stop
            if seq % SNAPSHOT_EVERY == 0:
                self.matches[seq] = match
        if match is None:
            raise ValueError("seq starts at 1")
        return match


class Archives:
    """The archived games one store reads, unpacked once a process."""

    def __init__(self, store: EventStore, allowed: Callable[[str], bool], size: int = CACHE_SIZE) -> None:
        self.store = store
        self.allowed = allowed  # the classes a snapshot may make (the store's snapshot_classes)
        self.size = size
        self._items: OrderedDict[tuple[str, str], Loaded] = OrderedDict()
        self._lock = threading.Lock()
        self._archive = store.lua(ARCHIVE_LUA)
        self._restore = store.lua(RESTORE_LUA)

    # -- reads ----------------------------------------------------------------------------

    @reports_unavailable
    def load(self, gid: str) -> Loaded | None:
        """The game's unpacked record (None: it is not archived)."""
        k = self.store.keys(gid)
        value = self.store.r.hget(k.meta, ARCHIVED)
        if value is None:
            return None
        key = (gid, value.decode())
        item = self._items.get(key)
        if item is None:
            blob = self.store.r.get(k.archive)
            if blob is None:
                return None  # restored between the two reads
            item = self._loaded(archived.unpack(bytes(blob)))
        self._keep(key, item)
        return item

    def _keep(self, key: tuple[str, str], item: Loaded) -> None:
        with self._lock:  # the API reads from several threads
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def _loaded(self, rec: archived.Record) -> Loaded:
        if rec.fingerprint != self.store.fingerprint():
            return Loaded(rec)  # snapshots folded under other rules: fold from the events

        def decode(blob: bytes) -> Match:
            match: Match = snapshot.decode(blob, self.allowed)
            return match

        return Loaded(rec, stored=dict(rec.snapshots), decode=decode)

    def read(self, gid: str, start: int = 1, end: int | None = None) -> list[Envelope]:
        item = self.load(gid)
        if item is None:
            return []
        return item.record.envelopes(start, end)

    def snapshot(self, gid: str, at: int) -> tuple[int, Match] | None:
        item = self.load(gid)
        if item is None or at < 1:
            return None
        at = min(at, item.record.seq)
        return at, item.match_at(at)

    def result(self, gid: str, command_id: str) -> bytes | None:
        item = self.load(gid)
        return None if item is None else item.record.results.get(command_id)

    # -- the swap, and back ---------------------------------------------------------------

    @reports_unavailable
    def archive(self, gid: str) -> str:
        """Archive a game: "archived", or why not ("moved": it changed while its record was
        made; "archived before"; "no such game"). The record is unpacked again and every
        envelope and result compared with what Redis holds before the swap deletes anything;
        ValueError when they differ or the stored chain does not hold."""
        store = self.store
        k = store.keys(gid)
        # Not a transaction (a Cluster client's pipeline may not make one): what changes between
        # these reads and the swap makes the swap refuse (it checks the stream's and results' lengths).
        pipe = store.r.pipeline(transaction=False)
        pipe.xlen(k.events)
        pipe.hgetall(k.results)
        pipe.hget(k.meta, ARCHIVED)
        n, results, already = pipe.execute()
        if already is not None:
            store.r.zrem(k.ended, gid)
            return "archived before"
        if n == 0:
            return "no such game"
        envs = store.read(gid, 1, n)
        broken = verify(envs, gid)
        if broken is not None:
            raise ValueError(f"{gid}: not archived, the stored chain breaks at seq {broken.seq}: {broken.reason}")
        raw_results = {key.decode(): bytes(v) for key, v in results.items()}
        blob = archived.pack(gid, envs, raw_results, (store.fingerprint(), self._snapshots(gid, envs)))
        back = archived.unpack(blob)
        if [canonical(e.to_json()) for e in back.envelopes()] != [canonical(e.to_json()) for e in envs] \
                or back.results != raw_results:
            raise ValueError(f"{gid}: not archived, its record does not give back what is stored")
        head = f"{n} {envs[-1].hash}"
        got = self._archive(keys=[k.events, k.results, k.snap, k.snap + "idx", k.archive, k.meta, k.ended, k.rm],
                            args=[n, len(raw_results), blob, head, gid, *self._compressed_views(gid)])
        if got == 1:
            self._keep((gid, head), self._loaded(back))
            log.info("archive.done", game=gid, events=n, bytes=len(blob))
            return "archived"
        return "archived before" if got == 0 else "moved"

    def _compressed_views(self, gid: str) -> list[Any]:
        """The read models' checkpoint, then each large read model (the views) compressed, as
        archive.lua's arguments: a finished game's views are read now and then, not every second."""
        models = self.store.r.hgetall(self.store.keys(gid).rm)
        checkpoint = models.pop(b"checkpoint", None)
        if checkpoint is None:
            return []
        out: list[Any] = [checkpoint]
        zc = zstandard.ZstdCompressor(level=19)
        for name, value in models.items():
            if len(value) >= COMPRESS_AT and name != b"summary":
                # written at the live level by the projector: made smaller again, read seldom now
                out += [name, zc.compress(plain(value))]
        return out

    def _snapshots(self, gid: str, envs: Sequence[Envelope]) -> list[tuple[int, bytes]]:
        """The match folded at every SNAPSHOT_EVERY events, as snapshot bytes; none for a game
        whose fold fails or whose state the snapshot codec cannot write (reads fold it all)."""
        out: list[tuple[int, bytes]] = []
        match: Match | None = None
        if len(envs) < SHORT:
            return out
        try:
            for start in range(0, len(envs) - SNAPSHOT_EVERY, SNAPSHOT_EVERY):
                match = fold_match((e.event for e in envs[start:start + SNAPSHOT_EVERY]), gid, match)
                out.append((start + SNAPSHOT_EVERY, snapshot.encode(match)))
        except Exception as e:
            log.warning("archive.no_snapshots", game=gid, why=str(e))
            return []
        return out

    @reports_unavailable
    def restore(self, gid: str) -> bool:
        """Put an archived game's stream and results back; False when it was not archived."""
        k = self.store.keys(gid)
        value = self.store.r.hget(k.meta, ARCHIVED)
        item = self.load(gid)
        if item is None or value is None:
            return False
        entries = stored_all(item.record.envelopes())
        pairs: list[Any] = []
        for cid, raw in item.record.results.items():
            pairs += [cid, raw]
        got = self._restore(keys=[k.events, k.results, k.archive, k.meta], args=[value, len(entries), *entries, *pairs])
        log.info("archive.restored", game=gid, events=len(entries), done=bool(got))
        return True


def due(store: EventStore, after_ms: int, now_ms: int | None = None, count: int = 100) -> list[str]:
    """Games that ended at least `after_ms` ago and are not archived yet, oldest first."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    pipe = store.r.pipeline(transaction=False)
    for p in range(store.partitions):
        pipe.zrangebyscore(store.ended(p), "-inf", now_ms - after_ms, start=0, num=count)
    return [gid.decode() for rows in pipe.execute() for gid in rows]


def archive_due(store: EventStore, after_ms: int, now_ms: int | None = None) -> dict[str, int]:
    """Archive every game due; the counts by outcome. A game that moved is tried again after
    another `after_ms`; one whose record failed its check stays as it is, and is logged."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    counts: dict[str, int] = {}
    for gid in due(store, after_ms, now_ms):
        try:
            outcome = store.archives.archive(gid)
        except (ValueError, OverflowError, TypeError) as e:
            log.error("archive.refused", game=gid, why=str(e))
            outcome = "refused"
        k = store.keys(gid)
        if outcome == "moved":
            store.r.zadd(k.ended, {gid: now_ms})
        elif outcome != "archived":  # the swap itself takes an archived game off the list
            store.r.zrem(k.ended, gid)
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts

