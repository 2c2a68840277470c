"""Connections to Redis dropped under a running stack: the parts connect again and no command
is lost or applied twice. `?wait=1` answers come over the API's subscription; when that
connection drops, waiters read the stored results and the API subscribes again."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import redis

from events.records.chain import verify
from events.store.store import EventStore
from tests.conftest import child_env, running_stack, wait_for
from tests.integration.helpers import command, new_race

pytestmark = pytest.mark.integration


def test_a_dropped_reply_subscription_is_made_again_and_no_answer_is_lost(private_redis: str, tmp_path: Path) -> None:
    r = redis.Redis.from_url(private_redis)
    (tmp_path / "logs").mkdir()
    with running_stack(child_env(private_redis, "treply"), tmp_path / "logs") as stack, stack.client() as c:
        gid, tokens, _ = new_race(c)

        def subscribers() -> int:
            return sum(1 for cl in r.client_list() if int(cl.get("sub", 0)) > 0)

        assert subscribers() == 1
        t0 = time.perf_counter()
        for i in range(5):
            assert command(c, gid, tokens[0], "race.note", {"text": f"a{i}"}).status_code == 200
        fast = (time.perf_counter() - t0) / 5
        assert fast < 0.5  # woken by the published answer, not by the one-second poll
        r.client_kill_filter(_type="pubsub")
        for i in range(3):  # answered from the stored results or the new subscription
            res = command(c, gid, tokens[0], "race.note", {"text": f"b{i}"})
            assert res.status_code == 200 and res.json()["status"] == "accepted", res.text
        wait_for(lambda: subscribers() == 1, timeout=5)
        t0 = time.perf_counter()
        for i in range(5):
            assert command(c, gid, tokens[0], "race.note", {"text": f"c{i}"}).status_code == 200
        assert (time.perf_counter() - t0) / 5 < 0.5
        assert "replies.listen_failed" in (stack.logdir / "api.log").read_text()  # type: ignore[operator]
    r.close()


def test_commands_go_on_after_redis_drops_every_client_connection(private_redis: str, tmp_path: Path) -> None:
    r = redis.Redis.from_url(private_redis)
    store = EventStore(r, "tdrop", partitions=8)
    (tmp_path / "logs").mkdir()
    with running_stack(child_env(private_redis, "tdrop"), tmp_path / "logs") as stack, stack.client() as c:
        gid, tokens, _ = new_race(c)
        texts = []
        for round_ in range(3):
            for i in range(4):
                texts.append(f"r{round_}n{i}")
                res = command(c, gid, tokens[0], "race.note", {"text": texts[-1]})
                assert res.status_code == 200, (res.text, stack.logs())
            assert c.get(f"/v1/games/{gid}").status_code == 200  # a redis-py asyncio read
            # The API's batch and redis-py connections, the workers' own connections and the
            # consumer's: every one breaks at its next use.
            r.client_kill_filter(_type="normal", skipme=True)
            res = c.get(f"/v1/games/{gid}")
            assert res.status_code == 200, (res.text, stack.logs())
        res = command(c, gid, tokens[0], "race.note", {"text": "last"})
        assert res.status_code == 200, (res.text, stack.logs())
        envs = store.read(gid)
        assert verify(envs) is None
        assert [e.data["text"] for e in envs if e.type == "race.NoteWritten"] == [*texts, "last"]
    r.close()
