"""A command that fails every try for a reason outside the rules is answered as failed once
its retries are spent, instead of staying queued behind a dead letter."""

from __future__ import annotations

import uuid
from pathlib import Path

import orjson

from events.store import EventStore
from tests.conftest import child_env, running_stack, wait_for
from tests.integration.helpers import new_race, unacked
from workers.actors import declare
from workers.broker import make_broker


def test_a_command_whose_retries_are_spent_is_answered_as_failed(
    redis_url: str, namespace: str, store: EventStore, tmp_path: Path
) -> None:
    env = child_env(redis_url, namespace, BOARDLOG_MAX_RETRIES="2")
    with running_stack(env, tmp_path) as stack, stack.client() as c:
        gid, _, _ = new_race(c)
        n = len(store.read(gid))
        # A queued body the handler cannot read (no type): a bug outside decide, every try.
        cid = str(uuid.uuid4())
        assert store.put_pending(gid, cid, {"args": {}, "seat": 0, "expect": None})
        broker = make_broker(redis_url, namespace=f"{namespace}-dramatiq")
        try:
            declare(broker, None).send(gid, cid)
        finally:
            broker.close()
        wait_for(lambda: c.get(f"/v1/games/{gid}/commands/{cid}").status_code != 202, timeout=30)
        r = c.get(f"/v1/games/{gid}/commands/{cid}")
        assert r.status_code == 500, r.text
        assert r.json()["error"]["code"] == "internal_error" and "failed 3 times" in r.json()["error"]["message"]
        assert len(store.read(gid)) == n
        # Nothing left queued or held; the message itself is in the dead-letter queue.
        dead = f"{namespace}-dramatiq:commands.XQ.msgs"
        wait_for(lambda: unacked(store.r, namespace) - store.r.hlen(dead) == 0, timeout=10)
        assert store.r.hlen(dead) == 1
        logged = [orjson.loads(x) for x in (tmp_path / "worker.log").read_text().splitlines()]
        assert [x["command"] for x in logged if x["event"] == "command.gave_up"] == [cid]
