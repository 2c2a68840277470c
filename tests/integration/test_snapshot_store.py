"""Snapshots in the store (events/store/store.py): the folded match stored as data and read
back equal; a snapshot that does not decode is a cache miss, and the match is folded from its
events instead."""

from __future__ import annotations

import uuid

import orjson
import pytest
import zstandard

from events.domain.match import fold_match
from events.records.snapshot import encode
from events.store.cache import MatchCache
from events.store.store import EventStore
from service.usecases.matches import create_match
from workers.commands import CommandHandler

pytestmark = pytest.mark.integration


def played(store: EventStore, commands: int = 6) -> str:
    gid: str = create_match(store, {"game": "race", "seats": ["ann", "bob"]})["id"]
    handler = CommandHandler(store)
    for _ in range(commands):
        cid = str(uuid.uuid4())
        store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": handler.cache.refresh(gid).match.state.prompt.seats[0]})
        assert (handler.handle(gid, cid) or {}).get("status") == "accepted"
    return gid


def test_a_snapshot_is_stored_as_data_and_read_back_equal(store: EventStore) -> None:
    gid = played(store)
    match = fold_match((e.event for e in store.read(gid)), gid)
    store.save_snapshot(gid, match.seq, match)
    blob = store.r.hget(store.keys(gid).snap, str(match.seq))
    body = zstandard.ZstdDecompressor().decompress(blob[len(store.fingerprint()):])  # zstd-compressed
    assert orjson.loads(body)["root"]  # JSON, not a pickle
    assert store.load_snapshot(gid, match.seq) == (match.seq, match)
    assert MatchCache(store).get(gid).match == match
    # A snapshot written before they were compressed (plain JSON) still reads.
    store.r.hset(store.keys(gid).snap, str(match.seq), store.fingerprint() + body)
    assert store.load_snapshot(gid, match.seq) == (match.seq, match)


@pytest.mark.parametrize("body", [
    b"\x80\x05\x95pickled",  # what an older tree stored
    b"{not json",
    encode({"any": "thing"}).replace(b'"v":2', b'"v":99'),
])
def test_a_snapshot_that_does_not_decode_is_a_cache_miss(store: EventStore, body: bytes) -> None:
    gid = played(store)
    match = fold_match((e.event for e in store.read(gid)), gid)
    store.save_snapshot(gid, match.seq, match)
    store.r.hset(store.keys(gid).snap, str(match.seq), store.fingerprint() + body)
    assert store.load_snapshot(gid, match.seq) is None
    assert MatchCache(store).get(gid).match == match  # folded from the events


def test_a_snapshot_whose_classes_changed_is_a_cache_miss(store: EventStore) -> None:
    gid = played(store)
    match = fold_match((e.event for e in store.read(gid)), gid)
    doc = orjson.loads(encode(match))
    for cls in doc["classes"]:
        if cls[0] == "tests.support.racegame:RaceState":
            cls[1] = [*cls[1], "added_since"]
    store.r.hset(store.keys(gid).snap, str(match.seq), store.fingerprint() + orjson.dumps(doc))
    store.r.zadd(store.keys(gid).snap + "idx", {str(match.seq): match.seq})
    assert store.load_snapshot(gid, match.seq) is None
    assert MatchCache(store).get(gid).match == match


def test_the_worker_snapshots_every_so_many_events_and_a_load_starts_there(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("workers.commands.SNAPSHOT_EVERY", 3)
    gid = played(store, commands=7)
    events = [e.event for e in store.read(gid)]
    snap = store.load_snapshot(gid, len(events))
    assert snap is not None
    seq, match = snap
    assert 3 < seq <= len(events) and seq // 3 == len(events) // 3
    assert match == fold_match(events[:seq], gid)
    assert MatchCache(store).get(gid).match == fold_match(events, gid)
