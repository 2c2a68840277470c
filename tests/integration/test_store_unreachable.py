"""A handler that cannot reach Redis for longer than it waits lets its message go back on the
queue: the command is neither lost nor applied twice."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import redis

from events.store.store import EventStore
from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import bearer, command, new_race, unacked

pytestmark = pytest.mark.integration


@dataclass
class ShutOut:
    stack: Stack
    client: httpx.Client
    store: EventStore
    gid: str
    token: str

    def let_in(self) -> None:
        self.store.r.config_set("maxclients", 10_000)

    def answer(self, cid: str) -> httpx.Response:
        return self.client.get(f"/v1/games/{self.gid}/commands/{cid}", headers=bearer(self.token))


@contextlib.contextmanager
def shut_out(redis_url: str, tmp_path: Path, ns: str, **env: str) -> Iterator[ShutOut]:
    """A stack with one worker thread and a game, then no new connection let in to Redis.

    No command has run, so the worker's thread has no connection of its own yet; every other
    part is connected. The handler meets a Redis it cannot reach, while the consumer's
    connection and the API's still work. Retries would need a new connection to queue the
    retry (and then ack the message anyway).
    """
    r = redis.Redis.from_url(redis_url)
    (tmp_path / "logs").mkdir()
    try:
        with running_stack(child_env(redis_url, ns, **env), tmp_path / "logs", threads=1) as stack, \
                stack.client() as c:
            gid, tokens, _ = new_race(c)
            # The API's command path connects (refused before anything is queued).
            assert command(c, gid, tokens[0], "race.nope", wait=False).status_code == 422
            r.config_set("maxclients", r.info("clients")["connected_clients"])
            out = ShutOut(stack, c, EventStore(r, ns, partitions=8), gid, tokens[0])
            try:
                yield out
            finally:
                out.let_in()
    finally:
        r.close()


def notes(s: ShutOut) -> list[str]:
    return [e.data["text"] for e in s.store.read(s.gid) if e.type == "race.NoteWritten"]


def test_a_command_whose_handler_cannot_reach_redis_is_queued_again_until_it_can(
    private_redis: str, tmp_path: Path
) -> None:
    with shut_out(private_redis, tmp_path, "tgone", BOARDLOG_STORE_WAIT_SECONDS="0.3") as s:
        worker_log = tmp_path / "logs" / "worker.log"
        cid = str(uuid.uuid4())
        assert command(s.client, s.gid, s.token, "race.note", {"text": "kept"}, cid=cid, wait=False).status_code == 202
        # Given up on, put back by the consumer's sweep and tried again, more than once.
        wait_for(lambda: worker_log.read_text().count("broker.requeued_orphans") >= 2, timeout=20)
        assert notes(s) == []
        s.let_in()
        wait_for(lambda: s.answer(cid).status_code == 200, timeout=20)
        assert s.answer(cid).json()["status"] == "accepted"
        assert notes(s) == ["kept"]
        wait_for(lambda: unacked(s.store.r, "tgone") == 0, timeout=10)
        assert "Traceback" not in worker_log.read_text()


def test_a_worker_stopped_while_waiting_for_redis_leaves_its_command_to_another(
    private_redis: str, tmp_path: Path
) -> None:
    with shut_out(private_redis, tmp_path, "tstop") as s:
        worker_log = tmp_path / "logs" / "worker.log"
        cid = str(uuid.uuid4())
        assert command(s.client, s.gid, s.token, "race.note", {"text": "kept"}, cid=cid, wait=False).status_code == 202
        wait_for(lambda: "command.store_unavailable" in worker_log.read_text(), timeout=10)
        t0 = time.monotonic()
        s.stack.stop("worker")  # SIGTERM while its handler waits (up to 30 s by default)
        assert time.monotonic() - t0 < 5
        s.let_in()
        s.stack.start("worker2", "worker", "--threads", "1")
        # The stopped worker's message is put back by the new one's maintenance.
        wait_for(lambda: s.answer(cid).status_code == 200, timeout=20)
        assert notes(s) == ["kept"]
        wait_for(lambda: unacked(s.store.r, "tstop") == 0, timeout=10)
