"""The dramatiq Redis broker, with a wake-up list in place of the consumer's idle sleep.

dramatiq's Redis consumer sleeps with exponential backoff (5 ms doubling up to the
worker timeout) after every empty fetch, so a command arriving at an idle worker
waits up to that long. Here every enqueue also pushes a token on a short wake list
and an idle consumer blocks on that list (BLPOP) instead of sleeping: it wakes the
moment a message lands and costs nothing while idle.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import dramatiq
import redis
import redis.asyncio as aioredis
from dramatiq import Message
from dramatiq.broker import MessageProxy
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.common import current_millis
from dramatiq.errors import ConnectionClosed
from dramatiq.middleware import (
    AgeLimit,
    Callbacks,
    Pipelines,
    Retries,
    ShutdownNotifications,
    TimeLimit,
)
from redis.commands.core import AsyncScript

WAKE_CAP = 64
_DISPATCH_LUA = (Path(dramatiq.__file__).parent / "brokers" / "redis" / "dispatch.lua").read_text()


class WakeConsumer(_RedisConsumer):
    """The Redis consumer with its empty-fetch backoff sleep replaced by a BLPOP on the wake list.

    It waits for a wake-up token before fetching, so a quiet queue costs one BLPOP per message
    instead of a fetch that finds nothing; after a full prefetch batch (a backlog) it fetches
    again at once. A message with no token (requeued from a dead worker) is fetched when the
    wait times out.
    """

    backlog = False

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
                room = self.prefetch - self.outstanding_message_count
                if room <= 0:
                    # Every prefetch slot is busy: wait for an ack rather than spin.
                    time.sleep(0.001)
                    return None
                if not self.backlog:
                    self.broker.client.blpop(
                        [self.broker.wake_key(self.queue_name)], timeout=max(self.timeout / 1000, 0.01)
                    )
                self.message_cache = self.broker.do_fetch(self.queue_name, room)
                self.backlog = len(self.message_cache) >= room
                if not self.message_cache:
                    return None
        except redis.ConnectionError as e:
            raise ConnectionClosed(e) from None


class WakingRedisBroker(RedisBroker):
    """RedisBroker whose enqueue also wakes one idle consumer."""

    wake = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._async_dispatch: AsyncScript | None = None

    @property
    def consumer_class(self) -> type[_RedisConsumer]:
        return WakeConsumer if self.wake else _RedisConsumer

    def wake_key(self, queue_name: str) -> str:
        return f"{self.namespace}:{queue_name}.wake"

    async def enqueue_async(
        self, aio: aioredis.Redis | aioredis.client.Pipeline, message: dramatiq.Message
    ) -> dramatiq.Message:
        """Enqueue from an event loop with the broker's own dispatch script and the wake-up.

        Given a pipeline, the caller's commands and the enqueue go in one round trip.
        """
        message = message.copy(options={"redis_message_id": str(uuid4())})
        self.emit_before("enqueue", message, None)
        script = self._async_dispatch
        if script is None:
            script = self._async_dispatch = AsyncScript(None, _DISPATCH_LUA.encode())  # type: ignore[arg-type]
        args = [
            "enqueue", current_millis(), message.queue_name, self.broker_id, self.heartbeat_timeout,
            self.dead_message_ttl, 0, self._max_unpack_size(),
            message.options["redis_message_id"], message.encode(),
        ]
        pipe = aio if isinstance(aio, aioredis.client.Pipeline) else aio.pipeline(transaction=False)
        await script(keys=[self.namespace], args=args, client=pipe)
        if self.wake:
            key = self.wake_key(message.queue_name)
            pipe.lpush(key, 1)
            pipe.ltrim(key, 0, WAKE_CAP - 1)
        await pipe.execute()
        self.emit_after("enqueue", message, None)
        return message

    def enqueue(self, message: dramatiq.Message, *, delay: int | None = None) -> dramatiq.Message:
        out = super().enqueue(message, delay=delay)
        if delay is None and self.wake:
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
    wake: bool = True,
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
    broker.wake = wake
    return broker
