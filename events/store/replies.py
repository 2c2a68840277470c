"""Command results published to this API process: one subscription wakes every `?wait=1` waiter.

Each API process subscribes once to its own reply channel and names it in the commands it
queues; the append (or rejection) script publishes `<game id> <result json>` there. A
waiter registers before its command is queued, so no answer can slip past it. Pub/sub
is only the wake-up: a waiter that hears nothing (a reconnect, or a second request with
the same id queued by another process) reads the stored result, which is the truth.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

import redis.asyncio as aioredis
import structlog

from events.records.codec import loads
from events.store.layout import reply_channel
from events.store.wire import AsyncLink, message_data, subscribe

log = structlog.get_logger("boardlog.api")


class Replies:
    def __init__(self, aio: aioredis.Redis, namespace: str) -> None:
        self.aio = aio
        self.channel = reply_channel(uuid.uuid4().hex, namespace)
        self._waiting: dict[tuple[str, str], list[asyncio.Future[dict[str, Any] | None]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._pubsub: Any = None
        self._sub: AsyncLink | None = None
        # A cluster client keeps redis-py's PubSub (it picks the node).
        self._raw = not isinstance(aio, aioredis.RedisCluster)

    async def start(self) -> None:
        """Subscribed when this returns, so no waiter registered after it can miss its answer."""
        if self._raw:
            self._sub = await self._subscribe()
        else:
            self._pubsub = self.aio.pubsub()
            await self._pubsub.subscribe(self.channel)
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.close()

    def expect(self, gid: str, cid: str) -> asyncio.Future[dict[str, Any] | None]:
        """A future for this command's published result; `forget` it when done."""
        fut: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault((gid, cid), []).append(fut)
        return fut

    @staticmethod
    def time_up(fut: asyncio.Future[dict[str, Any] | None]) -> None:
        """End a wait with None (a timer callback: cheaper than wait_for and shield)."""
        if not fut.done():
            fut.set_result(None)

    def forget(self, gid: str, cid: str, fut: asyncio.Future[dict[str, Any] | None]) -> None:
        futs = self._waiting.get((gid, cid))
        if futs is None:
            return
        with contextlib.suppress(ValueError):
            futs.remove(fut)
        if not futs:
            del self._waiting[(gid, cid)]

    def _deliver(self, data: bytes) -> None:
        gid, _, raw = data.partition(b" ")
        result = loads(raw)
        for fut in self._waiting.get((gid.decode(), str(result.get("id"))), ()):
            if not fut.done():
                fut.set_result(result)

    async def _subscribe(self) -> AsyncLink:
        return await subscribe(self.aio.connection_pool, self.channel)

    async def _next(self) -> bytes | None:
        """The next published answer (None for any other message), subscribing again first
        when the raw subscription was dropped."""
        if not self._raw:
            msg = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            return msg["data"] if msg is not None and msg["type"] == "message" else None
        if self._sub is None:
            self._sub = await self._subscribe()
        return message_data(await self._sub.reply())

    async def _listen(self) -> None:
        pause = 0.0
        while True:
            try:
                data = await self._next()
                pause = 0.0
                if data is not None:
                    self._deliver(data)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the connection dropped: waiters poll the stored results
                pause = min(1.0, max(0.1, pause * 2))
                log.warning("replies.listen_failed", error=str(e), retry_in=pause)
                if self._sub is not None:
                    with contextlib.suppress(Exception):
                        await self._sub.close()
                    self._sub = None
                await asyncio.sleep(pause)
