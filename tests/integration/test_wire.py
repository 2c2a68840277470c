"""The raw Redis protocol (events/redisstore/wire.py) against a real Redis: replies, errors, reconnects, sync and async."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import fakeredis
import pytest
import redis
from redis import exceptions as rx

from events.redisstore.wire import Link, Links


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


def test_replies_owed_on_a_closed_connection_are_forgotten(client: redis.Redis, key: str) -> None:
    link = Link(client.connection_pool)
    link.send([("RPUSH", key, "a")])
    link.close()
    assert link.run([("LLEN", key)]) == [1]  # a new connection owes nothing
    link.close()
