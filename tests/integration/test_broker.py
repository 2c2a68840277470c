"""The wake consumer (workers/broker.py) against a real Redis: fetch-first, acks riding along,
and messages whose fetch reply was lost put back on the queue."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import dramatiq
import pytest
import redis
from dramatiq.errors import ConnectionClosed

from service.runtime.embedded import free_port
from workers.broker import StoreUnreachable, WakeConsumer, WakingRedisBroker, make_broker

pytestmark = pytest.mark.integration

QUEUE = "commands"


@pytest.fixture
def broker(redis_url: str, namespace: str) -> Iterator[WakingRedisBroker]:
    b = make_broker(redis_url, namespace=f"{namespace}-dramatiq")
    dramatiq.Actor(lambda gid, cid: None, broker=b, actor_name="handle", queue_name=QUEUE, priority=0, options={})
    yield b
    b.close()


def send(b: WakingRedisBroker, n: int) -> list[str]:
    return [b.enqueue(dramatiq.Message(queue_name=QUEUE, actor_name="handle", args=(f"g{i}", f"c{i}"),
                                       kwargs={}, options={})).message_id for i in range(n)]


def consumer(b: WakingRedisBroker) -> WakeConsumer:
    c = b.consume(QUEUE, prefetch=4, timeout=100)
    assert isinstance(c, WakeConsumer)
    return c


def drain(c: WakeConsumer, want: int, tries: int = 50) -> list[Any]:
    got: list[Any] = []
    for _ in range(tries):
        m = next(c)
        if m is not None:
            got.append(m)
            if len(got) == want:
                break
    return got


def ack_set(b: WakingRedisBroker) -> set[bytes]:
    members = redis.Redis(connection_pool=b.client.connection_pool).smembers(
        f"{b.namespace}:__acks__.{b.broker_id}.{QUEUE}")
    return {m.encode() if isinstance(m, str) else m for m in members}


def test_a_fetch_whose_reply_was_lost_is_put_back_by_the_next_consumer(broker: WakingRedisBroker) -> None:
    sent = send(broker, 2)
    broker.run([broker.dispatch_command("fetch", QUEUE, 1)])  # the reply "lost": nobody holds it
    assert len(ack_set(broker)) == 1
    got = drain(consumer(broker), 2)  # dramatiq makes a new consumer after a connection error
    assert sorted(m.message_id for m in got) == sorted(sent)


def test_a_sweep_leaves_the_messages_its_workers_hold(broker: WakingRedisBroker) -> None:
    sent = send(broker, 3)
    c = consumer(broker)
    held = drain(c, 3)
    assert sorted(m.message_id for m in held) == sorted(sent)
    assert c.sweep() == 0 and len(ack_set(broker)) == 3
    c.ack(held[0])  # acked but not yet sent: still held
    assert c.sweep() == 0
    assert next(c) is None  # the ack rides with this round trip
    assert len(ack_set(broker)) == 2
    c.ack(held[1])
    c.ack(held[2])
    c.close()
    assert ack_set(broker) == set()


def test_a_fetch_sent_again_on_a_new_connection_sweeps_what_the_first_took(broker: WakingRedisBroker) -> None:
    sent = send(broker, 2)
    c = consumer(broker)
    broker.run([broker.dispatch_command("fetch", QUEUE, 1)])  # as if its reply were lost
    link_id = broker.run([("CLIENT", "ID")])[0]
    redis.Redis(connection_pool=broker.client.connection_pool).client_kill_filter(_id=link_id)
    got = drain(c, 2)  # the next fetch meets the dead connection, is sent again, then sweeps
    assert sorted(m.message_id for m in got) == sorted(sent)
    assert broker.reconnects() == 1


def test_a_message_whose_handler_could_not_reach_redis_is_neither_acked_nor_lost(broker: WakingRedisBroker) -> None:
    sent = send(broker, 1)
    c = consumer(broker)
    [held] = drain(c, 1)
    held.stuff_exception(StoreUnreachable("Connection refused"))
    held.fail()  # as Retries does for an actor's `throws`
    c.nack(held)
    assert len(ack_set(broker)) == 1  # not acked, not dead-lettered
    again = drain(c, 1)  # the next fetch sweeps it back onto the queue
    assert [m.message_id for m in again] == sent
    c.ack(again[0])
    c.close()
    assert ack_set(broker) == set()
    assert redis.Redis(connection_pool=broker.client.connection_pool).zcard(f"{broker.namespace}:{QUEUE}.XQ") == 0


def test_a_redis_out_of_reach_closes_the_consumer_as_dramatiq_expects() -> None:
    # dramatiq's worker makes a new consumer on ConnectionClosed; the link's StoreUnavailable
    # must reach it as that, from our fetch and from dramatiq's own nack alike.
    b = make_broker(f"redis://127.0.0.1:{free_port()}/0?socket_connect_timeout=1", namespace="unreachable")
    try:
        c = consumer(b)
        with pytest.raises(ConnectionClosed):
            next(c)
        message: dramatiq.Message[Any] = dramatiq.Message(queue_name=QUEUE, actor_name="handle", args=(), kwargs={},
                                   options={"redis_message_id": "m1"})
        with pytest.raises(ConnectionClosed):
            c.nack(dramatiq.broker.MessageProxy(message))
    finally:
        b.close()
