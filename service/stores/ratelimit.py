"""Per-client rate limits as Redis counters, so that every API process counts against the same
limit: a fixed window per (action, client), one key that expires with its window."""

from __future__ import annotations

import time
from collections.abc import Callable

import redis.asyncio as aioredis

from events.store.errors import reaching_redis


class RateLimits:
    """At most `limit` of an action per client in each `window` seconds."""

    def __init__(self, aio: aioredis.Redis, namespace: str, clock: Callable[[], float] = time.time) -> None:
        self.aio = aio
        self.base = f"{namespace}:rate"
        self.clock = clock

    async def take(self, action: str, client: str, limit: int, window: int = 60) -> int:
        """Counts one `action` by `client`: 0 when it is within the limit, else the seconds until
        the window ends (for Retry-After). A limit of 0 or less is no limit."""
        if limit <= 0:
            return 0
        now = self.clock()
        start = int(now // window) * window
        key = f"{self.base}:{action}:{start}:{client}"
        with reaching_redis():
            pipe = self.aio.pipeline(transaction=True)
            pipe.incr(key)
            pipe.expire(key, window + 1)
            count, _ = await pipe.execute()
        if int(count) <= limit:
            return 0
        return max(1, int(start + window - now + 0.999))
