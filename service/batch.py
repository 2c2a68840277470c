"""Several Redis commands in one round trip, on connections of our own, without redis-py's Pipeline.

The command hot path of the API sends two small batches per request. redis-py's asyncio
Pipeline (and its pool's per-checkout health check) costs ~60-80 us of CPU a batch over
the work of packing the commands and reading the replies; its connection's own send and
read still pack in Python and wrap every read in a timeout. Here redis-py only opens the
connection (URL, auth, db); the batch is packed by hiredis, written at once, and the
replies parsed by a hiredis Reader from the stream. Only for a plain Redis client (a
cluster client keeps its pipelines).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis import exceptions as rx

from events.redisstore.link import loading

MAX_IDLE = 64
_CHUNK = 65536


class RawConnection:
    """One connection opened by redis-py (URL, auth, db, TLS), then driven directly: commands
    packed by hiredis and written at once, replies parsed by a hiredis Reader from its stream."""

    __slots__ = ("conn", "parser", "reader", "writer")

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.reader: asyncio.StreamReader = conn._reader  # redis-py's streams, read and written here
        self.writer: asyncio.StreamWriter = conn._writer
        self.parser = hiredis.Reader(replyError=rx.ResponseError)

    @classmethod
    async def open(cls, pool: aioredis.ConnectionPool) -> RawConnection:
        conn = pool.make_connection()
        await conn.connect()
        return cls(conn)

    def send(self, commands: Sequence[Sequence[Any]]) -> None:
        self.writer.write(b"".join([hiredis.pack_command(tuple(c)) for c in commands]))

    async def reply(self) -> Any:
        """The next reply (an error reply as its ResponseError, not raised)."""
        parser = self.parser
        while True:
            got = parser.gets()
            if got is not False:
                return got
            data = await self.reader.read(_CHUNK)
            if not data:
                raise rx.ConnectionError("Redis closed the connection")
            parser.feed(data)

    async def run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        self.send(commands)
        out = [await self.reply() for _ in commands]
        loading(out)
        return out

    async def close(self) -> None:
        await self.conn.disconnect()


class Batch:
    def __init__(self, aio: aioredis.Redis) -> None:
        self.pool = aio.connection_pool
        self._idle: list[RawConnection] = []

    async def run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """The replies in order; an error reply is returned as its ResponseError, not raised.

        A connection found broken (Redis restarted, or it closed an idle client) is replaced
        and the batch sent once more on a new one, as redis-py's own retry does: the API's
        batches are reads, HSETNX and an enqueue, which the command handler makes harmless
        when it runs twice.
        """
        try:
            return await self._run(commands, self._idle.pop() if self._idle else None)
        except rx.ConnectionError:
            return await self._run(commands, None)

    async def _run(self, commands: Sequence[Sequence[Any]], c: RawConnection | None) -> list[Any]:
        if c is None:
            c = await RawConnection.open(self.pool)
        try:
            out = await c.run(commands)
        except OSError as e:
            await c.close()
            raise rx.ConnectionError(f"error talking to Redis: {e}") from None
        except BaseException:
            # Cancelled or broken halfway: the connection's state is unknown.
            await c.close()
            raise
        if len(self._idle) < MAX_IDLE:
            self._idle.append(c)
        else:
            await c.close()
        return out

    async def close(self) -> None:
        while self._idle:
            await self._idle.pop().close()
