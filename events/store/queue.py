"""The command queue: the one port through which the API queues a command for the workers.

Queueing a command is three writes: its pending record (the body the worker runs, by command
id: HSETNX, so the first body sent under an id stands), the partition's queued-time entry (for
the sweep that queues a command again when its message was lost) and the dramatiq message that
names it. Three adapters, picked by the bootstrap from where the events and the broker live:

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
from collections.abc import Callable
from typing import Any, Protocol

import redis.asyncio as aioredis

from events.store.aiostore import RoundTrip
from events.store.errors import reaching_redis
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


class CommandQueue(Protocol):
    async def submit(self, gid: str, cid: str, body: bytes, queued_ms: int) -> bool:
        """Queue command `cid` of game `gid` (its pending record `body`, queued at `queued_ms`);
        whether a message was enqueued by this call (False: the id was queued before)."""
        ...


class OneTripQueue:
    """Events and broker on one plain Redis: one round trip, a repeated id enqueued again."""

    def __init__(
        self, trip: RoundTrip, keys: Callable[[str], GameKeys], broker: Broker, message: Callable[[str, str], Any]
    ) -> None:
        self.trip, self.keys, self.broker, self.message = trip, keys, broker, message

    async def submit(self, gid: str, cid: str, body: bytes, queued_ms: int) -> bool:
        k = self.keys(gid)
        with reaching_redis():
            # The broker asks Redis for Lua's stack size the first time (redis-py).
            message, enqueue = self.broker.prepare_enqueue(self.message(gid, cid))
        queued = ("ZADD", k.queued, "NX", queued_ms, queued_member(gid, cid))
        out = await self.trip.run([("HSETNX", k.pending, cid, body), *enqueue, queued])
        if no_script(out[1]):  # the server was restarted or flushed: load dramatiq's script
            checked(await self.trip.run([self.broker.load_dispatch(), *enqueue]))
        else:
            checked(out)
        self.broker.enqueued(message)
        return True


class _PendingFirst(ABC):
    """The pending record first; the message enqueued on the broker's Redis only when it was new."""

    def __init__(
        self, broker_aio: aioredis.Redis, keys: Callable[[str], GameKeys], broker: AsyncEnqueuer,
        message: Callable[[str, str], Any],
    ) -> None:
        self.broker_aio, self.keys, self.broker, self.message = broker_aio, keys, broker, message

    @abstractmethod
    async def _record(self, k: GameKeys, cid: str, body: bytes, member: str, queued_ms: int) -> bool:
        """Write the pending record (HSETNX) and the queued-time entry (ZADD NX) in one round
        trip; whether the pending record is new."""

    async def submit(self, gid: str, cid: str, body: bytes, queued_ms: int) -> bool:
        if not await self._record(self.keys(gid), cid, body, queued_member(gid, cid), queued_ms):
            return False
        with reaching_redis():
            await self.broker.enqueue_async(self.broker_aio, self.message(gid, cid))
        return True


class SeparateBrokerQueue(_PendingFirst):
    """Events on a plain Redis (raw round trips), the broker on another Redis."""

    def __init__(
        self, trip: RoundTrip, broker_aio: aioredis.Redis, keys: Callable[[str], GameKeys], broker: AsyncEnqueuer,
        message: Callable[[str, str], Any],
    ) -> None:
        super().__init__(broker_aio, keys, broker, message)
        self.trip = trip

    async def _record(self, k: GameKeys, cid: str, body: bytes, member: str, queued_ms: int) -> bool:
        new, _ = checked(await self.trip.run([
            ("HSETNX", k.pending, cid, body), ("ZADD", k.queued, "NX", queued_ms, member),
        ]))
        return bool(new)


class ClusterQueue(_PendingFirst):
    """Events on a Redis Cluster (a pipeline to the game's shard), the broker on a plain Redis."""

    def __init__(
        self, aio: aioredis.Redis, broker_aio: aioredis.Redis, keys: Callable[[str], GameKeys], broker: AsyncEnqueuer,
        message: Callable[[str, str], Any],
    ) -> None:
        super().__init__(broker_aio, keys, broker, message)
        self.aio = aio

    async def _record(self, k: GameKeys, cid: str, body: bytes, member: str, queued_ms: int) -> bool:
        pipe = self.aio.pipeline(transaction=False)
        pipe.hsetnx(k.pending, cid, body)
        pipe.zadd(k.queued, {member: queued_ms}, nx=True)
        with reaching_redis():
            new, _ = await pipe.execute()
        return bool(new)
