"""Turn deadlines through real processes (issue #15 items 1-2): the API, a command worker, the
projector, the notifier and two deadlines workers over a real Redis, with clocks of seconds
(BOARDLOG_CLOCK_MIN_SECONDS=1). A seat that does not act is skipped, forfeited or paused as its
game chose, once, even with two deadline workers and one killed -9 as its deadline fires; a
reminder reaches a real local webhook receiver."""

from __future__ import annotations

import re
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import orjson
import pytest
import redis

from events.records.envelope import Envelope
from events.store.store import EventStore
from tests.conftest import Stack, child_env, start_api, wait_for
from tests.integration.helpers import bearer, command
from tests.support.receivers import Web

pytestmark = pytest.mark.integration

TIMED_OUT = "boardlog.TurnTimedOut"


@pytest.fixture(scope="module")
def dstack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, EventStore]]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_CLOCK_MIN_SECONDS="1", BOARDLOG_PLAYERS_PER_MINUTE="0",
                    BOARDLOG_NOTIFY_CLAIM_MS="1000", BOARDLOG_NOTIFY_BACKOFF_MS="100",
                    # A deadline worker kills itself (-9) at the first submit after a test arms it.
                    BOARDLOG_TEST_CRASH_ON_DEADLINE="1")
    logdir = tmp_path_factory.mktemp("dstack")
    env["BOARDLOG_DATA"] = str(logdir / "data")
    s = Stack("", env, logdir=logdir)
    s.start("worker", "worker", "--threads", "4")
    s.start("projector", "projector")
    s.start("notifier", "notifier", "--threads", "2")
    s.start("dl-a", "deadlines")
    s.start("dl-b", "deadlines")
    client = redis.Redis.from_url(redis_url)
    try:
        start_api(s, ns)
        for name in ("dl-a", "dl-b", "notifier"):
            wait_started(s, name)
        yield s, EventStore(client, ns, 8)
    finally:
        for name in list(s.procs):
            s.stop(name)
        for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
            keys = list(client.scan_iter(match=pattern, count=1000))
            for i in range(0, len(keys), 500):
                client.delete(*keys[i : i + 500])
        client.close()


def wait_started(s: Stack, name: str) -> None:
    assert s.logdir is not None
    log = s.logdir / f"{name}.log"
    word = b"notifier.started" if name == "notifier" else b"deadlines.started"
    wait_for(lambda: log.exists() and word in log.read_bytes(), timeout=90, interval=0.1)


def new_game(c: httpx.Client, clock: dict[str, Any], headers: dict[str, str] | None = None,
             seats: list[Any] | None = None) -> tuple[str, list[str]]:
    r = c.post("/v1/games", headers=headers or {}, json={
        "game": "race", "seats": seats or ["ann", "bob"], "options": {"target": 1000, "clock": clock}})
    assert r.status_code == 201, r.text
    g = r.json()
    return g["id"], [s.get("token", "") for s in g["seats"]]


def types(store: EventStore, gid: str) -> list[Envelope]:
    return store.read(gid, 1)


def timeouts(envs: list[Envelope]) -> list[tuple[int, int]]:
    """(clock seq, seat) of every timeout command applied."""
    return [(e.data["args"]["clock"], e.data["args"]["seat"]) for e in envs
            if e.type == "boardlog.CommandAccepted" and e.data["type"] == "boardlog.timeout"]


def wait_events(store: EventStore, gid: str, pred: Any, timeout: float = 40.0) -> list[Envelope]:
    got: list[list[Envelope]] = []

    def check() -> bool:
        envs = store.read(gid, 1)
        if pred(envs):
            got.append(envs)
            return True
        return False

    wait_for(check, timeout=timeout, interval=0.1)
    return got[0]


def test_a_bad_clock_is_refused_and_nothing_is_made(dstack: tuple[Stack, EventStore]) -> None:
    s, _ = dstack
    with s.client() as c:
        for clock, why in (({"per_move": 0}, "per_move"), ({"per_move": 20 * 86400}, "per_move"),
                           ({"per_move": 5, "on_timeout": "explode"}, "on_timeout"), ("fast", "object")):
            r = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"clock": clock}})
            assert r.status_code == 422, r.text
            assert r.json()["error"]["code"] == "bad_options" and why in r.json()["error"]["message"]


def test_a_bad_abandon_after_is_refused_and_nothing_is_made(dstack: tuple[Stack, EventStore]) -> None:
    s, store = dstack
    games = set(store.game_ids())
    with s.client() as c:
        for bad in (0, -1, "3", 2.5, True, 10**12):
            clock = {"per_move": 5, "on_timeout": "skip", "abandon_after": bad}
            r = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"clock": clock}})
            assert r.status_code == 422, r.text
            error = r.json()["error"]
            assert error["code"] == "bad_options" and "clock.abandon_after" in error["message"], error
            assert "from 1 to 100" in error["message"]
    assert set(store.game_ids()) == games


def test_skip_answers_for_the_seat_once_and_the_clock_goes_on(dstack: tuple[Stack, EventStore]) -> None:
    s, store = dstack
    with s.client() as c:
        gid, _ = new_game(c, {"per_move": 2, "on_timeout": "skip"})
    envs = wait_events(store, gid, lambda es: len(timeouts(es)) >= 2)
    seen = [e.type for e in envs]
    first = seen.index(TIMED_OUT)
    # The timeout, then the platform's answer for that seat (the race's roll), then the next clock.
    after = envs[first + 1:]
    accepted = next(e for e in after if e.type == "boardlog.CommandAccepted")
    assert accepted.data["type"] == "race.roll" and accepted.seat == envs[first].data["seat"]
    assert accepted.data["id"].startswith("bl-auto-")  # the platform's own id (events.store.commandids)
    assert "boardlog.ClockStarted" in [e.type for e in after]
    # Two deadline workers: every deadline applied once.
    assert max(Counter(timeouts(store.read(gid, 1))).values()) == 1
    # The move list files each clock setting under the move before it; a timeout is an entry.
    with s.client() as c:
        entries = c.get(f"/v1/games/{gid}/moves").json()["entries"]
    texts = [e.get("text") or "" for e in entries]
    assert not any("sets the clock" in t for t in texts) and any("deadline passes" in t for t in texts), texts


def test_forfeit_resigns_the_seat_and_ends_a_two_seat_game(dstack: tuple[Stack, EventStore]) -> None:
    s, store = dstack
    with s.client() as c:
        gid, _ = new_game(c, {"per_move": 2, "on_timeout": "forfeit"})
    envs = wait_events(store, gid, lambda es: any(e.type == "boardlog.SeedRevealed" for e in es))
    kinds = [e.type for e in envs]
    i = kinds.index(TIMED_OUT)
    assert kinds[i + 1] == "boardlog.Resigned" and envs[i + 1].data["seat"] == envs[i].data["seat"] == 0
    with s.client() as c:
        wait_for(lambda: c.get(f"/v1/games/{gid}").json().get("outcome") is not None, timeout=20)
        assert c.get(f"/v1/games/{gid}").json()["outcome"]["winners"] == [1]
        # The audit re-runs the clock's commands with the record's own times: the same events.
        report = c.get(f"/v1/games/{gid}/audit").json()
        assert report["ok"] is True and "commands re-run" in " ".join(report["checked"]), report


def test_pause_stops_the_clock_until_the_seat_moves(dstack: tuple[Stack, EventStore]) -> None:
    s, store = dstack
    with s.client() as c:
        gid, tokens = new_game(c, {"per_move": 2, "on_timeout": "pause"})
        envs = wait_events(store, gid, lambda es: any(e.type == "boardlog.ClockStopped" for e in es))
        assert [e.type for e in envs].count(TIMED_OUT) == 1
        wait_for(lambda: (c.get(f"/v1/games/{gid}").json().get("clock") or {}).get("paused"), timeout=20)
        # Waiting: no second timeout while paused (the game waits on seat 0).
        head = len(store.read(gid, 1))
        r = command(c, gid, tokens[0])
        assert r.status_code == 200, r.text
        assert [e.type for e in store.read(gid, 1)[:head]].count(TIMED_OUT) == 1
        envs = wait_events(store, gid, lambda es: [e.type for e in es[head:]].count("boardlog.ClockStarted") >= 1)
        # The clock runs again for bob, and in time bob times out too.
        wait_events(store, gid, lambda es: [e.type for e in es].count(TIMED_OUT) == 2)


def test_summary_shows_the_deadline(dstack: tuple[Stack, EventStore]) -> None:
    s, _ = dstack
    with s.client() as c:
        gid, _ = new_game(c, {"per_move": 3600, "bank": 60, "increment": 30, "on_timeout": "pause"})

        def shown() -> bool:
            clock = c.get(f"/v1/games/{gid}").json().get("clock")
            return bool(clock and clock.get("deadlines", {}).get("0"))

        wait_for(shown, timeout=30)
        clock = c.get(f"/v1/games/{gid}").json()["clock"]
        assert clock["per_move"] == 3600 and clock["on_timeout"] == "pause" and clock["banks_ms"] == [60_000, 60_000]


def test_a_deadline_fires_once_though_its_worker_is_killed_as_it_fires(dstack: tuple[Stack, EventStore]) -> None:
    s, store = dstack
    ns = s.env["BOARDLOG_NAMESPACE"]
    store.r.set(f"{ns}:test:crash-deadline", 1)  # armed: the worker that fires next dies
    with s.client() as c:
        gid, _ = new_game(c, {"per_move": 1, "on_timeout": "skip"})

    def killed() -> str | None:
        return next((n for n in ("dl-a", "dl-b") if n in s.procs and s.procs[n].poll() is not None), None)

    wait_for(lambda: killed() is not None, timeout=60, interval=0.1)
    name = killed()
    assert name is not None and s.procs[name].returncode == -9  # after recording the timeout, before queueing it
    s.procs.pop(name)
    # The killed worker's message goes back on the queue once its heartbeat lapses; the other
    # worker fires it; the timeout applies once, and the next deadline is the next clock's.
    envs = wait_events(store, gid, lambda es: len(timeouts(es)) >= 2, timeout=60)
    first = timeouts(envs)
    assert len(set(first)) == len(first)
    assert [e.type for e in envs].count(TIMED_OUT) == len(first)


def test_a_reminder_reaches_the_notifier(dstack: tuple[Stack, EventStore], web: Web) -> None:
    s, store = dstack
    with s.client() as c:
        r = c.post("/v1/players", json={"name": "remi"})
        assert r.status_code == 201, r.text
        key = r.json()["key"]
        r = c.post("/v1/me/targets", json={"kind": "webhook", "address": web.url("/remind")}, headers=bearer(key))
        assert r.status_code == 201, r.text
        # The player's own zone (set with quiet hours, here without any): the deadline's clock.
        r = c.put("/v1/me/quiet", json={"tz": "Asia/Tokyo", "start": "", "end": ""}, headers=bearer(key))
        assert r.status_code == 200, r.text
        gid, _ = new_game(c, {"per_move": 3, "reminder": 2, "on_timeout": "pause"}, headers=bearer(key),
                          seats=[{"player": "remi"}, "bob"])

        def reminded() -> list[dict[str, Any]]:
            return [b for b in (orjson.loads(h.body) for h in web.hits.get("/remind", []))
                    if b["type"] == "boardlog.notice.reminder" and b["game"] == gid]

        try:
            wait_for(lambda: reminded(), timeout=40, interval=0.1)
        except AssertionError:
            print([orjson.loads(h.body) for h in web.hits.get("/remind", [])])
            print([(e.seq, e.type, e.data) for e in store.read(gid, 1)])
            raise
        got = reminded()
        [due] = [e for e in store.read(gid, 1) if e.type == "boardlog.ReminderDue"]
        tokyo = datetime.fromisoformat(due.data["deadline"].replace("Z", "+00:00")).astimezone(ZoneInfo("Asia/Tokyo"))
        assert got[0]["seat"] == 0 and got[0]["deadline"] == due.data["deadline"]
        assert re.fullmatch(r"at \d\d:\d\d(:\d\d)? on [A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \(Asia/Tokyo\)", got[0]["asked"]), got[0]
        assert got[0]["asked"].startswith(f"at {tokyo:%H:%M}") and f" {tokyo.day} " in got[0]["asked"], (got[0], tokyo)


def test_vacation_stops_every_clock_of_the_player_and_restarts_it_with_the_time_left(
        dstack: tuple[Stack, EventStore]) -> None:
    s, store = dstack
    with s.client() as c:
        r = c.post("/v1/players", json={"name": "vic"})
        assert r.status_code == 201, r.text
        key = r.json()["key"]
        me = bearer(key)
        games = [new_game(c, {"per_move": 600, "on_timeout": "pause"}, headers=me, seats=[{"player": "vic"}, "bob"])[0]
                 for _ in range(2)]
        for gid in games:
            wait_events(store, gid, lambda es: any(e.type == "boardlog.ClockStarted" for e in es))
        assert c.get("/v1/me/vacation", headers=me).json()["on"] is False
        r = c.post("/v1/me/vacation", json={"days": 2}, headers=me)
        assert r.status_code == 200, r.text
        assert r.json()["on"] and sorted(r.json()["games"]) == sorted(games)
        again = c.post("/v1/me/vacation", json={"days": 2}, headers=me)
        assert again.status_code == 409 and again.json()["error"]["code"] == "vacation_on"
        for gid in games:
            envs = wait_events(store, gid, lambda es: any(e.type == "boardlog.ClockStopped" for e in es))
            kinds = [e.type for e in envs]
            assert kinds.index("boardlog.VacationStarted") < kinds.index("boardlog.ClockStopped")
            wait_for(lambda gid=gid: (c.get(f"/v1/games/{gid}").json().get("clock") or {}).get("vacation") == [0],
                     timeout=20)
        gid = games[0]
        stopped = next(e for e in store.read(gid, 1) if e.type == "boardlog.ClockStopped")
        left = stopped.data["left"]["0"]
        started = next(e for e in store.read(gid, 1) if e.type == "boardlog.ClockStarted")
        assert 0 < left <= 600_000 and left == _ms(started.data["deadlines"]["0"]) - _ms(stopped.at)
        # A game that starts while the player is away starts with their clock stopped.
        late, _ = new_game(c, {"per_move": 600, "on_timeout": "pause"}, headers=me, seats=[{"player": "vic"}, "bob"])
        wait_for(lambda: (c.get(f"/v1/games/{late}").json().get("clock") or {}).get("vacation") == [0], timeout=30)
        assert not (c.get(f"/v1/games/{late}").json()["clock"]["deadlines"] or {}).get("0")
        r = c.delete("/v1/me/vacation", headers=me)
        assert r.status_code == 200 and r.json()["on"] is False and r.json()["used_seconds"] > 0
        wait_events(store, late, lambda es: any(e.type == "boardlog.VacationEnded" for e in es))
        assert c.delete("/v1/me/vacation", headers=me).json()["error"]["code"] == "no_vacation"
        envs = wait_events(store, gid, lambda es: any(e.type == "boardlog.ClockResumed" for e in es))
        resumed = next(e for e in envs if e.type == "boardlog.ClockResumed")
        # The clock runs again with exactly the time it had left when it stopped.
        assert _ms(resumed.data["deadlines"]["0"]) - _ms(resumed.at) == left
        for bad in ({"days": 0}, {"days": "2"}, {"days": 2, "why": "x"}):
            r = c.post("/v1/me/vacation", json=bad, headers=me)
            assert r.status_code == 422, (bad, r.text)
        assert c.get("/v1/me/vacation", headers=me).json()["on"] is False
        # A vacation ends by itself when its days are spent (here 3 s): the clocks run again.
        r = c.post("/v1/me/vacation", json={"days": 3 / 86400}, headers=me)
        assert r.status_code == 200 and r.json()["on"], r.text
        envs = wait_events(store, gid, lambda es: [e.type for e in es].count("boardlog.VacationEnded") == 2)
        assert [e.type for e in envs].count("boardlog.ClockResumed") == 2
        assert c.get("/v1/me/vacation", headers=me).json()["on"] is False


def _ms(iso: str) -> int:
    from events.domain.platform.clock import to_ms

    return to_ms(iso)
