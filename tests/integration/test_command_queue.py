"""The command-queue port (events/store/queue.py): its three adapters, as the bootstrap picks
them from settings, against real Redis servers, with the same semantics on each."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from urllib.parse import urlsplit, urlunsplit

import orjson
import pytest
import redis

from events.store.aiostore import AsyncStore
from events.store.errors import StoreUnavailable
from events.store.groupcommit import GroupCommit
from events.store.layout import GameKeys, new_game_id
from events.store.queue import ClusterQueue, OneTripQueue, SeparateBrokerQueue
from events.store.store import queued_member
from events.store.wire import Batch
from service.runtime.bootstrap import (
    ApiParts,
    api_parts,
    async_redis_client,
    build,
    command_queue,
    redis_client,
)
from service.runtime.embedded import free_port
from service.runtime.settings import Settings
from tests.conftest import TEST_DATA

pytestmark = pytest.mark.integration

ADAPTERS = {"one_trip": OneTripQueue, "separate_broker": SeparateBrokerQueue, "cluster": ClusterQueue}


def other_db(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{db}"))


@dataclass
class Where:
    settings: Settings
    events: redis.Redis  # the events' Redis (a cluster client for "cluster")
    broker: redis.Redis  # the broker's Redis

    @property
    def ns(self) -> str:
        return self.settings.namespace

    def messages(self) -> list[list[list[str]]]:
        """The commands ([game id, command id] pairs) of every message on the broker's commands
        queue, oldest first: each message is one batch (`handle_commands`)."""
        qname = f"{self.ns}-dramatiq:commands"
        ids = self.broker.lrange(qname, 0, -1)
        bodies = self.broker.hgetall(qname + ".msgs")
        return [orjson.loads(bodies[i])["args"][0] for i in ids]


@pytest.fixture(params=sorted(ADAPTERS))
def where(request: pytest.FixtureRequest, redis_url: str) -> Iterator[Where]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    data = str(TEST_DATA / ns)  # the API's signing key, never the checkout's ./var
    if request.param == "one_trip":
        settings = Settings(redis_url=redis_url, namespace=ns, partitions=8, data_dir=data)
    elif request.param == "separate_broker":  # a second database of the same server is another Redis here
        settings = Settings(redis_url=redis_url, broker_url=other_db(redis_url, 1), namespace=ns, partitions=8, data_dir=data)
    else:
        cluster_url = request.getfixturevalue("cluster_url")
        settings = Settings(redis_url=cluster_url, broker_url=redis_url, namespace=ns, partitions=8, data_dir=data)
    w = Where(settings, redis_client(settings.redis_url), redis_client(settings.broker))
    yield w
    for client in (w.events, w.broker):
        forget(client, ns)
        client.close()
    shutil.rmtree(data, ignore_errors=True)


def forget(client: redis.Redis, ns: str) -> None:
    """Delete a test's keys (one at a time: on a cluster they live in several slots)."""
    for k in list(client.scan_iter(match=f"{ns}*", count=1000)):
        client.delete(k)


def run(where: Where, test: object) -> None:
    async def go() -> None:
        async with api_parts(where.settings) as p:
            await test(p)  # type: ignore[operator]

    asyncio.run(go())


def test_the_bootstrap_picks_the_adapter_for_where_events_and_broker_live(
    where: Where, request: pytest.FixtureRequest
) -> None:
    async def check(p: ApiParts) -> None:
        assert isinstance(p.queue, GroupCommit)  # the group commit in front of the adapter
        assert type(p.queue.send.__self__) is ADAPTERS[request.node.callspec.params["where"]]  # type: ignore[attr-defined]

    run(where, check)


def test_a_new_command_is_recorded_stamped_and_enqueued_once(where: Where) -> None:
    gid, cid = new_game_id(8), str(uuid.uuid4())
    k = GameKeys(gid, where.ns)

    async def check(p: ApiParts) -> None:
        assert await p.queue.submit(gid, cid, b'{"type":"race.note"}', 1_000) is True
        # The worker's view of it: the pending record, the sweep's entry, the message.
        assert where.events.hget(k.pending, cid) == b'{"type":"race.note"}'
        assert where.events.zscore(k.queued, queued_member(gid, cid)) == 1_000
        assert where.messages() == [[[gid, cid]]]
        assert await p.reads.queued(gid, cid)

    run(where, check)


def test_an_id_sent_again_keeps_its_first_body_and_first_time(where: Where) -> None:
    gid, cid = new_game_id(8), str(uuid.uuid4())
    k = GameKeys(gid, where.ns)

    async def check(p: ApiParts) -> None:
        await p.queue.submit(gid, cid, b"first", 1_000)
        again = await p.queue.submit(gid, cid, b"second", 2_000)
        assert where.events.hget(k.pending, cid) == b"first"
        assert where.events.zscore(k.queued, queued_member(gid, cid)) == 1_000
        # One trip enqueues without waiting for HSETNX (the handler answers the second message
        # from the first one's answer); the pending-first adapters enqueue only a new record.
        messages = where.messages()
        if isinstance(p.queue.send.__self__, OneTripQueue):  # type: ignore[attr-defined]
            assert again is True and messages == [[[gid, cid]], [[gid, cid]]]
        else:
            assert again is False and messages == [[[gid, cid]]]

    run(where, check)


def test_a_lost_script_is_loaded_again(where: Where) -> None:
    """The broker's Redis restarted or flushed its scripts: the enqueue still lands."""
    gid, cid = new_game_id(8), str(uuid.uuid4())

    async def check(p: ApiParts) -> None:
        await p.queue.submit(gid, str(uuid.uuid4()), b"warm", 1_000)  # the script is loaded now
        where.broker.script_flush()
        assert await p.queue.submit(gid, cid, b"{}", 1_000) is True
        assert where.messages()[-1] == [[gid, cid]]

    run(where, check)


def test_commands_arriving_during_a_send_travel_together_in_the_next_message(where: Where) -> None:
    """The group commit on each adapter: the first command goes alone at once; the ones that
    arrive while it is in flight go in the next message, at most BOARDLOG_COMMAND_BATCH a
    message, in arrival order; each is recorded as if sent alone."""
    where.settings = replace(where.settings, command_batch=4)
    gids = [new_game_id(8) for _ in range(3)]
    sent = [(gids[i % 3], str(uuid.uuid4())) for i in range(10)]

    async def check(p: ApiParts) -> None:
        got = await asyncio.gather(*(p.queue.submit(gid, cid, b'{"type":"race.note"}', 1_000) for gid, cid in sent))
        assert got == [True] * 10
        messages = where.messages()
        assert [len(m) for m in messages] == [1, 4, 4, 1]
        assert [tuple(c) for m in messages for c in m] == sent  # arrival order, each once
        for gid, cid in sent:
            assert where.events.hget(GameKeys(gid, where.ns).pending, cid) == b'{"type":"race.note"}'
        assert p.queue.sizes.count == 4 and p.queue.sizes.sum == 10  # type: ignore[attr-defined]

    run(where, check)


def dead_url() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"


@pytest.mark.parametrize("dead", ["events", "broker", "both"])
def test_an_unreachable_redis_is_store_unavailable(redis_url: str, dead: str) -> None:
    """Every plain adapter (and the reads) answer StoreUnavailable, never a Redis client's error."""
    events_url = dead_url() if dead in ("events", "both") else redis_url
    broker_url = dead_url() if dead in ("broker", "both") else other_db(redis_url, 1)
    if dead == "both":
        broker_url = events_url  # one dead Redis for both: the one-trip adapter
    settings = Settings(redis_url=events_url, broker_url=broker_url, namespace=f"t{uuid.uuid4().hex[:12]}",
                        partitions=8)
    core = build(settings)

    async def go() -> None:
        aio = async_redis_client(events_url)
        broker_aio = aio if broker_url == events_url else async_redis_client(broker_url)
        batch = Batch(aio)
        queue = command_queue(core, aio, broker_aio, batch)
        assert type(queue.send.__self__) is (OneTripQueue if dead == "both" else SeparateBrokerQueue)  # type: ignore[attr-defined]
        gid = new_game_id(8)
        with pytest.raises(StoreUnavailable):
            await queue.submit(gid, str(uuid.uuid4()), b"{}", 1_000)
        if dead != "broker":
            reads = AsyncStore(aio, core.store.keys, batch)
            with pytest.raises(StoreUnavailable):
                await reads.head(gid, "digest", "cid")
            with pytest.raises(StoreUnavailable):
                await reads.exists(gid)
            with pytest.raises(StoreUnavailable):
                async with reads.notices(gid):
                    pass
        await batch.close()
        if broker_aio is not aio:
            await broker_aio.aclose()
        await aio.aclose()

    asyncio.run(go())
    core.broker.close()
    if dead == "broker":
        with redis.Redis.from_url(redis_url) as left:
            forget(left, settings.namespace)
