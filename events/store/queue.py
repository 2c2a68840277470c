"""The command queue: the one port through which the API queues a command for the workers.

Queueing a command is three writes: its pending record (the body the worker runs, by command
id: HSETNX, so the first body sent under an id stands), the partition's queued-time entry (for
the sweep that queues a command again when its message was lost) and the dramatiq message that
names it. An adapter queues a batch (`submit_many`): every command's two writes, and one message
naming them all (`handle_commands`); the group commit in front of it (groupcommit.py) makes the
batches. Three adapters, picked by the bootstrap from where the events and the broker live:

- `OneTripQueue`: events and broker on one plain Redis. All three writes in one raw round trip,
  so the message is enqueued before anyone knows whether HSETNX set the pending record: a
  repeated id is enqueued again. That is safe because Redis runs the batch in order (the pending
  record is there before the message can be fetched) and the worker answers a message whose
  command already has an answer from that answer, changing nothing.
- `SeparateBrokerQueue`: events on a plain Redis, the broker on another. The pending record is
  written first and the message enqueued only when HSETNX set it: the two Redis servers share no
  order, so a message enqueued first could reach a worker before the record it names, and the
  worker drops a message with no pending record ("never queued").
- `ClusterQueue`: events on a Redis Cluster. dramatiq's Redis broker does not run on a cluster,
  so the broker is always a separate Redis, and the writes go as in `SeparateBrokerQueue`; the
  pending record and the queued-time entry share the game's hash tag, so a cluster pipeline
  sends them to the game's shard in one round trip.

The same on each: after `submit` returns, the command's pending record (the first body sent
under its id) is stored, its queued-time entry holds when it was first queued (ZADD NX; the
sweep stamps it again when it queues it again), a message naming it has been enqueued at least
once, and it is applied at most once whatever is sent again. A `submit` that fails with
StoreUnavailable may have written some of this; sending the same id again is safe (and if the
pending record was written but the message not, the pending-first adapters leave it to the
sweep to queue it).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import redis.asyncio as aioredis

from events.store.aiostore import RoundTrip
from events.store.errors import reaching_redis
from events.store.groupcommit import Queued
from events.store.layout import GameKeys
from events.store.store import queued_member
from events.store.wire import checked, no_script


class AsyncEnqueuer(Protocol):
    """What the pending-first adapters ask of a broker: the Redis one, or RabbitMQ's
    (workers/rabbit.py, which ignores `aio`)."""

    async def enqueue_async(self, aio: Any, message: Any) -> Any: ...


class Broker(AsyncEnqueuer, Protocol):
    """What the one-trip queue asks of the dramatiq broker (workers.broker.WakingRedisBroker)."""

    def prepare_enqueue(self, message: Any) -> tuple[Any, list[tuple[Any, ...]]]: ...

    def load_dispatch(self) -> tuple[Any, ...]: ...

    def enqueued(self, message: Any) -> None: ...


# The dramatiq message naming a batch's commands ((game id, command id) pairs, in arrival order).
Message = Callable[[Sequence[tuple[str, str]]], Any]


class CommandQueue(Protocol):
    async def submit(self, gid: str, cid: str, body: bytes, queued_ms: int) -> bool:
        """Queue command `cid` of game `gid` (its pending record `body`, queued at `queued_ms`);
        whether a message was enqueued by this call (False: the id was queued before)."""
        ...


class _Adapter(ABC):
    """An adapter queues a batch of commands with one message (`submit_many`); `submit` is one
    command alone (the group commit in front of it, events.store.groupcommit, makes the batches)."""

    async def submit(self, gid: str, cid: str, body: bytes, queued_ms: int) -> bool:
        return (await self.submit_many([Queued(gid, cid, body, queued_ms)]))[0]

    @abstractmethod
    async def submit_many(self, items: Sequence[Queued]) -> list[bool]:
        """Queue these commands with one message naming them all; for each, whether that message
        names it (False: its id was queued before, and its first message stands)."""


class OneTripQueue(_Adapter):
    """Events and broker on one plain Redis: one round trip, a repeated id enqueued again."""

    def __init__(self, trip: RoundTrip, keys: Callable[[str], GameKeys], broker: Broker, message: Message) -> None:
        self.trip, self.keys, self.broker, self.message = trip, keys, broker, message

    async def submit_many(self, items: Sequence[Queued]) -> list[bool]:
        with reaching_redis():
            # The broker asks Redis for Lua's stack size the first time (redis-py).
            message, enqueue = self.broker.prepare_enqueue(self.message([(q.gid, q.cid) for q in items]))
        writes: list[tuple[Any, ...]] = []
        for q in items:
            k = self.keys(q.gid)
            writes += [("HSETNX", k.pending, q.cid, q.body), ("ZADD", k.queued, "NX", q.queued_ms,
                                                                 queued_member(q.gid, q.cid))]
        out = await self.trip.run([*writes, *enqueue])
        if no_script(out[len(writes)]):  # the server was restarted or flushed: load dramatiq's script
            checked(await self.trip.run([self.broker.load_dispatch(), *enqueue]))
        else:
            checked(out)
        self.broker.enqueued(message)
        return [True] * len(items)


class _PendingFirst(_Adapter):
    """The pending records first; one message enqueued on the broker for the records that were new."""

    def __init__(
        self, broker_aio: aioredis.Redis, keys: Callable[[str], GameKeys], broker: AsyncEnqueuer, message: Message,
    ) -> None:
        self.broker_aio, self.keys, self.broker, self.message = broker_aio, keys, broker, message

    @abstractmethod
    async def _record(self, items: Sequence[Queued]) -> list[bool]:
        """Write each command's pending record (HSETNX) and queued-time entry (ZADD NX) in one
        round trip; whether each pending record is new."""

    async def submit_many(self, items: Sequence[Queued]) -> list[bool]:
        new = await self._record(items)
        fresh = [(q.gid, q.cid) for q, n in zip(items, new, strict=True) if n]
        if fresh:
            with reaching_redis():
                await self.broker.enqueue_async(self.broker_aio, self.message(fresh))
        return new


class SeparateBrokerQueue(_PendingFirst):
    """Events on a plain Redis (raw round trips), the broker on another Redis."""

    def __init__(
        self, trip: RoundTrip, broker_aio: aioredis.Redis, keys: Callable[[str], GameKeys], broker: AsyncEnqueuer,
        message: Message,
    ) -> None:
        super().__init__(broker_aio, keys, broker, message)
        self.trip = trip

    async def _record(self, items: Sequence[Queued]) -> list[bool]:
        writes: list[tuple[Any, ...]] = []
        for q in items:
            k = self.keys(q.gid)
            writes += [("HSETNX", k.pending, q.cid, q.body),
                       ("ZADD", k.queued, "NX", q.queued_ms, queued_member(q.gid, q.cid))]
        out = checked(await self.trip.run(writes))
        return [bool(n) for n in out[::2]]


class ClusterQueue(_PendingFirst):
    """Events on a Redis Cluster (a pipeline to the games' shards), the broker on a plain Redis."""

    def __init__(
        self, aio: aioredis.Redis, broker_aio: aioredis.Redis, keys: Callable[[str], GameKeys], broker: AsyncEnqueuer,
        message: Message,
    ) -> None:
        super().__init__(broker_aio, keys, broker, message)
        self.aio = aio

    async def _record(self, items: Sequence[Queued]) -> list[bool]:
        pipe = self.aio.pipeline(transaction=False)
        for q in items:
            k = self.keys(q.gid)
            pipe.hsetnx(k.pending, q.cid, q.body)
            pipe.zadd(k.queued, {queued_member(q.gid, q.cid): q.queued_ms}, nx=True)
        with reaching_redis():
            out = await pipe.execute()
        return [bool(n) for n in out[::2]]
