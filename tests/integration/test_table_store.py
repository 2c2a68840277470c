"""The open tables' store (service/stores/tables.py) on a plain Redis and on a Redis Cluster:
every script on the players' slot; a join applies only to the table as read; twenty joins at
once for the last seat, one winner; closing only a forming table; the start claims the seats."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest

from service.runtime.bootstrap import async_redis_client
from service.stores.players import PlayerStore
from service.stores.tables import TableSeat, TableStore
from tests.support.stores import claimants

pytestmark = pytest.mark.integration


@pytest.fixture(params=["plain", "cluster"])
def url(request: pytest.FixtureRequest, redis_url: str) -> str:
    return str(request.getfixturevalue("cluster_url")) if request.param == "cluster" else redis_url


def run(url: str, test: Callable[[TableStore, PlayerStore], Awaitable[None]]) -> None:
    async def go() -> None:
        aio = async_redis_client(url)
        ns = f"t{uuid.uuid4().hex[:12]}"
        if url.startswith("redis+cluster://"):
            await aio.initialize()
        try:
            await test(TableStore(aio, ns), PlayerStore(aio, ns))
        finally:
            await aio.aclose()

    asyncio.run(go())


def seats(n_open: int) -> list[TableSeat]:
    return [TableSeat(0, "ann", "pid-ann", "e0", "d0", False),
            *(TableSeat(i, None, None, "", None, True) for i in range(1, n_open + 1))]


def taken(seat: int, who: str) -> TableSeat:
    return TableSeat(seat, who, f"pid-{who}", f"e-{who}", f"d-{who}", True)


def test_a_table_fills_once_and_its_start_claims_every_seat(url: str) -> None:
    async def test(tables: TableStore, players: PlayerStore) -> None:
        gid = "p01-aaaaaa000001"
        await tables.open(gid, "race", {"target": 3}, ("pid-ann", "ann"), tables.clock() + 60, seats(2), b"s" * 32, "dA")
        t = await tables.get(gid)
        assert t is not None and t.status == "forming" and t.free == [1, 2] and t.creator_name == "ann"
        assert [x.gid for x in (await tables.forming())[0]] == [gid]
        assert await tables.join(t, taken(1, "bob"), "2026-12-01T00:00:00.000Z") == "ok"
        # The same read again: the table changed since, so nothing is written.
        assert await tables.join(t, taken(2, "cy"), "2026-12-01T00:00:00.000Z") == "retry"
        t = await tables.get(gid)
        assert t is not None and t.free == [2]
        assert await tables.join(t, taken(2, "cy"), "2026-12-01T00:00:01.000Z") == "full"
        # Anyone else, even from the same read: the table is full, and this join wrote nothing.
        assert await tables.join(t, taken(2, "dan"), "2026-12-01T00:00:02.000Z") == "is:full"
        full = await tables.get(gid)
        assert full is not None and full.status == "full" and full.filled_at == "2026-12-01T00:00:01.000Z"
        # Listed until its start has run, so that a listing finishes a start cut short.
        assert [(x.gid, x.status) for x in (await tables.forming())[0]] == [(gid, "full")]
        assert await tables.close(gid, "cancelled") == "full"  # a full table starts instead
        assert await tables.started(full, final=False) == "ok"  # the claims, before the game is stored
        assert await claimants(players, gid) == {0: "pid-ann", 1: "pid-bob", 2: "pid-cy"}
        listed = await tables.get(gid)
        assert listed is not None and listed.status == "full" and listed.seed is not None
        assert await tables.started(full) == "ok"
        assert await tables.started(full) == "ok"  # again after a crash: the same writes
        assert (await tables.forming())[0] == []
        done = await tables.get(gid)
        assert done is not None and done.status == "started" and done.seed is None
        assert await claimants(players, gid) == {0: "pid-ann", 1: "pid-bob", 2: "pid-cy"}
        assert await players.seats("pid-cy") == {gid: 2}

    run(url, test)


def test_twenty_joins_at_once_for_the_last_seat_have_one_winner(url: str) -> None:
    async def test(tables: TableStore, _: PlayerStore) -> None:
        gid = "p02-aaaaaa000002"
        await tables.open(gid, "race", {}, ("pid-ann", "ann"), tables.clock() + 60, seats(1), b"s" * 32, "dA")
        t = await tables.get(gid)
        assert t is not None
        got = await asyncio.gather(*(tables.join(t, taken(1, f"p{i}"), "2026-12-01T00:00:00.000Z") for i in range(20)))
        # One took the seat; the others wrote nothing: the table changed since they read it, or is full.
        assert got.count("full") == 1 and set(got) - {"full"} <= {"retry", "is:full"}, got
        after = await tables.get(gid)
        assert after is not None and after.free == [] and after.status == "full"

    run(url, test)


def test_only_a_forming_table_closes_and_an_expired_one_is_refused_a_join(url: str) -> None:
    async def test(tables: TableStore, _: PlayerStore) -> None:
        gid = "p03-aaaaaa000003"
        now = tables.clock()
        await tables.open(gid, "race", {}, ("pid-ann", "ann"), now + 0.3, seats(1), b"s" * 32, "dA")
        assert await tables.close(gid, "expired", now) == "forming"  # not yet expired
        await asyncio.sleep(0.4)
        t = await tables.get(gid)
        assert t is not None
        assert await tables.join(t, taken(1, "bob"), "x") == "is:expired"
        forming, expired = await tables.forming()
        assert forming == [] and expired == [gid]
        assert await tables.close(gid, "expired", tables.clock()) == "ok"
        closed = await tables.get(gid)
        assert closed is not None and closed.status == "expired" and closed.seed is None
        assert 0 < await tables.aio.ttl(tables.key(gid)) <= 7 * 86400
        assert await tables.close(gid, "cancelled") == "expired"
        assert await tables.get("p04-aaaaaa000004") is None

    run(url, test)
