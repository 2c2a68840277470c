"""dramatiq's RabbitMQ broker, for a deployment whose commands outgrow a broker Redis.

With `BROKER_URL=amqp://...` the commands (and notify jobs) go through RabbitMQ while every event,
result and read model stays in Redis (or a Redis Cluster). What this adds to dramatiq's own
broker:

- Queue names carry the deployment's namespace (`bl.commands`), as the Redis broker's keys do, so
  two deployments (or two tests) on one RabbitMQ never take each other's messages.
- Publishes wait for RabbitMQ's confirm: a command answered 202 is on a durable queue.
- A handler that gave up waiting for Redis (StoreUnreachable) puts its message back on the queue
  (basic_nack with requeue), where the Redis broker leaves it in its ack set for the sweep.
- A worker killed mid-command needs nothing: RabbitMQ delivers its unacked messages again the
  moment its connection drops, and the idempotent append makes the second run a no-op.
- `enqueue_async` for the API's event loop (a thread of its own: pika's connection is blocking).
"""

from __future__ import annotations

import asyncio
import threading
from functools import partial
from typing import Any

import dramatiq
from dramatiq.brokers.rabbitmq import RabbitmqBroker, _RabbitmqConsumer
from dramatiq.middleware import Retries

from workers.broker import StoreUnreachable


class _Consumer(_RabbitmqConsumer):
    def nack(self, message: Any) -> None:
        if not isinstance(getattr(message, "_exception", None), StoreUnreachable):
            super().nack(message)
            return
        # Redis was out of reach: the command was not run, so back on the queue with it.
        self.known_tags.discard(message._tag)
        self.connection.add_callback_threadsafe(partial(self.channel.basic_nack, message._tag, requeue=True))


class NamespacedRabbitmqBroker(RabbitmqBroker):
    """dramatiq's RabbitMQ broker with each actor's queue named `<prefix>.<queue>`."""

    def __init__(self, prefix: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prefix = prefix + "."
        # Set when the worker process begins to stop: a handler waiting for Redis gives up.
        self.stopping = threading.Event()

    def queue_named(self, queue_name: str) -> str:
        """The RabbitMQ queue of one of this service's queues (idempotent)."""
        return queue_name if queue_name.startswith(self.prefix) else self.prefix + queue_name

    def declare_actor(self, actor: dramatiq.Actor) -> None:
        actor.queue_name = self.queue_named(actor.queue_name)
        super().declare_actor(actor)

    def enqueue(self, message: dramatiq.Message, *, delay: int | None = None) -> dramatiq.Message:
        if not message.queue_name.startswith(self.prefix):
            message = message.copy(queue_name=self.queue_named(message.queue_name))
        return super().enqueue(message, delay=delay)

    @property
    def consumer_class(self) -> type[_RabbitmqConsumer]:
        return _Consumer

    async def enqueue_async(self, _aio: Any, message: dramatiq.Message) -> dramatiq.Message:
        """Enqueue from an event loop (the command queue's pending-first adapters call this; the
        Redis client they pass is the Redis broker's and unused here)."""
        return await asyncio.to_thread(self.enqueue, message)


def make_rabbit_broker(url: str, *, prefix: str, max_retries: int = 20) -> NamespacedRabbitmqBroker:
    """The RabbitMQ broker for `url`, with the same middleware as the Redis one (Retries only)."""
    middleware = [Retries(max_retries=max_retries, min_backoff=50, max_backoff=5_000)]
    return NamespacedRabbitmqBroker(prefix, url=url, middleware=middleware, confirm_delivery=True)


def queue_named(broker: dramatiq.Broker, queue_name: str) -> str:
    """What `broker` calls one of this service's queues (a Worker's `queues` names them so)."""
    if isinstance(broker, NamespacedRabbitmqBroker):
        return broker.queue_named(queue_name)
    return queue_name
