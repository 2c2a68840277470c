"""`boardlog serve` with the embedded Redis keeps every game across a stop and a start, and
Ctrl-C in its terminal stops every part cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from service.embedded import free_port
from tests.conftest import ROOT, child_env, wait_for, wait_http
from tests.integration.helpers import command, new_race


def start_serve(data: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = child_env("unused", "bl")
    del env["REDIS_URL"]
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data", str(data), "--workers", "1"],
        env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
    )


def stop(p: subprocess.Popen[bytes]) -> int:
    """Ctrl-C as a terminal sends it: SIGINT to the whole foreground process group."""
    os.killpg(p.pid, signal.SIGINT)
    return p.wait(timeout=30)


def test_serve_stopped_and_started_again_keeps_every_game(tmp_path: Path) -> None:
    data, port, log = tmp_path / "var", free_port(), tmp_path / "serve.log"
    url = f"http://127.0.0.1:{port}"
    p = start_serve(data, port, log)
    try:
        wait_http(url, timeout=30)
        with httpx.Client(base_url=url, timeout=30) as c:
            games = []
            for _ in range(3):
                gid, tokens, _ = new_race(c)
                assert command(c, gid, tokens[0]).status_code == 200
                games.append((gid, tokens))
            wait_for(lambda: all(c.get(f"/v1/games/{g}").json()["seq"] >= 4 for g, _ in games))
            before = {g: c.get(f"/v1/games/{g}").json() for g, _ in games}
    finally:
        assert stop(p) == 0
    text = log.read_text()
    assert "open http://127.0.0.1:" in text
    # The embedded Redis outlives the parts still flushing into it: no part meets a dead server.
    assert "CRITICAL" not in text and "Traceback" not in text, text[-3000:]
    assert (data / "appendonly.aof").exists() or (data / "appendonlydir").exists()
    p = start_serve(data, port, log)
    try:
        wait_http(url, timeout=30)
        with httpx.Client(base_url=url, timeout=30) as c:
            for gid, tokens in games:
                assert c.get(f"/v1/games/{gid}").json() == before[gid]
                assert command(c, gid, tokens[1]).status_code == 200
            lobby = {g["id"] for g in c.get("/v1/games").json()["games"]}
            assert {g for g, _ in games} <= lobby
    finally:
        assert stop(p) == 0
