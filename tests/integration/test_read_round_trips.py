"""The board read after a move, `GET /v1/games/{gid}/view?min_seq=N`, in Redis round trips: one
when the projection has reached N (the game's existence, the bearer's role, the projection's
progress and the board together), and the same answers as every other read gives, for every
caller, in the same order of precedence.

Round trips are counted by a proxy between the API and Redis (bench/bench_view_trips.py's
TripCounter): the commands one connection writes before Redis answers are one trip. Only trips
naming the game read count, so the API's other traffic (subscriptions, the broker) does not."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson
import pytest
import redis

from bench.bench_view_trips import TripCounter
from events.store.archive import plain
from events.store.store import EventStore
from projections.readmodels import view_field
from tests.conftest import Stack, child_env, start_api
from tests.integration.helpers import bearer, command, new_race, player

pytestmark = pytest.mark.integration

WAIT = 20  # BOARDLOG_MIN_SEQ_WAIT_SECONDS: long enough for a stopped projector to start again


@dataclass
class Counted:
    stack: Stack  # its API reaches Redis through `trips`; its worker and projector directly
    trips: TripCounter
    store: EventStore

    def client(self) -> httpx.Client:
        return self.stack.client()

    def stored_view(self, gid: str, seat: int | None) -> dict[str, object]:
        raw = self.store.r.hget(self.store.keys(gid).rm, view_field(seat))
        assert raw is not None
        got: dict[str, object] = orjson.loads(plain(bytes(raw)))  # type: ignore[arg-type]
        return got


@pytest.fixture(scope="module")
def counted(redis_url: str, module_namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Counted]:
    logdir = tmp_path_factory.mktemp("read-trips")
    env = child_env(redis_url, module_namespace, BOARDLOG_DATA=str(logdir / "data"),
                    BOARDLOG_MIN_SEQ_WAIT_SECONDS=str(WAIT))
    trips = TripCounter.in_front_of(redis_url).start()
    s = Stack("", env, logdir=logdir)
    client = redis.Redis.from_url(redis_url)
    try:
        s.start("worker", "worker", "--threads", "2")
        s.start("projector", "projector")
        s.env = {**env, "REDIS_URL": trips.through(redis_url), "BROKER_URL": redis_url}
        start_api(s, module_namespace)
        yield Counted(s, trips, EventStore(client, module_namespace, partitions=8))
    finally:
        for name in list(s.procs):
            s.stop(name)
        trips.stop()
        client.close()


def _moved(c: httpx.Client, gid: str, token: str) -> int:
    """A move, answered; once the board has reached it, its last seq."""
    r = command(c, gid, token)
    assert r.status_code == 200, r.text
    last: int = r.json()["seq"][1]
    assert c.get(f"/v1/games/{gid}?min_seq={last}").status_code == 200
    return last


@pytest.mark.parametrize("who", ["seat", "spectator", "admin"])
@pytest.mark.parametrize("fresh", [True, False], ids=["min_seq", "no_min_seq"])
def test_a_board_read_after_a_move_is_one_round_trip(counted: Counted, who: str, fresh: bool) -> None:
    with counted.client() as c:
        gid, tokens, admin = new_race(c)
        headers = {"seat": bearer(tokens[1]), "spectator": {}, "admin": bearer(admin)}[who]
        # A first read loads the read's script into a server that has not got it yet (once per
        # server, as a long-running API has)
        assert c.get(f"/v1/games/{gid}/view", headers=headers).status_code == 200
        last = _moved(c, gid, tokens[0])
        counted.trips.reset()
        r = c.get(f"/v1/games/{gid}/view", params={"min_seq": last} if fresh else {}, headers=headers)
        trips = counted.trips.trips(gid)
    assert r.status_code == 200, r.text
    assert r.json() == counted.stored_view(gid, 1 if who == "seat" else None)
    assert r.json()["seq"] >= last
    assert len(trips) == 1, trips


def test_a_board_read_behind_the_projection_waits_and_reads_the_new_board(counted: Counted) -> None:
    """The read the board makes right after a move, when the projector has not projected it:
    it waits for the projection and answers the new board, not the one read with the progress."""
    with counted.client() as c:
        gid, tokens, _ = new_race(c)
        before = _moved(c, gid, tokens[0])
        counted.stack.stop("projector")
        try:
            r = command(c, gid, tokens[1])
            assert r.status_code == 200, r.text
            last = r.json()["seq"][1]
            assert last > before
            with ThreadPoolExecutor(1) as pool:
                read = pool.submit(lambda: c.get(f"/v1/games/{gid}/view?min_seq={last}", headers=bearer(tokens[0]),
                                                 timeout=WAIT + 10))
                counted.stack.start("projector", "projector")
                got = read.result()
        finally:
            if "projector" not in counted.stack.procs:
                counted.stack.start("projector", "projector")
    assert got.status_code == 200, got.text
    assert got.json()["seq"] >= last
    assert got.json() == counted.stored_view(gid, 0)


def _error(r: httpx.Response) -> tuple[int, str, str]:
    e = r.json()["error"]
    return r.status_code, e["code"], e["message"]


def test_every_caller_is_answered_as_before_in_the_same_order(counted: Counted, tmp_path: Path) -> None:
    """404 for no such game whatever the credentials, then 401 for a token not valid here (a
    malformed header too), then 422 for a bad `at` or `min_seq`; a player's key as Bearer reads
    its claimed seat, a stale session cookie reads the public board, the referee every seat's."""
    with counted.client() as c:
        gid, tokens, admin = new_race(c)
        last = _moved(c, gid, tokens[0])
        view = f"/v1/games/{gid}/view"
        for missing in ("p01-000000000000", "p99-000000000000", "nope"):
            for headers in ({}, bearer("not a token"), {"Authorization": "Basic eA=="}, bearer(tokens[0])):
                r = c.get(f"/v1/games/{missing}/view?min_seq=0", headers=headers)
                assert _error(r) == (404, "unknown_game", f"no game {missing!r}"), (missing, headers)
        bad = (401, "bad_token", "that player key or session is not valid")
        assert _error(c.get(view, headers=bearer("not a token"))) == bad
        assert _error(c.get(f"{view}?min_seq=0&at=0", headers=bearer("not a token"))) == bad
        assert _error(c.get(f"{view}?min_seq=1", headers={"Authorization": "Basic eA=="})) == (
            401, "bad_token", "use 'Authorization: Bearer <token>'")
        assert _error(c.get(f"{view}?min_seq=0&at=0", headers=bearer(tokens[0]))) == (
            422, "bad_seq", "'at' counts from 1, not 0")
        assert _error(c.get(f"{view}?min_seq=0", headers=bearer(tokens[0]))) == (
            422, "bad_seq", "'min_seq' counts from 1")
        assert _error(c.get(f"{view}?min_seq=0")) == (422, "bad_seq", "'min_seq' counts from 1")
        past = c.get(f"{view}?at=1&min_seq={last}", headers=bearer(tokens[1]))
        assert past.status_code == 200 and past.json()["seq"] == 1, past.text
        # A player's key as Bearer: the seat the player claimed.
        key = player(c, f"p{uuid.uuid4().hex[:6]}")["key"]
        claimed = c.post(f"/v1/games/{gid}/claim", json={"token": tokens[1]}, headers=bearer(key))
        assert claimed.status_code == 200, claimed.text
        by_key = c.get(f"{view}?min_seq={last}", headers=bearer(key))
        assert by_key.status_code == 200 and by_key.json() == counted.stored_view(gid, 1), by_key.text
        unseated = player(c, f"p{uuid.uuid4().hex[:6]}")["key"]
        assert _error(c.get(f"{view}?min_seq={last}", headers=bearer(unseated))) == (
            401, "bad_token", "that token is not valid for this game")
        # A session cookie that has ended still watches: the public board.
        stale = c.get(f"{view}?min_seq={last}", headers={"Cookie": "boardlog_session=ended"})
        assert stale.status_code == 200 and stale.json() == counted.stored_view(gid, None), stale.text
        # The admin reads what a spectator reads.
        assert c.get(f"{view}?min_seq={last}", headers=bearer(admin)).json() == counted.stored_view(gid, None)
        made = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "referee": "rita"})
        assert made.status_code == 201, made.text
        refereed, ref = made.json()["id"], made.json()["referee"]["token"]
        seen = c.get(f"/v1/games/{refereed}/view?min_seq=1", headers=bearer(ref))
        assert seen.status_code == 200 and seen.json()["referee"] is True, seen.text
