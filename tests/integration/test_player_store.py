"""The players' store (service/stores/players.py) and the rate limits on a plain Redis and on
a Redis Cluster (every write one MULTI on one slot), and StoreUnavailable when Redis is away."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Awaitable, Callable

import pytest

from events.store.errors import StoreUnavailable
from service.runtime.bootstrap import async_redis_client
from service.stores.players import SESSION_SECONDS, PlayerStore
from service.stores.ratelimit import RateLimits
from tests.conftest import free_port
from tests.support.stores import claimants

pytestmark = pytest.mark.integration


@pytest.fixture(params=["plain", "cluster"])
def url(request: pytest.FixtureRequest, redis_url: str) -> str:
    return str(request.getfixturevalue("cluster_url")) if request.param == "cluster" else redis_url


def run(url: str, test: Callable[[PlayerStore, RateLimits], Awaitable[None]]) -> None:
    async def go() -> None:
        aio = async_redis_client(url)
        ns = f"t{uuid.uuid4().hex[:12]}"
        if url.startswith("redis+cluster://"):
            await aio.initialize()  # as the bootstrap does before the first call
        try:
            await test(PlayerStore(aio, ns), RateLimits(aio, ns))
        finally:
            await aio.aclose()

    asyncio.run(go())


def test_players_keys_and_sessions(url: str) -> None:
    async def test(players: PlayerStore, _: RateLimits) -> None:
        ann, key = await players.create("ann", "ann@example.org")
        assert await players.by_key(key) == ann and await players.by_key(key + "x") is None
        # Only the digest is stored: no value or key name in Redis holds the key.
        raw = await players.aio.get(players.keys.key(hashlib.sha256(key.encode()).hexdigest()))
        assert raw == ann.id.encode()
        one, s1 = await players.open_session(ann.id, "x" * 500)
        two, s2 = await players.open_session(ann.id, "phone")
        assert len(one.user_agent) == 200 and s1 != s2
        assert (await players.session(s1)) == one and await players.session(key) is None
        assert {s.id for s in await players.sessions(ann.id)} == {one.id, two.id}
        assert await players.revoke(ann.id, one.id) and not await players.revoke(ann.id, one.id)
        assert await players.session(s1) is None and await players.session(s2) is not None
        assert await players.revoke_all(ann.id) == 1
        assert await players.session(s2) is None and await players.sessions(ann.id) == []
        # A session unused for the cookie's life expires, and leaves the player's list.
        three, s3 = await players.open_session(ann.id, "tablet")
        session_key = players.keys.session(hashlib.sha256(s3.encode()).hexdigest())
        assert 0 < await players.aio.ttl(session_key) <= SESSION_SECONDS
        await players.aio.delete(session_key)  # as its expiry would
        assert await players.sessions(ann.id) == [] and not await players.aio.hexists(players.keys.sessions(ann.id), three.id)

    run(url, test)


def test_a_seat_is_claimed_once_and_a_player_holds_one_seat_a_game(url: str) -> None:
    async def test(players: PlayerStore, _: RateLimits) -> None:
        gid, other = "p03-abcdef012345", "p41-abcdef012345"
        assert (await players.claim(gid, 0, "ann")).code == "claimed"
        assert (await players.claim(gid, 0, "ann")).code == "same"
        assert (await players.claim(gid, 0, "bob")).code == "seat_claimed"
        refused = await players.claim(gid, 1, "ann")
        assert (refused.ok, refused.code, refused.seat) == (False, "already_seated", 0)
        assert (await players.claim(other, 1, "ann", 7)).ok
        # A claim by a seat link keeps the seq its claimant saw; a refused one writes nothing.
        assert (await players.claim(other, 1, "bob", 9)).code == "seat_claimed"
        assert await players.aio.hgetall(players.keys.claimed_at(other)) == {b"1": b"7"}
        assert await players.aio.hgetall(players.keys.claimed_at(gid)) == {}
        assert await players.seat_of(gid, "ann") == 0 and await players.seat_of(gid, "bob") is None
        assert await players.seats("ann") == {gid: 0, other: 1} and await players.seats("bob") == {}
        assert await claimants(players, gid) == {0: "ann"}
        # Many players at once for one free seat: exactly one wins, the rest are told it is taken.
        results = await asyncio.gather(*(players.claim(gid, 1, f"p{i}") for i in range(20)))
        assert sorted(r.code for r in results) == ["claimed"] + ["seat_claimed"] * 19
        winner = (await claimants(players, gid))[1]
        assert await players.seats(winner) == {gid: 1}

    run(url, test)


def test_a_rate_limit_counts_per_client_and_action(url: str) -> None:
    async def test(_: PlayerStore, limits: RateLimits) -> None:
        limits.clock = lambda: 120.0  # the start of a minute window: Retry-After is all of it
        assert [await limits.take("players", "1.2.3.4", 2) for _ in range(3)] == [0, 0, 60]
        assert await limits.take("players", "5.6.7.8", 2) == 0
        assert await limits.take("sessions", "1.2.3.4", 2) == 0
        limits.clock = lambda: 180.5
        assert await limits.take("players", "1.2.3.4", 2) == 0

    run(url, test)


def test_every_call_is_store_unavailable_with_redis_away() -> None:
    async def go() -> None:
        aio = async_redis_client(f"redis://127.0.0.1:{free_port()}/0")
        players, limits = PlayerStore(aio, "t"), RateLimits(aio, "t")
        calls: list[Callable[[], Awaitable[object]]] = [
            lambda: players.create("ann", None), lambda: players.player("p"), lambda: players.by_key("k"),
            lambda: players.open_session("p", "ua"), lambda: players.session("s"), lambda: players.sessions("p"),
            lambda: players.revoke("p", "s"), lambda: players.revoke_all("p"), lambda: limits.take("a", "c", 1),
            lambda: players.claim("g", 0, "p"), lambda: players.seat_of("g", "p"), lambda: players.seats("p"),
        ]
        try:
            for call in calls:
                with pytest.raises(StoreUnavailable):
                    await call()
        finally:
            await aio.aclose()

    asyncio.run(go())
