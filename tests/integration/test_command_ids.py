"""Command ids nobody can squat (issue #42 item 1), through real processes: an API, a command
worker, the projector and a deadlines worker over a real Redis, clocks of seconds.

A command's answer is kept per (game, principal, id) and the platform's own commands have ids
derived with the deployment's secret (events.store.commandids). Each squat the red team made
is made here first, under the id the platform used to give its command, and the platform's
command still happens: the clock's timeout, a resigned seat's answer, the admin's abort and
hide, a seat's join. An id in the platform's namespace is refused `reserved_id` and writes
nothing; another seat's id answers that seat's own command, never the first seat's answer."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from events.domain.match import COMMAND_ACCEPTED
from events.store.store import EventStore
from tests.conftest import Stack, child_env, start_api, wait_for
from tests.integration.helpers import bearer, command, new_race

pytestmark = pytest.mark.integration

# A command every seat may send and the rules refuse (no proposal is open): the squatter's answer.
REFUSED = {"type": "boardlog.accept", "args": {}}


@pytest.fixture(scope="module")
def ids_stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, EventStore]]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_CLOCK_MIN_SECONDS="1")
    logdir = tmp_path_factory.mktemp("ids")
    env["BOARDLOG_DATA"] = str(logdir / "data")
    s = Stack("", env, logdir=logdir)
    client = redis.Redis.from_url(redis_url)
    try:
        s.start("worker", "worker", "--threads", "4")
        s.start("projector", "projector")
        s.start("deadlines", "deadlines")
        start_api(s, ns)
        yield s, EventStore(client, ns, 8)
    finally:
        for name in list(s.procs):
            s.stop(name)
        for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
            keys = list(client.scan_iter(match=pattern, count=1000))
            for i in range(0, len(keys), 500):
                client.delete(*keys[i : i + 500])
        client.close()


def squat(c: httpx.Client, gid: str, token: str, cid: str) -> httpx.Response:
    """A seat's refused command under `cid`, posted before the platform's own."""
    r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(token), json={"id": cid, **REFUSED})
    assert r.status_code == 422 and r.json()["id"] == cid, r.text
    return r


def accepted(store: EventStore, gid: str) -> list[Any]:
    return [e for e in store.read(gid) if e.type == COMMAND_ACCEPTED]


def new_game(c: httpx.Client, seats: int = 2, clock: dict[str, Any] | None = None) -> tuple[str, list[str], str]:
    options: dict[str, Any] = {"target": 1000, **({"clock": clock} if clock else {})}
    r = c.post("/v1/games", json={"game": "race", "seats": [f"p{i}" for i in range(seats)], "options": options})
    assert r.status_code == 201, r.text
    g = r.json()
    return g["id"], [s["token"] for s in g["seats"]], g["admin_token"]


def test_an_id_in_the_platforms_namespace_is_refused_and_writes_nothing(ids_stack: tuple[Stack, EventStore]) -> None:
    stack, store = ids_stack
    with stack.client() as c:
        gid, tokens, admin = new_race(c)
        head = store.head(gid)
        assert head is not None
        for token, cid in ((tokens[0], "bl-timeout-2-0"), (admin, "bl-abort"), (tokens[1], "BL-auto-3-resigned1")):
            r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(token), json={"id": cid, **REFUSED})
            assert r.status_code == 422, r.text
            error = r.json()["error"]
            assert error["code"] == "reserved_id" and "'bl-'" in error["message"] and cid[:16] in error["message"]
            r = c.post(f"/v1/games/{gid}/messages", headers=bearer(tokens[0]), json={"id": cid, "text": "hi"})
            assert r.status_code == 422 and r.json()["error"]["code"] == "reserved_id", r.text
        assert store.head(gid) == head
        assert store.r.hlen(store.keys(gid).results) == 0 and store.r.hlen(store.keys(gid).pending) == 0


def test_a_seat_squatting_its_own_timeout_still_times_out(ids_stack: tuple[Stack, EventStore]) -> None:
    """Under `forfeit`, seat 0 posts refused commands under every id its timeout used to get
    (`timeout-<clock seq>-0`, and the retries' `-2`...): the deadline still forfeits it."""
    stack, store = ids_stack
    with stack.client() as c:
        gid, tokens, _ = new_game(c, clock={"per_move": 3, "on_timeout": "forfeit"})
        for clock_seq in range(1, 8):
            for cid in (f"timeout-{clock_seq}-0", f"timeout-{clock_seq}-0-2"):
                squat(c, gid, tokens[0], cid)
        wait_for(lambda: any(e.type == "boardlog.TurnTimedOut" for e in store.read(gid)), timeout=30, interval=0.2)
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["status"] != "active", timeout=10)
        summary = c.get(f"/v1/games/{gid}").json()
        assert summary["outcome"]["winners"] == [1], summary
        timeout = next(e for e in accepted(store, gid) if e.data["type"] == "boardlog.timeout")
        assert timeout.command.startswith("bl-timeout-") and timeout.seat is None
        # The platform's answer is nobody's to read, however its id was learned (the log shows it).
        r = c.get(f"/v1/games/{gid}/commands/{timeout.command}", headers=bearer(tokens[0]))
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_command_id"


def test_a_resigned_seat_is_answered_for_despite_squats(ids_stack: tuple[Stack, EventStore]) -> None:
    """Seat 0 posts refused commands under the ids the platform gave a resigned seat's answers
    (`auto-<seq>-resigned2`) for the seqs to come: the game still goes round the resigned seat."""
    stack, store = ids_stack
    with stack.client() as c:
        gid, tokens, _ = new_game(c, seats=3)
        r = command(c, gid, tokens[2], "boardlog.resign")
        assert r.json()["status"] == "accepted", r.text
        seq = r.json()["seq"][1]
        for n in range(seq, seq + 40):
            squat(c, gid, tokens[0], f"auto-{n}-resigned2")
        for round_ in range(3):
            for seat in (0, 1):
                r = command(c, gid, tokens[seat])
                assert r.json()["status"] == "accepted", (round_, seat, r.text)
        answers = [e for e in accepted(store, gid) if e.seat == 2 and e.data["type"] == "race.roll"]
        assert len(answers) == 3 and all(e.command.startswith("bl-auto-") for e in answers), answers


def test_a_seats_join_happens_despite_a_squat(ids_stack: tuple[Stack, EventStore]) -> None:
    """Seat 1 takes seat 0's old join id (`join-0`) first: seat 0's entropy still counts."""
    stack, store = ids_stack
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        squat(c, gid, tokens[1], "join-0")
        r = c.post(f"/v1/games/{gid}/join?wait=1", headers=bearer(tokens[0]), json={"entropy": "mine"})
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        assert r.json()["id"].startswith("bl-join-0-") and "receipt" in r.json()
        assert [e.data["entropy"] for e in store.read(gid) if e.type == "boardlog.EntropyAdded"] == ["mine"]
        again = c.post(f"/v1/games/{gid}/join?wait=1", headers=bearer(tokens[0]), json={"entropy": "mine"})
        assert again.status_code == 200 and again.json()["seq"] == r.json()["seq"]


def test_the_admins_hide_happens_despite_a_squat(ids_stack: tuple[Stack, EventStore]) -> None:
    """Seat 1 takes the old id of the hide of seat 0's message (`hide-<seq>`) first."""
    stack, store = ids_stack
    with stack.client() as c:
        gid, tokens, admin = new_race(c)
        r = c.post(f"/v1/games/{gid}/messages?wait=1", headers=bearer(tokens[0]), json={"text": "rude words"})
        assert r.status_code == 200, r.text
        message = r.json()["seq"][1]
        squat(c, gid, tokens[1], f"hide-{message}")
        r = c.post(f"/v1/games/{gid}/messages/{message}/hide", headers=bearer(admin), json={"reason": "rude"})
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        assert any(e.type == "boardlog.MessageHidden" for e in store.read(gid))


def test_the_admins_abort_happens_despite_a_squat(ids_stack: tuple[Stack, EventStore]) -> None:
    """Seat 0 takes the old id of the admin's abort (`abort-<game>`) first."""
    stack, _ = ids_stack
    with stack.client() as c:
        gid, tokens, admin = new_race(c)
        squat(c, gid, tokens[0], f"abort-{gid}")
        r = c.post(f"/v1/games/{gid}/abort", headers=bearer(admin))
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["status"] == "aborted", timeout=10)


def test_another_seats_id_answers_that_seats_own_command(ids_stack: tuple[Stack, EventStore]) -> None:
    """Seat 1 reusing seat 0's id plays its own command, with its own answer and receipt; it
    never receives seat 0's, and each seat reads its own under the one id."""
    stack, store = ids_stack
    with stack.client() as c:
        gid, tokens, admin = new_race(c)
        cid = "shared-id-1"
        first = command(c, gid, tokens[0], cid=cid)
        assert first.status_code == 200 and first.json()["seat"] == 0, first.text
        second = command(c, gid, tokens[1], cid=cid)
        assert second.status_code == 200, second.text
        assert second.json()["seat"] == 1 and second.json()["id"] == cid
        assert second.json()["seq"] != first.json()["seq"] and second.json()["receipt"] != first.json()["receipt"]
        rolls = [e for e in accepted(store, gid) if e.data["type"] == "race.roll"]
        assert [(e.seat, e.command) for e in rolls] == [(0, f"seat:0/{cid}"), (1, f"seat:1/{cid}")]
        for seat in (0, 1):
            got = c.get(f"/v1/games/{gid}/commands/{cid}", headers=bearer(tokens[seat])).json()
            assert got["seat"] == seat and got["id"] == cid, got
        r = c.get(f"/v1/games/{gid}/commands/{cid}", headers=bearer(admin))
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_command_id"
        # Sent again, each seat's id answers its own first answer (idempotent per principal).
        assert command(c, gid, tokens[0], cid=cid).json()["seq"] == first.json()["seq"]
