"""A handler that cannot reach Redis for longer than it waits lets its message go back on the
queue: the command is neither lost nor applied twice."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import redis

from events.store import EventStore
from tests.conftest import child_env, running_stack, wait_for
from tests.integration.helpers import command, unacked


def test_a_command_whose_handler_cannot_reach_redis_is_queued_again_until_it_can(
    private_redis: str, tmp_path: Path
) -> None:
    r = redis.Redis.from_url(private_redis)
    store = EventStore(r, "tgone", partitions=8)
    (tmp_path / "logs").mkdir()
    env = child_env(private_redis, "tgone", BOARDLOG_STORE_WAIT_SECONDS="0.3")
    with running_stack(env, tmp_path / "logs", threads=1) as stack, stack.client() as c:
        res = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"target": 1000}})
        assert res.status_code == 201, res.text
        gid, token = res.json()["id"], res.json()["seats"][0]["token"]
        created = len(store.read(gid))
        # The API's command path connects (refused before anything is queued).
        assert command(c, gid, token, "race.nope", wait=False).status_code == 422
        # No command has run, so the worker's thread has no connection of its own yet; every
        # other part is connected. With no new connection let in, the handler meets a Redis it
        # cannot reach, while the consumer's connection and the API's still work. Retries would
        # need a new connection to queue the retry (and then ack the message anyway).
        r.config_set("maxclients", r.info("clients")["connected_clients"])
        worker_log = stack.logdir / "worker.log"  # type: ignore[operator]
        try:
            cid = str(uuid.uuid4())
            assert command(c, gid, token, "race.note", {"text": "kept"}, cid=cid, wait=False).status_code == 202
            # Given up on, put back by the consumer's sweep and tried again, more than once.
            wait_for(lambda: worker_log.read_text().count("broker.requeued_orphans") >= 2, timeout=20)
            assert len(store.read(gid)) == created
        finally:
            r.config_set("maxclients", 10_000)
        wait_for(lambda: c.get(f"/v1/games/{gid}/commands/{cid}").status_code == 200, timeout=20)
        assert c.get(f"/v1/games/{gid}/commands/{cid}").json()["status"] == "accepted"
        notes = [e.data["text"] for e in store.read(gid) if e.type == "race.NoteWritten"]
        assert notes == ["kept"]
        wait_for(lambda: unacked(r, "tgone") == 0, timeout=10)
        assert "Traceback" not in worker_log.read_text()
    r.close()


def test_a_worker_stopped_while_waiting_for_redis_leaves_its_command_to_another(
    private_redis: str, tmp_path: Path
) -> None:
    r = redis.Redis.from_url(private_redis)
    store = EventStore(r, "tstop", partitions=8)
    (tmp_path / "logs").mkdir()
    with running_stack(child_env(private_redis, "tstop"), tmp_path / "logs", threads=1) as stack, \
            stack.client() as c:
        res = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"target": 1000}})
        gid, token = res.json()["id"], res.json()["seats"][0]["token"]
        assert command(c, gid, token, "race.nope", wait=False).status_code == 422
        r.config_set("maxclients", r.info("clients")["connected_clients"])  # as above
        worker_log = stack.logdir / "worker.log"  # type: ignore[operator]
        try:
            cid = str(uuid.uuid4())
            assert command(c, gid, token, "race.note", {"text": "kept"}, cid=cid, wait=False).status_code == 202
            wait_for(lambda: "command.store_unavailable" in worker_log.read_text(), timeout=10)
            t0 = time.monotonic()
            stack.stop("worker")  # SIGTERM while its handler waits (up to 30 s by default)
            assert time.monotonic() - t0 < 5
        finally:
            r.config_set("maxclients", 10_000)
        stack.start("worker2", "worker", "--threads", "1")
        # The stopped worker's message is put back by the new one's maintenance.
        wait_for(lambda: c.get(f"/v1/games/{gid}/commands/{cid}").status_code == 200, timeout=20)
        assert [e.data["text"] for e in store.read(gid) if e.type == "race.NoteWritten"] == ["kept"]
        wait_for(lambda: unacked(r, "tstop") == 0, timeout=10)
    r.close()
