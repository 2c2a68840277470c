"""Several Redis commands in one round trip, on connections of our own, without redis-py's Pipeline.

The command hot path of the API sends two small batches per request. redis-py's asyncio
Pipeline (and its pool's per-checkout health check) costs ~60-80 us of CPU a batch over
the work of packing the commands and reading the replies; this sends the packed
commands in one write and reads the replies in order. Only for a plain Redis client
(a cluster client keeps its pipelines).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ResponseError

MAX_IDLE = 64


class Batch:
    def __init__(self, aio: aioredis.Redis) -> None:
        self.pool = aio.connection_pool
        self._idle: list[AbstractConnection] = []

    async def run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """The replies in order; an error reply is returned as its ResponseError, not raised."""
        conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self.pool.make_connection()
            await conn.connect()
        out: list[Any] = []
        try:
            await conn.send_packed_command(conn.pack_commands(commands), check_health=False)
            for _ in commands:
                try:
                    out.append(await conn.read_response())
                except ResponseError as e:
                    out.append(e)
        except BaseException:
            # Cancelled or broken halfway: the connection's state is unknown.
            await conn.disconnect()
            raise
        if len(self._idle) < MAX_IDLE:
            self._idle.append(conn)
        else:
            await conn.disconnect()
        return out

    async def close(self) -> None:
        while self._idle:
            await self._idle.pop().disconnect()


def checked(replies: list[Any]) -> list[Any]:
    """The replies, raising the first error reply."""
    for r in replies:
        if isinstance(r, ResponseError):
            raise r
    return replies
