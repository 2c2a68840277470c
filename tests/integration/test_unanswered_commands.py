"""No command stays 'queued' for ever: one that fails every try for a reason outside the rules
is answered as failed once its retries are spent (not left behind a dead letter), and one
whose dramatiq message is lost (a broker Redis restarted without its data) is queued again
by the projector's sweep and answered."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from events.store.store import EventStore
from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import bearer, command, new_race, unacked
from workers.actors import declare
from workers.broker import make_broker

pytestmark = pytest.mark.integration


@contextlib.contextmanager
def game(redis_url: str, namespace: str, tmp_path: Path, **env: str) -> Iterator[tuple[Stack, httpx.Client, str, str]]:
    """A stack with `env` and a new race game: the stack, a client, the game id, seat 0's token."""
    with running_stack(child_env(redis_url, namespace, **env), tmp_path) as stack, stack.client() as c:
        gid, tokens, _ = new_race(c)
        yield stack, c, gid, tokens[0]


def test_a_command_whose_retries_are_spent_is_answered_as_failed(
    redis_url: str, namespace: str, store: EventStore, tmp_path: Path
) -> None:
    with game(redis_url, namespace, tmp_path, BOARDLOG_MAX_RETRIES="2") as (_, c, gid, token):
        n = len(store.read(gid))
        # A queued body the handler cannot read (no type): a bug outside decide, every try.
        cid = str(uuid.uuid4())
        key = f"seat:0/{cid}"  # seat 0's command, as the API keys it (events.store.commandids)
        assert store.put_pending(gid, key, {"args": {}, "seat": 0, "expect": None})
        broker = make_broker(redis_url, namespace=f"{namespace}-dramatiq")
        try:
            declare(broker, None).send(gid, key)
        finally:
            broker.close()
        wait_for(lambda: c.get(f"/v1/games/{gid}/commands/{cid}", headers=bearer(token)).status_code != 202, timeout=30)
        r = c.get(f"/v1/games/{gid}/commands/{cid}", headers=bearer(token))
        assert r.status_code == 500, r.text
        assert r.json()["error"]["code"] == "internal_error" and "failed 3 times" in r.json()["error"]["message"]
        assert len(store.read(gid)) == n
        # Nothing left queued or held; the message itself is in the dead-letter queue.
        dead = f"{namespace}-dramatiq:commands.XQ.msgs"
        wait_for(lambda: unacked(store.r, namespace) - store.r.hlen(dead) == 0, timeout=10)
        assert store.r.hlen(dead) == 1
        logged = [orjson.loads(x) for x in (tmp_path / "worker.log").read_text().splitlines()]
        assert [x["command"] for x in logged if x["event"] == "command.gave_up"] == [key]


def test_a_command_whose_message_was_lost_is_queued_again_and_answered(
    redis_url: str, namespace: str, store: EventStore, tmp_path: Path
) -> None:
    with game(redis_url, namespace, tmp_path, BOARDLOG_REQUEUE_AFTER_SECONDS="1") as (stack, c, gid, token):
        stack.stop("worker")
        cid = str(uuid.uuid4())
        assert command(c, gid, token, "race.note", {"text": "lost"}, cid=cid, wait=False).status_code == 202
        # The broker's data is gone; the command is still queued in the store.
        lost = list(store.r.scan_iter(match=f"{namespace}-dramatiq:*"))
        assert lost
        store.r.delete(*lost)
        stack.start("worker2", "worker", "--threads", "1")
        wait_for(lambda: c.get(f"/v1/games/{gid}/commands/{cid}", headers=bearer(token)).status_code == 200, timeout=20)
        assert [e.data["text"] for e in store.read(gid) if e.type == "race.NoteWritten"] == ["lost"]
        assert '"event":"command.requeued"' in (tmp_path / "projector.log").read_text()
        # Answered: the sweep forgets it.
        wait_for(lambda: store.r.zcard(store.keys(gid).queued) == 0, timeout=10)
