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

from events.link import loading

MAX_IDLE = 64
_CHUNK = 65536


class _Conn:
    """One open connection: redis-py's (kept to close it) and its streams, with a reply parser."""

    __slots__ = ("conn", "parser", "reader", "writer")

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.reader: asyncio.StreamReader = conn._reader  # redis-py opened them: driven directly here
        self.writer: asyncio.StreamWriter = conn._writer
        self.parser = hiredis.Reader(replyError=rx.ResponseError)

    async def run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        self.writer.write(b"".join([hiredis.pack_command(tuple(c)) for c in commands]))
        out: list[Any] = []
        parser = self.parser
        while len(out) < len(commands):
            got = parser.gets()
            if got is False:
                data = await self.reader.read(_CHUNK)
                if not data:
                    raise rx.ConnectionError("Redis closed the connection")
                parser.feed(data)
            else:
                out.append(got)
        loading(out)
        return out


class Batch:
    def __init__(self, aio: aioredis.Redis) -> None:
        self.pool = aio.connection_pool
        self._idle: list[_Conn] = []

    async def _open(self) -> _Conn:
        conn = self.pool.make_connection()
        await conn.connect()
        return _Conn(conn)

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

    async def _run(self, commands: Sequence[Sequence[Any]], c: _Conn | None) -> list[Any]:
        if c is None:
            c = await self._open()
        try:
            out = await c.run(commands)
        except OSError as e:
            await c.conn.disconnect()
            raise rx.ConnectionError(f"error talking to Redis: {e}") from None
        except BaseException:
            # Cancelled or broken halfway: the connection's state is unknown.
            await c.conn.disconnect()
            raise
        if len(self._idle) < MAX_IDLE:
            self._idle.append(c)
        else:
            await c.conn.disconnect()
        return out

    async def close(self) -> None:
        while self._idle:
            await self._idle.pop().conn.disconnect()


def checked(replies: list[Any]) -> list[Any]:
    """The replies, raising the first error reply."""
    for r in replies:
        if isinstance(r, rx.ResponseError):
            raise r
    return replies


def no_script(reply: Any) -> bool:
    """Whether a reply says the server has not got the script (it was restarted or flushed)."""
    return isinstance(reply, rx.ResponseError) and str(reply).startswith("NOSCRIPT")
