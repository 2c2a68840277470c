"""Redis shut down and started again under load: clients that send the same command id again
after a 503 get every command applied exactly once, and every part recovers on its own."""

from __future__ import annotations

import collections
import threading
import time
import uuid
from pathlib import Path

import httpx
import orjson
import pytest
import redis

from events.records.chain import verify
from events.store.commandids import shown_id
from events.store.store import EventStore
from service.runtime.embedded import EmbeddedRedis
from tests.conftest import child_env, running_stack, wait_for
from tests.integration.helpers import bearer, new_race, unacked

pytestmark = pytest.mark.integration


def test_a_redis_restart_under_load_loses_nothing_and_applies_nothing_twice(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis", appendonly=True).start()
    r = redis.Redis.from_url(server.url)
    ns = "trestart"
    store = EventStore(r, ns, partitions=8)
    (tmp_path / "logs").mkdir()
    statuses: collections.Counter[int | str] = collections.Counter()
    accepted: dict[str, list[str]] = collections.defaultdict(list)
    try:
        with running_stack(child_env(server.url, ns), tmp_path / "logs") as stack, stack.client() as c:
            games = [new_race(c, target=1_000_000) for _ in range(4)]
            stop = threading.Event()

            def player(gid: str, tokens: list[str]) -> None:
                # Notes, not rolls: no turn to keep in step and no finish line to reach.
                with stack.client() as mine:
                    while not stop.is_set():
                        cid = uuid.uuid4().hex
                        for _ in range(400):  # the same id until the command has its answer
                            try:
                                res = mine.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[0]),
                                                json={"id": cid, "type": "race.note", "args": {"text": cid}})
                                statuses[res.status_code] += 1
                                if res.status_code == 200:
                                    accepted[gid].append(cid)
                                if res.status_code != 503:
                                    break
                            except httpx.HTTPError as e:
                                statuses[type(e).__name__] += 1
                            time.sleep(0.05)

            threads = [threading.Thread(target=player, args=(gid, tokens)) for gid, tokens, _ in games]
            for t in threads:
                t.start()
            time.sleep(1.5)
            before = r.info("server")["run_id"]
            server.stop()
            # The lobby page needs no Redis, even for a browser whose sign-in hint wants mending.
            lobby = httpx.get(stack.url + "/", cookies={"boardlog_session": "s3cr3t"}, timeout=10)
            assert lobby.status_code == 200 and "set-cookie" not in lobby.headers
            server.start()
            assert r.info("server")["run_id"] != before  # a new server process, every connection dropped
            time.sleep(1.5)
            stop.set()
            deadline = time.monotonic() + 60
            for t in threads:
                t.join(timeout=max(0.1, deadline - time.monotonic()))
            assert not any(t.is_alive() for t in threads)
            assert set(statuses) <= {200, 503}, statuses
            for gid, _, _ in games:
                envs = store.read(gid)
                assert verify(envs) is None
                # the log keys a client's id by its sender (events.store.commandids): as sent here
                written = [shown_id(e.command or "") for e in envs if e.type == "race.NoteWritten"]
                assert sorted(written) == sorted(accepted[gid])  # each once, and no other
                head = store.head(gid)
                assert head is not None
                wait_for(lambda gid=gid, seq=head.seq: store.checkpoint(gid) == seq, timeout=15)

            wait_for(lambda: unacked(r, ns) == 0, timeout=15)
            # The outage is expected: logged as warnings, not as tracebacks of failed messages,
            # and every line is JSON, dramatiq's own (its consumers' reconnects) included.
            for part in ("worker", "projector", "api"):
                text = (tmp_path / "logs" / f"{part}.log").read_text()
                assert "Traceback" not in text, text[-3000:]
                lines = [orjson.loads(line) for line in text.splitlines()]
                assert not [x for x in lines if x["level"] in ("error", "critical")], text[-3000:]
            assert any(x.get("logger", "").startswith("dramatiq") for x in
                       map(orjson.loads, (tmp_path / "logs" / "worker.log").read_text().splitlines()))
    finally:
        r.close()
        server.stop()
