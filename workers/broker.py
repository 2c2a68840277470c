"""The dramatiq Redis broker, with a wake-up list in place of the consumer's idle sleep.

dramatiq's Redis consumer sleeps with exponential backoff (5 ms doubling up to the
worker timeout) after every empty fetch, so a command arriving at an idle worker
waits up to that long. Here every enqueue also pushes a token on a short wake list
and an idle consumer blocks on that list (BLPOP) instead of sleeping: it wakes the
moment a message lands and costs nothing while idle.
"""

from __future__ import annotations

import time
from typing import Any

import dramatiq
import redis
from dramatiq import Message
from dramatiq.broker import MessageProxy
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.errors import ConnectionClosed
from dramatiq.middleware import (
    AgeLimit,
    Callbacks,
    Pipelines,
    Retries,
    ShutdownNotifications,
    TimeLimit,
)

WAKE_CAP = 64


class WakeConsumer(_RedisConsumer):
    """The Redis consumer with its empty-fetch backoff sleep replaced by a BLPOP on the wake list."""

    def __next__(self) -> Any:
        try:
            while True:
                if self.message_cache:
                    data = self.message_cache.pop(0)
                    if data is None:
                        continue
                    message = Message.decode(data)
                    self.queued_message_ids.add(message.message_id)
                    return MessageProxy(message)
                if self.outstanding_message_count < self.prefetch:
                    self.message_cache = self.broker.do_fetch(
                        self.queue_name, self.prefetch - self.outstanding_message_count
                    )
                    if self.message_cache:
                        continue
                    self.broker.client.blpop(
                        [self.broker.wake_key(self.queue_name)], timeout=max(self.timeout / 1000, 0.01)
                    )
                else:
                    # Every prefetch slot is busy: wait for an ack rather than spin.
                    time.sleep(0.001)
                return None
        except redis.ConnectionError as e:
            raise ConnectionClosed(e) from None


class WakingRedisBroker(RedisBroker):
    """RedisBroker whose enqueue also wakes one idle consumer."""

    @property
    def consumer_class(self) -> type[WakeConsumer]:
        return WakeConsumer

    def wake_key(self, queue_name: str) -> str:
        return f"{self.namespace}:{queue_name}.wake"

    def enqueue(self, message: dramatiq.Message, *, delay: int | None = None) -> dramatiq.Message:
        out = super().enqueue(message, delay=delay)
        if delay is None:
            key = self.wake_key(message.queue_name)
            pipe = self.client.pipeline(transaction=False)
            pipe.lpush(key, 1)
            pipe.ltrim(key, 0, WAKE_CAP - 1)
            pipe.execute()
        return out


def make_broker(
    url: str,
    *,
    namespace: str = "dramatiq",
    heartbeat_timeout_ms: int = 15_000,
    maintenance_chance: int = 10_000,
    max_retries: int = 20,
) -> WakingRedisBroker:
    """A broker for `url`; the caller installs it (`dramatiq.set_broker`) and declares actors."""
    middleware = [
        AgeLimit(),
        TimeLimit(),
        ShutdownNotifications(),
        Callbacks(),
        Pipelines(),
        Retries(max_retries=max_retries, min_backoff=50, max_backoff=5_000),
    ]
    broker = WakingRedisBroker(
        url=url,
        namespace=namespace,
        middleware=middleware,
        heartbeat_timeout=heartbeat_timeout_ms,
        maintenance_chance=maintenance_chance,
    )
    return broker
