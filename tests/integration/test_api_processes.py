"""`boardlog api --processes N`: uvicorn starts N API processes on one port (docs/operations.md,
scaling out). Each is spawned with uvicorn's config pickled, the HTTP protocol class in it, so
that class must be one pickle can find by name (service/runtime/transport.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import child_env, free_port, running_stack, wait_for, wait_http
from tests.integration.helpers import command, new_race

pytestmark = pytest.mark.integration


def test_two_api_processes_on_one_port_start_settle_and_answer_commands(
        redis_url: str, namespace: str, tmp_path: Path) -> None:
    env = child_env(redis_url, namespace, BOARDLOG_LOG_LEVEL="debug", BOARDLOG_LOG="json")
    with running_stack(env, tmp_path) as stack:
        stack.stop("api")
        port = free_port()
        stack.url = f"http://127.0.0.1:{port}"
        proc = stack.start("apis", "api", "--processes", "2", "--port", str(port))
        assert wait_http(stack.url, namespace=namespace, proc=proc), stack.logs()
        with stack.client() as c:
            gid, tokens, _ = new_race(c)
            for i in range(6):
                r = command(c, gid, tokens[i % 2])
                assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
            assert c.get(f"/v1/games/{gid}", params={"min_seq": 7}).json()["seq"] >= 7
        log = tmp_path / "apis.log"
        # each of the two processes built its parts and settled its heap (service/runtime/heap.py)
        wait_for(lambda: log.read_text().count('"runtime.heap_settled"') == 2, timeout=15)
        assert "Traceback" not in log.read_text()
