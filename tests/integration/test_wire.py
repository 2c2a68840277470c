"""The raw Redis protocol (events/store/wire.py) against a real Redis: replies, errors, reconnects, sync and async."""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import fakeredis
import pytest
import redis
import redis.asyncio as aioredis
from redis import exceptions as rx
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

from events.store.errors import StoreUnavailable
from events.store.wire import Batch, Link, Links, message_data, subscribe
from service.runtime.embedded import EmbeddedRedis, free_port

pytestmark = pytest.mark.integration


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    c = redis.Redis.from_url(redis_url)
    yield c
    c.close()


@pytest.fixture
def key(client: redis.Redis) -> Iterator[str]:
    k = f"t{uuid.uuid4().hex[:12]}:link"
    yield k
    client.delete(k)


def test_a_batch_is_answered_in_order_with_error_replies_in_place(client: redis.Redis, key: str) -> None:
    link = Link(client.connection_pool)
    out = link.run([("RPUSH", key, "a", b"b", 3), ("GET", key), ("LRANGE", key, 0, -1)])
    assert out[0] == 3
    assert isinstance(out[1], rx.ResponseError) and "WRONGTYPE" in str(out[1])
    assert out[2] == [b"a", b"b", b"3"]
    link.close()


def test_a_reply_larger_than_one_read_is_parsed_whole(client: redis.Redis, key: str) -> None:
    big = b"x" * 300_000
    link = Link(client.connection_pool)
    assert link.run([("SET", key, big), ("GET", key)]) == [b"OK", big]
    link.close()


def test_a_killed_connection_is_made_again(client: redis.Redis, key: str) -> None:
    link = Link(client.connection_pool)
    link.run([("CLIENT", "SETNAME", f"victim{key.replace(':', '')}")])
    victims = [c for c in client.client_list() if c.get("name") == f"victim{key.replace(':', '')}"]
    assert len(victims) == 1
    client.client_kill_filter(_id=victims[0]["id"])
    assert link.run([("INCR", key)]) == [1]
    link.close()


def test_each_thread_has_its_own_connection(client: redis.Redis, key: str) -> None:
    links = Links.for_client(client)
    assert links is not None
    seen: list[Link] = []

    def work() -> None:
        seen.append(links.get())
        for _ in range(200):
            links.run([("INCR", key)])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(x) for x in seen}) == 4
    assert int(client.get(key) or 0) == 800


def test_clients_without_a_plain_socket_keep_redis_py() -> None:
    assert Links.for_client(fakeredis.FakeRedis()) is None
    assert Links.for_client(object()) is None


def test_commands_sent_without_waiting_take_effect_and_their_replies_are_dropped(client: redis.Redis, key: str) -> None:
    link = Link(client.connection_pool)
    link.send([("RPUSH", key, "a"), ("GET", key)])  # the second answers an error: dropped too
    link.send([("RPUSH", key, "b")])
    assert link.run([("LRANGE", key, 0, -1), ("LLEN", key)]) == [[b"a", b"b"], 2]
    assert link.run([("LLEN", key)]) == [2]
    link.close()


def test_kept_replies_are_collected_in_order_among_other_batches(client: redis.Redis, key: str) -> None:
    """`send_kept` (a batch's writes, sent as each is ready): Redis runs them at once, a batch
    run between them reads its own replies, `collect` answers theirs in the order sent, an error
    reply as its exception, and a dropped `send` reply stays dropped."""
    link = Link(client.connection_pool)
    link.send_kept([("RPUSH", key, "a")])
    assert client.llen(key) == 1  # sent at once: it ran before its reply was read
    link.send([("RPUSH", key, "b")])
    link.send_kept([("GET", key), ("RPUSH", key, "c")])
    assert link.run([("LLEN", key)]) == [3]
    got = link.collect()
    assert got[0] == 1 and isinstance(got[1], rx.ResponseError) and got[2] == 3
    assert link.collect() == []
    link.send_kept([("LLEN", key)])
    assert link.collect() == [3]  # read by collect itself when no batch ran between
    link.send_kept([("LLEN", key)])
    link.forget_kept()  # a batch given up halfway: its replies are not the next one's
    link.send_kept([("RPUSH", key, "d")])
    assert link.collect() == [4]
    link.close()


def test_kept_replies_lost_with_the_connection_are_store_unavailable(client: redis.Redis, key: str) -> None:
    link = Link(client.connection_pool)
    link.send_kept([("RPUSH", key, "a")])
    link.close()  # as a broken connection does: whether the command ran is unknown
    with pytest.raises(StoreUnavailable):
        link.collect()
    link.send_kept([("LLEN", key)])
    assert link.collect() == [1]  # the next batch is not told of the last one's loss
    link.close()


def test_replies_owed_on_a_closed_connection_are_forgotten(client: redis.Redis, key: str) -> None:
    link = Link(client.connection_pool)
    link.send([("RPUSH", key, "a")])
    link.close()
    assert link.run([("LLEN", key)]) == [1]  # a new connection owes nothing
    link.close()


def test_a_server_out_of_reach_is_store_unavailable() -> None:
    # No retries of redis-py's own at connect: the link's one retry is what is tested.
    link = Link(redis.Redis(port=free_port(), retry=Retry(NoBackoff(), 0)).connection_pool)
    with pytest.raises(StoreUnavailable):
        link.run([("PING",)])
    with pytest.raises(StoreUnavailable):
        link.send([("PING",)])
    assert link.reconnects == 1  # the batch was tried once more on a new connection


def test_the_socket_timeout_holds_in_the_kernel_and_a_late_reply_is_not_sent_again(tmp_path: Path) -> None:
    """The link's socket is blocking with redis-py's timeout as SO_RCVTIMEO/SO_SNDTIMEO (no poll()
    before each send and recv): a server that does not answer in time is StoreUnavailable after
    about that long, as the timeout, and the batch is not sent again (the server may be busy)."""
    server = EmbeddedRedis(tmp_path / "redis", appendonly=False).start()
    try:
        c = redis.Redis.from_url(server.url, socket_timeout=0.3)
        link = Link(c.connection_pool)
        assert link.run([("PING",)]) == [b"PONG"]
        sock = link._sock
        assert sock is not None and sock.gettimeout() is None
        assert struct.unpack("ll", sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16)) == (0, 300_000)
        redis.Redis.from_url(server.url).execute_command("CLIENT", "PAUSE", 1500, "ALL")
        t0 = time.monotonic()
        with pytest.raises(StoreUnavailable, match="timeout"):
            link.run([("GET", "x")])
        assert 0.25 < time.monotonic() - t0 < 1.2
        assert link.reconnects == 0
        c.close()
    finally:
        server.stop()


# -- async: Batch and the raw subscription ------------------------------------------------------

def test_a_batch_answers_in_order_on_reused_connections(redis_url: str, key: str) -> None:
    async def go() -> None:
        aio = aioredis.Redis.from_url(redis_url)
        batch = Batch(aio)
        out = await batch.run([("RPUSH", key, "a", b"b", 3), ("GET", key), ("CLIENT", "ID")])
        assert out[0] == 3
        assert isinstance(out[1], rx.ResponseError) and "WRONGTYPE" in str(out[1])
        again = await batch.run([("LRANGE", key, 0, -1), ("CLIENT", "ID")])
        assert again[0] == [b"a", b"b", b"3"]
        assert again[1] == out[2]  # the idle connection was used again
        big = b"x" * 300_000
        assert await batch.run([("SET", key, big), ("GET", key)]) == [b"OK", big]
        await batch.close()
        await aio.aclose()

    asyncio.run(go())


def test_calls_made_in_one_pass_share_a_round_trip_and_each_gets_its_own_replies(redis_url: str, key: str) -> None:
    """Auto-pipelining: calls made in one pass of the event loop go out in one write on one
    connection; each caller gets its own replies, in order, its error replies included."""
    async def go() -> None:
        aio = aioredis.Redis.from_url(redis_url)
        batch = Batch(aio)
        await batch.run([("PING",)])  # one idle connection
        calls = [batch.run([("INCR", key), ("CLIENT", "ID")]) for _ in range(20)]
        calls.append(batch.run([("LPUSH", key, "x")]))  # a WRONGTYPE error: its own only
        got = await asyncio.gather(*calls)
        assert [g[0] for g in got[:20]] == list(range(1, 21))  # in the order they were made
        assert len({g[1] for g in got[:20]}) == 1  # one connection
        assert isinstance(got[20][0], rx.ResponseError) and "WRONGTYPE" in str(got[20][0])
        await batch.close()
        await aio.aclose()

    asyncio.run(go())


def test_a_caller_that_stops_waiting_leaves_the_others_of_its_round_trip_their_replies(
        redis_url: str, key: str) -> None:
    async def go() -> None:
        aio = aioredis.Redis.from_url(redis_url)
        batch = Batch(aio)
        first = asyncio.create_task(batch.run([("INCR", key)]))
        gone = asyncio.create_task(batch.run([("INCR", key)]))
        last = asyncio.create_task(batch.run([("INCR", key)]))
        await asyncio.sleep(0)  # all three made in this pass
        gone.cancel()
        assert await first == [1] and await last == [3]  # the write went; only its waiter stopped
        with pytest.raises(asyncio.CancelledError):
            await gone
        assert await batch.run([("GET", key)]) == [b"3"]
        await batch.close()
        await aio.aclose()

    asyncio.run(go())


def test_a_batch_on_a_killed_connection_is_sent_again_on_a_new_one(redis_url: str, client: redis.Redis, key: str) -> None:
    async def go() -> None:
        aio = aioredis.Redis.from_url(redis_url)
        batch = Batch(aio)
        (first,) = await batch.run([("CLIENT", "ID")])
        client.client_kill_filter(_id=first)
        assert await batch.run([("INCR", key), ("CLIENT", "ID")]) != [1, first]
        assert int(client.get(key) or 0) == 1  # applied once
        await batch.close()
        await aio.aclose()

    asyncio.run(go())


def test_a_batch_cancelled_halfway_leaves_no_connection_behind(redis_url: str, client: redis.Redis, key: str) -> None:
    async def go() -> None:
        aio = aioredis.Redis.from_url(redis_url)
        batch = Batch(aio)
        (first,) = await batch.run([("CLIENT", "ID")])
        task = asyncio.create_task(batch.run([("BLPOP", key, 5)]))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The cancelled connection (its reply still owed) is closed, not kept for reuse.
        for _ in range(100):
            if all(int(c["id"]) != first for c in client.client_list()):
                break
            await asyncio.sleep(0.01)
        assert all(int(c["id"]) != first for c in client.client_list())
        assert await batch.run([("PING",)]) == [b"PONG"]
        await batch.close()
        await aio.aclose()

    asyncio.run(go())


def test_a_batch_to_a_server_out_of_reach_is_store_unavailable() -> None:
    async def go() -> None:
        aio = aioredis.Redis(port=free_port(), retry=AsyncRetry(NoBackoff(), 0))
        with pytest.raises(StoreUnavailable):
            await Batch(aio).run([("PING",)])
        await aio.aclose()

    asyncio.run(go())


def test_a_raw_subscription_reads_published_messages(redis_url: str, client: redis.Redis, key: str) -> None:
    async def go() -> None:
        aio = aioredis.Redis.from_url(redis_url)
        sub = await subscribe(aio.connection_pool, key)
        assert client.publish(key, b"g1 {}") == 1
        assert message_data(await sub.reply()) == b"g1 {}"
        client.client_kill_filter(_type="pubsub")
        with pytest.raises(StoreUnavailable):
            await sub.reply()
        await sub.close()
        await aio.aclose()

    asyncio.run(go())
