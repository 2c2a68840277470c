"""One contract suite for EventStore, run against fakeredis and against a real Redis."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
import redis

from events.records.chain import genesis, seal, verify
from events.records.codec import canonical
from events.store.private import SeatPrivate
from events.store.store import EventStore
from rules.core import Event
from service.runtime.bootstrap import redis_client
from tests.support.records import prev_hash


# The real servers' params are `integration`; fakeredis needs none (so the URL is asked for lazily).
@pytest.fixture(params=[
    "fakeredis",
    pytest.param("redis", marks=pytest.mark.integration),
    pytest.param("cluster", marks=pytest.mark.integration),
])
def any_store(request: pytest.FixtureRequest) -> Iterator[EventStore]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    client: redis.Redis
    if request.param == "fakeredis":
        client = fakeredis.FakeRedis()
    elif request.param == "cluster":
        client = redis_client(request.getfixturevalue("cluster_url"))
    else:
        client = redis.Redis.from_url(request.getfixturevalue("redis_url"))
    yield EventStore(client, ns, partitions=4)
    for key in client.scan_iter(match=f"{ns}:*"):
        client.delete(key)
    client.close()


GID = "p02-0123456789ab"


def opening(store: EventStore, n: int = 3) -> list:  # type: ignore[type-arg]
    events = [Event("boardlog.GameCreated", {"game": "race", "i": 0})] + [
        Event("race.Thing", {"i": i}) for i in range(1, n)
    ]
    envs = seal(GID, 1, genesis(GID), events, None, "2026-11-29T00:00:00.000Z")
    res = store.create(GID, envs, "active", b"\x01" * 32, {"h": "seat:0"}, "2026-11-29T00:00:00.000Z")
    assert res.status == "ok" and res.seq == n
    return envs


def more(store: EventStore, after: int, prev: str, k: int, cid: str) -> list:  # type: ignore[type-arg]
    events = [Event("race.Thing", {"i": after + j}) for j in range(1, k + 1)]
    return seal(GID, after + 1, prev, events, cid, "2026-11-29T00:00:01.000Z")


def test_entry_ids_are_seq_dash_zero(any_store: EventStore) -> None:
    opening(any_store)
    ids = [i for i, _ in any_store.r.xrange(any_store.keys(GID).events)]
    assert ids == [b"1-0", b"2-0", b"3-0"]


def test_append_checks_the_expected_seq(any_store: EventStore) -> None:
    envs = opening(any_store)
    stale = more(any_store, 2, envs[1].hash, 1, "c1")
    res = any_store.append(GID, 2, stale, "c1", {"status": "accepted"})
    assert res.status == "conflict" and res.seq == 3
    assert len(any_store.read(GID)) == 3
    assert any_store.result(GID, "c1") is None


def test_append_is_all_or_nothing_and_announces_on_the_feed(any_store: EventStore) -> None:
    envs = opening(any_store)
    new = more(any_store, 3, envs[-1].hash, 4, "c1")
    res = any_store.append(GID, 3, new, "c1", {"status": "accepted", "seq": [4, 7]})
    assert res.status == "ok" and res.seq == 7
    got = any_store.read(GID)
    assert [e.seq for e in got] == list(range(1, 8)) and verify(got) is None
    head = any_store.head(GID)
    assert head is not None and (head.seq, head.hash, head.status) == (7, new[-1].hash, "active")
    feed = any_store.r.xrange(any_store.keys(GID).feed)
    assert [f[b"g"] for _, f in feed] == [GID.encode(), GID.encode()]


def test_a_command_id_applies_once(any_store: EventStore) -> None:
    envs = opening(any_store)
    new = more(any_store, 3, envs[-1].hash, 1, "c1")
    assert any_store.append(GID, 3, new, "c1", {"status": "accepted"}).status == "ok"
    again = more(any_store, 4, new[-1].hash, 1, "c1")
    res = any_store.append(GID, 4, again, "c1", {"status": "other"})
    assert res.status == "dup" and res.prior == {"status": "accepted"}
    assert len(any_store.read(GID)) == 4


def _subscribed(store: EventStore, channel: str) -> Any:
    sub = store.r.pubsub()
    sub.subscribe(channel)
    got = sub.get_message(timeout=2)
    assert got is not None and got["type"] == "subscribe"
    return sub


def test_an_append_given_its_reply_settles_the_command_in_the_same_script(any_store: EventStore) -> None:
    envs = opening(any_store)
    any_store.put_pending(GID, "c1", {"type": "race.roll", "args": {}, "seat": 0})
    any_store.put_pending(GID, "c2", {"type": "race.roll", "args": {}, "seat": 1})
    sub = _subscribed(any_store, "reply-chan")
    result = {"id": "c1", "status": "accepted", "seq": [4, 4]}
    new = more(any_store, 3, envs[-1].hash, 1, "c1")
    # A conflict settles nothing: the body stays for the retry, and nobody is told.
    assert any_store.append(GID, 2, new, "c1", result, "reply-chan").status == "conflict"
    assert any_store.pending(GID, "c1") is not None
    assert sub.get_message(timeout=0.2) is None
    assert any_store.append(GID, 3, new, "c1", result, "reply-chan").status == "ok"
    got = sub.get_message(timeout=2)
    assert got is not None and got["data"] == f"{GID} ".encode() + canonical(result)
    assert any_store.pending(GID, "c1") is None and any_store.result(GID, "c1") == result
    # No waiter (''): the body goes all the same, and no message is sent.
    nxt = more(any_store, 4, new[-1].hash, 1, "c2")
    assert any_store.append(GID, 4, nxt, "c2", {"id": "c2", "status": "accepted"}, "").status == "ok"
    assert any_store.pending(GID, "c2") is None
    assert sub.get_message(timeout=0.2) is None
    sub.close()


def test_an_append_says_whether_the_game_keeps_private_state(any_store: EventStore) -> None:
    envs = opening(any_store)
    first = more(any_store, 3, envs[-1].hash, 1, "c1")
    res = any_store.append(GID, 3, first, "c1", {"status": "accepted"})
    assert res.status == "ok" and res.private is False
    SeatPrivate(any_store).put(GID, 1, [{"then": "pass"}])
    second = more(any_store, 4, first[-1].hash, 1, "c2")
    res = any_store.append(GID, 4, second, "c2", {"status": "accepted"}, "")
    assert res.status == "ok" and res.private is True


def test_a_rejection_is_stored_once_and_not_overwritten(any_store: EventStore) -> None:
    opening(any_store)
    first = any_store.reject(GID, "c9", {"status": "rejected", "code": "a"})
    second = any_store.reject(GID, "c9", {"status": "rejected", "code": "b"})
    assert first == second == {"status": "rejected", "code": "a"}
    assert len(any_store.read(GID)) == 3


def test_range_reads(any_store: EventStore) -> None:
    opening(any_store, 6)
    assert [e.seq for e in any_store.read(GID, 2, 4)] == [2, 3, 4]
    assert [e.seq for e in any_store.read(GID, 5)] == [5, 6]
    assert any_store.read(GID, 4, 3) == []
    assert prev_hash(any_store, GID, 0) == genesis(GID)


def test_snapshots_are_found_at_or_before_a_seq(any_store: EventStore) -> None:
    opening(any_store)
    any_store.save_snapshot(GID, 2, {"at": 2})
    any_store.save_snapshot(GID, 5, {"at": 5})
    assert any_store.load_snapshot(GID, 1) is None
    assert any_store.load_snapshot(GID, 4) == (2, {"at": 2})
    assert any_store.load_snapshot(GID, 99) == (5, {"at": 5})


def test_a_snapshot_from_other_rules_is_ignored(any_store: EventStore) -> None:
    opening(any_store)
    any_store.save_snapshot(GID, 2, {"at": 2})
    any_store._fingerprint = b"\x00" * 16
    assert any_store.load_snapshot(GID, 3) is None


def test_read_models_keep_the_newest_checkpoint(any_store: EventStore) -> None:
    opening(any_store)
    assert any_store.project(GID, 3, 1000, {"summary": b"three"}, b"n")
    assert not any_store.project(GID, 2, 2000, {"summary": b"two"}, b"n")
    assert any_store.read_model(GID, "summary") == b"three"
    assert any_store.checkpoint(GID) == 3


def test_a_queued_command_is_read_with_the_tail_after_a_seq(any_store: EventStore) -> None:
    envs = opening(any_store, 5)
    any_store.put_pending(GID, "c7", {"type": "race.roll", "args": {}, "seat": 0})
    pending, answer, tail = any_store.pending_and_tail(GID, "c7", 3)
    assert pending == {"type": "race.roll", "args": {}, "seat": 0} and answer is None
    assert tail == envs[3:]
    assert any_store.pending_and_tail(GID, "nope", 5) == (None, None, [])
    assert any_store.pending_and_tail(GID, "c7", None) == (pending, None, [])
    any_store.reject(GID, "c7", {"status": "rejected"})
    assert any_store.pending_and_tail(GID, "c7", None) == (None, {"status": "rejected"}, [])
