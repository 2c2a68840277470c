"""`boardlog export` and `boardlog audit` as a person runs them; join through the API."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, Stack
from tests.integration.helpers import bearer, command, new_race
from tests.support.clirun import Ran, run_cli

pytestmark = pytest.mark.integration


def real_cli(stack: Stack, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`python -m service.runtime.cli` itself: the entry point, as a person runs it."""
    return subprocess.run([sys.executable, "-m", "service.runtime.cli", *args], env=stack.env, cwd=ROOT,
                          capture_output=True, timeout=60)


def cli(stack: Stack, *args: str) -> Ran:
    """The same typer app in this process (tests/support/clirun.py): no second import of the app."""
    return run_cli(stack.env, *args)


def test_export_then_audit_offline_ok_and_tampered(stack: Stack, tmp_path: Path) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, target=15)
        assert c.post(f"/v1/games/{gid}/join", headers=bearer(tokens[1]), json={"entropy": "my dice"}).status_code == 200
        r = c.post(f"/v1/games/{gid}/join", headers=bearer(tokens[1]), json={"entropy": "again"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "already_joined"
        r = c.post(f"/v1/games/{gid}/join", headers=bearer(tokens[0]), json={"entropy": ""})
        assert r.status_code == 422
        seat = 0
        for _ in range(200):
            r = command(c, gid, tokens[seat])
            if r.status_code == 409:  # the game is over: the append marked it so
                assert r.json()["error"]["code"] == "game_over"
                break
            assert r.status_code == 200, r.text
            seat = 1 - seat
    out = real_cli(stack, "export", gid)
    assert out.returncode == 0, out.stderr
    record = tmp_path / "game.jsonl"
    record.write_bytes(out.stdout)
    with stack.client() as c:
        key = c.get("/v1/keys").json()["keys"][0]["public_key"]
    ok = real_cli(stack, "audit", str(record), "--key", key)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith(b"VERIFIED ")
    # without the service's key, the key the file names proves nothing (issue #21)
    assert cli(stack, "audit", str(record)).stdout.startswith("UNVERIFIABLE ")
    lines = out.stdout.splitlines(keepends=True)
    # Back-date event 6: its hash no longer matches its content.
    pos = lines[5].index(b'"at":"') + 6
    lines[5] = lines[5][:pos] + b"1999" + lines[5][pos + 4:]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines))
    fail = cli(stack, "audit", str(bad), "--key", key)
    assert fail.returncode == 1 and fail.stdout.startswith("FAILED") and "seq 6" in fail.stdout
    assert cli(stack, "audit", str(tmp_path / "missing.jsonl")).returncode == 2
    assert cli(stack, "export", "p01-aaaaaaaaaaaa").returncode == 2
