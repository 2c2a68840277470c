"""The API's async store facade (events/store/aiostore.py) on a plain Redis (raw batches) and
on a Redis Cluster (redis-py's pipeline): the same answers from both."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
import redis

from events.store.aiostore import AsyncStore, BoardRead, CommandHead
from events.store.archive import plain
from events.store.feed import URGENT
from events.store.store import EventStore
from events.store.wire import Batch
from projections.projector import Projector
from projections.readmodels import view_field
from service.runtime.bootstrap import async_redis_client, redis_client
from service.usecases.matches import create_match, token_digest
from workers.commands import CommandHandler

pytestmark = pytest.mark.integration


@pytest.fixture(params=["plain", "cluster"])
def url(request: pytest.FixtureRequest, redis_url: str) -> str:
    return str(request.getfixturevalue("cluster_url")) if request.param == "cluster" else redis_url


@pytest.fixture
def store(url: str) -> Iterator[EventStore]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    client = redis_client(url)
    yield EventStore(client, ns, partitions=8)
    for k in list(client.scan_iter(match=f"{ns}:*", count=1000)):
        client.delete(k)
    client.close()


def facade_run(url: str, store: EventStore, test: object) -> None:
    async def go() -> None:
        aio = async_redis_client(url)
        cluster = url.startswith("redis+cluster://")
        if cluster:
            await aio.initialize()
        batch = None if cluster else Batch(aio)
        try:
            await test(AsyncStore(aio, store.keys, batch))  # type: ignore[operator]
        finally:
            if batch is not None:
                await batch.close()
            await aio.aclose()

    asyncio.run(go())


def test_the_command_head_names_the_game_the_role_and_the_answer(url: str, store: EventStore) -> None:
    game = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 50}})
    gid, seat1, admin = game["id"], game["seats"][1]["token"], game["admin_token"]
    head = store.head(gid)
    assert head is not None
    store.r.hset(store.keys(gid).results, "c1", b'{"status":"accepted"}')

    async def check(reads: AsyncStore) -> None:
        assert await reads.head(gid, token_digest(seat1), "c1") == CommandHead(
            head.seq, "active", "race", b"seat:1", b'{"status":"accepted"}')
        assert await reads.head(gid, token_digest(admin), "") == CommandHead(head.seq, "active", "race", b"admin", None)
        assert (await reads.head(gid, token_digest("nobody's"), "c2")).role is None
        assert (await reads.head("p03-000000000000", token_digest(seat1), "")).status is None
        assert await reads.exists(gid) and not await reads.exists("p03-000000000000")
        assert await reads.role(gid, token_digest(seat1)) == b"seat:1"
        assert await reads.result(gid, "c1") == b'{"status":"accepted"}' and await reads.result(gid, "c2") is None
        assert await reads.answered(gid, "c1") and not await reads.answered(gid, "c2")
        assert not await reads.queued(gid, "c1")

    facade_run(url, store, check)


def _projected_game(store: EventStore) -> tuple[str, list[str], str, int]:
    """A race game with one move, projected: its id, seat tokens, admin token and head seq."""
    game = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1000}})
    gid = game["id"]
    store.put_pending(gid, "m1", {"type": "race.roll", "args": {}, "seat": 0, "expect": None})
    CommandHandler(store).handle(gid, "m1")
    projector = Projector(store, consumer=f"c{uuid.uuid4().hex[:8]}", block_ms=50)
    projector.ensure_groups()
    head = store.head(gid)
    assert head is not None
    for _ in range(20):
        projector.step()
        if store.stored_summary(gid)[0] == head.seq:
            break
    assert store.stored_summary(gid)[0] == head.seq
    return gid, [s["token"] for s in game["seats"]], game["admin_token"], head.seq


def test_a_board_read_names_the_game_the_role_the_progress_and_the_seats_view(url: str, store: EventStore) -> None:
    gid, tokens, admin, seq = _projected_game(store)
    rm = store.keys(gid).rm

    def stored(field: str) -> bytes:
        raw = store.r.hget(rm, field)
        assert raw is not None
        return plain(bytes(raw))

    async def check(reads: AsyncStore) -> None:
        assert await reads.progress(gid) == (seq, seq)
        assert await reads.board("p03-000000000000", token_digest(tokens[0])) == BoardRead(False, None, 0, 0, "", None)
        assert await reads.board(gid, token_digest(tokens[1])) == BoardRead(
            True, b"seat:1", seq, seq, view_field(1), stored(view_field(1)))
        assert await reads.board(gid, "") == BoardRead(True, None, seq, seq, view_field(None), stored(view_field(None)))
        assert await reads.board(gid, token_digest(admin)) == BoardRead(
            True, b"admin", seq, seq, view_field(None), stored(view_field(None)))
        assert await reads.board(gid, token_digest("nobody's")) == BoardRead(
            True, None, seq, seq, view_field(None), stored(view_field(None)))

    facade_run(url, store, check)


def test_a_board_read_loads_its_script_where_the_server_has_lost_it(url: str, store: EventStore) -> None:
    """After a restart or a SCRIPT FLUSH the server answers NOSCRIPT: the read loads the script
    (on a cluster, on every primary) and answers as before."""
    gid, tokens, _, seq = _projected_game(store)

    async def check(reads: AsyncStore) -> None:
        first = await reads.board(gid, token_digest(tokens[0]))
        store.r.script_flush()
        assert await reads.board(gid, token_digest(tokens[0])) == first
        assert first.role == b"seat:0" and first.checkpoint == seq and first.view is not None

    facade_run(url, store, check)


def test_urging_a_projection_adds_an_urgent_feed_entry(url: str, store: EventStore) -> None:
    gid = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    feed = store.keys(gid).feed
    before = store.r.xrevrange(feed, count=1)

    async def check(reads: AsyncStore) -> None:
        await reads.urge_projection(gid)

    facade_run(url, store, check)
    [(entry_id, fields)] = store.r.xrevrange(feed, count=1)
    assert entry_id not in [e for e, _ in before]  # a new entry, the last
    assert fields == {b"g": gid.encode(), URGENT: b"1"}


def test_notices_come_as_they_are_published(url: str, store: EventStore) -> None:
    gid = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    publisher = redis_client(url)

    async def check(reads: AsyncStore) -> None:
        async with reads.notices(gid) as notices:
            assert await notices.next(timeout=0.1) is None
            # A cluster's PUBLISH reaches every node's subscribers: any node may take it.
            publisher.publish(store.keys(gid).notify, b'{"summary":"{}"}')
            got = None
            for _ in range(50):
                got = await notices.next(timeout=0.1)
                if got is not None:
                    break
            assert got == b'{"summary":"{}"}'

    try:
        facade_run(url, store, check)
    finally:
        publisher.close()


def test_a_reply_error_is_not_taken_for_an_unreachable_store(redis_url: str) -> None:
    """A reply error (a bug, not an outage) leaves as itself, not as StoreUnavailable."""
    client = redis.Redis.from_url(redis_url)
    store = EventStore(client, f"t{uuid.uuid4().hex[:12]}", partitions=8)
    gid = "p01-000000000000"
    client.set(store.keys(gid).results, b"not a hash")

    async def check(reads: AsyncStore) -> None:
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            await reads.result(gid, "c1")

    try:
        facade_run(redis_url, store, check)
    finally:
        client.delete(store.keys(gid).results)
        client.close()
