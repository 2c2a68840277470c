"""A deadline set before a full restart of `boardlog serve` (every part and the embedded Redis,
which keeps its AOF) still fires after it: the delayed message outlives every process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from service.embedded import free_port
from tests.conftest import ROOT, child_env, wait_for, wait_http

pytestmark = pytest.mark.integration

PER_MOVE = 15  # long enough to stop serve before it falls due (stopping takes < 10 s)


def start_serve(data: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = child_env("unused", "bl", BOARDLOG_CLOCK_MIN_SECONDS="1")
    del env["REDIS_URL"]
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data", str(data), "--workers", "1"],
        env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
    )


def stop(p: subprocess.Popen[bytes]) -> int:
    """Ctrl-C, as a terminal sends it to the whole process group (test_serve times how long it
    takes; here only that it stops)."""
    os.killpg(p.pid, signal.SIGINT)
    return p.wait(timeout=60)


def test_a_deadline_set_before_a_full_restart_fires_after_it(tmp_path: Path) -> None:
    data, port, log = tmp_path / "var", free_port(), tmp_path / "serve.log"
    url = f"http://127.0.0.1:{port}"
    p = start_serve(data, port, log)
    try:
        wait_http(url, timeout=90)
        with httpx.Client(base_url=url, timeout=30) as c:
            r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "options": {
                "target": 1000, "clock": {"per_move": PER_MOVE, "on_timeout": "pause"}}})
            assert r.status_code == 201, r.text
            gid = r.json()["id"]
        # The deadline is scheduled (a delayed message in the broker's Redis) before anything stops.
        wait_for(lambda: f'"game":"{gid}"' in log.read_text() and "deadlines.scheduled" in log.read_text(),
                 timeout=60, interval=0.1)
        time.sleep(1.2)  # the AOF is written every second
    finally:
        assert stop(p) == 0
    stopped = datetime.now(UTC)
    p = start_serve(data, port, log)
    try:
        wait_http(url, timeout=90)
        with httpx.Client(base_url=url, timeout=30) as c:
            wait_for(lambda: (c.get(f"/v1/games/{gid}").json().get("clock") or {}).get("timed_out") == [0],
                     timeout=120, interval=0.2)
            events = c.get(f"/v1/games/{gid}/events").json()["events"]
            timed_out = [e for e in events if e["type"] == "boardlog.TurnTimedOut"]
            assert len(timed_out) == 1
            at = datetime.fromisoformat(timed_out[0]["at"].replace("Z", "+00:00"))
            assert at > stopped  # fired after the restart, not before the stop
    finally:
        assert stop(p) == 0
