"""Rate limits in Redis, so that every API process counts against the same limit: per client, a
fixed window per (action, client), one key that expires with its window; and, where a fixed
window's edge would let twice the limit through (the mails an address is sent in an hour), a
sliding one, the times of the last counted actions in a sorted set."""

from __future__ import annotations

import time
import uuid
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
        start, key = self.window_key(action, client, window, now)
        with reaching_redis():
            pipe = self.aio.pipeline(transaction=True)
            pipe.incr(key)
            pipe.expire(key, window + 1)
            count, _ = await pipe.execute()
        if int(count) <= limit:
            return 0
        return max(1, int(start + window - now + 0.999))

    def window_key(self, action: str, client: str, window: int, now: float) -> tuple[int, str]:
        """The start of the fixed window `now` falls in, and the key that counts `action` by
        `client` in it (`take` counts there, `give_back` uncounts)."""
        start = int(now // window) * window
        return start, f"{self.base}:{action}:{start}:{client}"

    async def take_sliding(self, action: str, key: str, limit: int, window: int) -> int:
        """Counts one `action` for `key` when fewer than `limit` were counted in the last
        `window` seconds: 0; else nothing is counted and the answer is the seconds until the
        oldest of them leaves the window (for Retry-After). A limit of 0 or less is no limit."""
        if limit <= 0:
            return 0
        now = self.clock()
        with reaching_redis():
            wait = await self.aio.eval(_SLIDING, 1, f"{self.base}:{action}:{key}", repr(now), str(window),
                                       str(limit), f"{now!r}:{uuid.uuid4().hex[:8]}")
        return max(1, int(float(wait) + 0.999)) if float(wait) > 0 else 0


# One script, so that two API processes counting the same key at once never both take the last
# place. Numbers travel as strings: a Lua number returned to Redis is cut to an integer.
_SLIDING = """
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tostring(tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('EXPIRE', KEYS[1], window + 1)
return '0'
"""

# A pause between two of an action (issue #42 item 8: a vacation toggled inside a minute), beside
# the counted limits above: one key per (action, who) that lives for the pause.


def _pause_key(limits: RateLimits, action: str, who: str) -> str:
    return f"{limits.base}:pause:{action}:{who}"


async def pause(limits: RateLimits, action: str, who: str, seconds: float) -> int:
    """Starts a pause of `seconds` after `who`'s `action`: 0 when none was running (this one may
    go ahead), else the whole seconds left of the one running. 0 seconds is no pause."""
    if seconds <= 0:
        return 0
    key = _pause_key(limits, action, who)
    with reaching_redis():
        if await limits.aio.set(key, b"1", px=int(seconds * 1000), nx=True):
            return 0
        left = await limits.aio.pttl(key)
    return max(1, int((int(left) + 999) // 1000))


async def unpause(limits: RateLimits, action: str, who: str) -> None:
    """Ends the pause `pause` started, for an action that was refused after all."""
    with reaching_redis():
        await limits.aio.delete(_pause_key(limits, action, who))


async def give_back(limits: RateLimits, action: str, who: str, window: int) -> None:
    """Uncounts one `action` that `take` counted in this window, for an action refused after all."""
    _, key = limits.window_key(action, who, window, limits.clock())
    with reaching_redis():
        pipe = limits.aio.pipeline(transaction=True)
        pipe.decr(key)
        pipe.expire(key, window + 1)  # a window that ended meanwhile: its key still goes
        await pipe.execute()
