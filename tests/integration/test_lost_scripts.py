"""A Redis that lost its Lua scripts (restarted, or SCRIPT FLUSH) is answered NOSCRIPT: every
part loads the script again and sends what failed, and nothing is lost or done twice."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis

from events.records.chain import verify
from events.store.store import EventStore
from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import command, new_race, unacked

pytestmark = pytest.mark.integration


def test_commands_go_on_after_the_server_forgets_its_scripts(private_redis: str, tmp_path: Path) -> None:
    ns = "tlost"
    r = redis.Redis.from_url(private_redis)
    store = EventStore(r, ns, partitions=8)
    stack: Stack
    (tmp_path / "logs").mkdir()
    with running_stack(child_env(private_redis, ns), tmp_path / "logs") as stack, stack.client() as c:
        gid, tokens, _ = new_race(c)
        for i in range(4):
            assert command(c, gid, tokens[0], "race.note", {"text": f"a{i}"}).status_code == 200
        for _ in range(3):
            r.script_flush()
            # API enqueue, consumer fetch and ack, the append: each meets NOSCRIPT once.
            with ThreadPoolExecutor(8) as pool:
                codes = list(pool.map(
                    lambda i: command(c, gid, tokens[0], "race.note", {"text": f"b{i}"}).status_code,
                    range(8)))
            assert codes == [200] * 8, (codes, stack.logs())
        envs = store.read(gid)
        assert verify(envs) is None
        notes = [e.data["text"] for e in envs if e.type == "race.NoteWritten"]
        assert len(notes) == 4 + 3 * 8

        wait_for(lambda: unacked(r, ns) == 0, timeout=10)
    r.close()
