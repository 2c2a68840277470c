"""The sliding window the mails to one address are counted in (service/stores/ratelimit.py,
`take_sliding`), on a plain Redis and on a Redis Cluster, with the limits' own clock."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest

from service.runtime.bootstrap import async_redis_client
from service.stores.ratelimit import RateLimits

pytestmark = pytest.mark.integration


@pytest.fixture(params=["plain", "cluster"])
def url(request: pytest.FixtureRequest, redis_url: str) -> str:
    return str(request.getfixturevalue("cluster_url")) if request.param == "cluster" else redis_url


def run(url: str, test: Callable[[RateLimits], Awaitable[None]]) -> None:
    async def go() -> None:
        aio = async_redis_client(url)
        if url.startswith("redis+cluster://"):
            await aio.initialize()
        try:
            await test(RateLimits(aio, f"t{uuid.uuid4().hex[:12]}"))
        finally:
            await aio.aclose()

    asyncio.run(go())


def test_mails_to_one_address_are_counted_in_a_sliding_hour_and_a_refusal_counts_nothing(url: str) -> None:
    async def test(limits: RateLimits) -> None:
        now = [3590.0]
        limits.clock = lambda: now[0]
        assert [await limits.take_sliding("mail-to", "victim", 5, 3600) for _ in range(5)] == [0] * 5
        assert await limits.take_sliding("mail-to", "victim", 5, 3600) == 3600
        assert await limits.take_sliding("mail-to", "other", 5, 3600) == 0  # per key
        # A fixed hour would start afresh at 3600 s: this one still holds the five.
        now[0] = 3610.0
        assert await limits.take_sliding("mail-to", "victim", 5, 3600) == 3580
        now[0] = 7189.5  # refusals counted nothing: the first five still leave at 7190
        assert await limits.take_sliding("mail-to", "victim", 5, 3600) == 1
        now[0] = 7190.5
        assert [await limits.take_sliding("mail-to", "victim", 5, 3600) for _ in range(6)] == [0] * 5 + [3600]
        assert await limits.take_sliding("mail-to", "victim", 0, 3600) == 0  # 0: no limit

    run(url, test)
