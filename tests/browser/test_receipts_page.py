"""The board page keeps each accepted move's signed receipt in the browser and offers them for
download, and the downloaded file is what `boardlog audit --receipt` reads (issue #21 item 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from events.records.signing import RECEIPT, valid
from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack
from tests.support.clirun import run_cli

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,  # one stack for the module's tests, each on games of its own
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def test_the_board_keeps_receipts_and_offers_them_for_download(
        stack: Stack, new_page: Any, tmp_path: Path, shots: Path) -> None:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "options": {"target": 1000}})
        assert r.status_code == 201
        game = r.json()
        keys = c.get("/v1/keys").json()
    gid = game["id"]
    page = new_page()
    page.goto(f"{stack.url}/games/{gid}#token={game['seats'][0]['token']}")
    expect(page.locator("#seq")).to_have_text("2")
    expect(page.locator("#receipts-line")).to_be_hidden()
    page.locator("#commands button", has_text="roll").click()
    expect(page.locator("#cmd-msg")).to_contain_text("Accepted: roll")
    expect(page.locator("#receipts-line")).to_be_visible()
    expect(page.locator("#receipts-count")).to_have_text("1")
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('boardlog.receipts.{gid}'))")
    assert len(kept) == 1 and kept[0]["game"] == gid and kept[0]["seq"] == 4  # the last seq of the roll (CommandAccepted, DieRolled)
    public = bytes.fromhex(keys["keys"][0]["public_key"])
    assert valid(RECEIPT, kept[0], public)
    # still there after a reload (localStorage, not the tab's memory)
    page.reload()
    expect(page.locator("#seq")).to_have_text("4")  # the page loaded (the count is there before it)
    expect(page.locator("#receipts-line")).to_be_visible()
    expect(page.locator("#receipts-count")).to_have_text("1")
    page.screenshot(path=str(shots / "board-receipts.png"), full_page=True)
    with page.expect_download() as dl:
        page.locator("#receipts-link").click()
    saved = tmp_path / dl.value.suggested_filename
    dl.value.save_as(saved)
    assert saved.name == f"{gid}-receipts.json"
    assert json.loads(saved.read_text())["receipts"] == kept
    # the download is what the audit reads: the live record matches it
    env = stack.env
    record = tmp_path / "live.jsonl"
    # In this process (tests/support/clirun.py); tests/integration/test_cli.py runs the real entry point.
    out = run_cli(env, "export", gid)
    assert out.returncode == 0, out.stderr
    record.write_bytes(out.stdout_bytes)
    keyfile = tmp_path / "keys.json"
    keyfile.write_text(json.dumps(keys))
    audit = run_cli(env, "audit", str(record), "--key", str(keyfile), "--receipt", str(saved))
    assert audit.returncode == 0 and "1 receipt match" in audit.stdout, audit.stdout + audit.stderr
