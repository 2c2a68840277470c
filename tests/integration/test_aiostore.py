"""The API's async store facade (events/store/aiostore.py) on a plain Redis (raw batches) and
on a Redis Cluster (redis-py's pipeline): the same answers from both."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
import redis

from events.store.aiostore import AsyncStore, CommandHead
from events.store.store import EventStore
from events.store.wire import Batch
from service.runtime.bootstrap import async_redis_client, redis_client
from service.usecases.matches import create_match, token_digest

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
