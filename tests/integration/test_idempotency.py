"""A command applies once: posted twice, or redelivered after its worker died mid-way."""

from __future__ import annotations

import signal
import time
import uuid

import pytest

from events.domain.match import COMMAND_ACCEPTED
from events.store.store import EventStore
from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, new_race
from tests.support import brokers
from workers.actors import declare

pytestmark = pytest.mark.integration

broker_stack = brokers.broker_stack  # the stack on each broker: dramatiq's Redis one and RabbitMQ


def test_the_same_command_id_posted_twice_applies_once(stack: Stack, store: EventStore) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        cid = str(uuid.uuid4())
        first = command(c, gid, tokens[0], cid=cid)
        second = command(c, gid, tokens[0], cid=cid)
        assert first.status_code == second.status_code == 200
        assert first.json() == second.json()
        assert len([e for e in store.read(gid) if e.type == "race.DieRolled"]) == 1
        assert c.get(f"/v1/games/{gid}/commands/{cid}", headers=bearer(tokens[0])).json()["status"] == "accepted"


# A command posted over HTTP travels in a batch (the API's group commit): its write appends,
# posts the comment and settles in one script. A message of the shape queued before batches (one
# command, `handle_command`) still runs: without a comment its append settles it; with one, the
# comment is posted between the append and the settling, so a worker killed after the append
# leaves both.
@pytest.mark.parametrize("shape", ["batch", "single"])
@pytest.mark.parametrize("comment", [None, "good game"])
def test_a_worker_killed_after_the_append_loses_nothing_and_applies_once(
    broker_stack: Stack, store: EventStore, comment: str | None, shape: str
) -> None:
    stack = broker_stack
    stack.stop("worker")
    stack.start("crashy", "worker", "--threads", "1", BOARDLOG_TEST_CRASH_AFTER_APPEND="1")
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        cid = str(uuid.uuid4())
        key = f"seat:0/{cid}"  # the store keys a command by its principal and id
        if shape == "batch":
            body = {"id": cid, "type": "race.roll", "args": {}, **({"comment": comment} if comment else {})}
            r = c.post(f"/v1/games/{gid}/commands", headers=bearer(tokens[0]), json=body)
            assert r.status_code == 202
        else:
            assert store.put_pending(gid, key, {"type": "race.roll", "args": {}, "seat": 0, "expect": None,
                                                **({"comment": comment} if comment else {})})
            broker = brokers.broker_of(stack.env)
            try:
                declare(broker, None).send(gid, key)
            finally:
                broker.close()
        crashy = stack.procs["crashy"]
        wait_for(lambda: crashy.poll() is not None, timeout=15)
        assert crashy.returncode == -signal.SIGKILL
        # The append landed before the kill: the result is answered even with no worker.
        res = c.get(f"/v1/games/{gid}/commands/{cid}", headers=bearer(tokens[0]))
        assert res.status_code == 200 and res.json()["status"] == "accepted"
        left = shape == "single" and bool(comment)  # settled by the append unless an old message's comment
        assert (store.pending(gid, key) is not None) == left
        stack.stop("crashy")
        # A healthy worker picks up the unacknowledged message once the dead one's heartbeat expires.
        stack.start("worker", "worker", "--threads", "2")
        log = stack.logdir / "worker.log"  # type: ignore[operator]
        # The new worker finds the answer (beside the queued body the killed one left, when it
        # had a comment to post first: it posts it and settles), without deciding again.
        wait_for(lambda: "command.already_answered" in log.read_text(), timeout=30, interval=0.2)
        assert len([e for e in store.read(gid) if e.type == "race.DieRolled"]) == 1
        wait_for(lambda: store.pending(gid, key) is None, timeout=5)
        posts = [e for e in store.read(gid) if e.type == COMMAND_ACCEPTED and e.command == f"{key}.comment"]
        assert len(posts) == (1 if comment else 0)
        # and the game goes on normally
        nxt = command(c, gid, tokens[1])
        assert nxt.status_code == 200, nxt.text
        time.sleep(0.1)
        assert c.get(f"/v1/games/{gid}", headers=bearer(tokens[0])).json()["seq"] >= 6


def test_a_command_result_is_read_with_a_token_of_its_own_seat(stack: Stack) -> None:
    """GET .../commands/{cid}: no token is 401; another seat's token, or the admin's for a seat's
    command, answers the same 404 as an id nobody used, so ids and refusals stay the seat's own."""
    with stack.client() as c:
        gid, tokens, admin = new_race(c)
        cid = str(uuid.uuid4())
        assert command(c, gid, tokens[0], cid=cid).status_code == 200
        url = f"/v1/games/{gid}/commands/{cid}"
        assert c.get(url).status_code == 401
        assert c.get(url).json()["error"]["code"] == "token_required"
        assert c.get(url, headers=bearer(tokens[0])).json()["seat"] == 0
        for other in (tokens[1], admin):
            r = c.get(url, headers=bearer(other))
            assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_command_id"
            assert r.json() == c.get(f"/v1/games/{gid}/commands/nobody-used-this", headers=bearer(other)).json() | {
                "error": {"code": "unknown_command_id", "message": r.json()["error"]["message"]}}
        assert c.get(url, headers=bearer("not-a-token")).status_code == 401
        r = c.post(f"/v1/games/{gid}/abort?wait=1", headers=bearer(admin))
        assert r.status_code == 200, r.text
        # The abort's id is the platform's (events.store.commandids): asked again, the first answer.
        assert c.post(f"/v1/games/{gid}/abort?wait=1", headers=bearer(admin)).json() == r.json()
        for who in (admin, tokens[0]):
            assert c.get(f"/v1/games/{gid}/commands/{r.json()['id']}", headers=bearer(who)).status_code == 404
