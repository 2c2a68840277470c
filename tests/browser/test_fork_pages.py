"""Analysis games, refereed games and imported records on the pages (issue #21 items 3, 6 and 7):
the board page and the lobby badge a fork (linking to the origin's replay at the seq) and name a
game's referee; the board page badges a game loaded by `boardlog import`."""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from events.records.export import export_lines
from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer
from tests.integration.test_referees import _play
from tests.support.clirun import run_cli
from tests.support.records import play_offline

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,  # one stack for the module's tests, each on games of its own
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


@pytest.mark.browser
def test_a_fork_and_a_refereed_game_are_badged(stack: Stack, new_page: Any, shots: Path) -> None:
    with stack.client() as c:
        made = c.post("/v1/games", json={"game": "factions", "seats": ["ann", "bob"], "referee": "rita"}).json()
        gid, tokens = made["id"], [s["token"] for s in made["seats"]]
        n = _play(c, gid, tokens, 4, random.Random(1))
        r = c.post(f"/v1/games/{gid}/forks", json={}, headers=bearer(tokens[0]))
        assert r.status_code == 201, r.text
        fork = r.json()
        fid = fork["id"]
        wait_for(lambda: any(g["id"] == fid for g in c.get("/v1/games?limit=500").json()["games"]))
    for width, height, name in ((1280, 900, "desktop"), (390, 844, "phone")):
        page = new_page(width, height)
        page.goto(f"{stack.url}/games/{fid}#token={fork['seats'][0]['token']}")
        badge = page.locator("#status .analysis-badge")
        expect(badge).to_have_text(f"analysis · from {gid} @ {n}")
        assert badge.get_attribute("href") == f"/games/{gid}/replay?seq={n}"  # a seq (the replay's ?at= is a step)
        expect(page.locator("#status .referee-badge")).to_have_count(0)  # the fork names no referee
        page.screenshot(path=str(shots / f"fork-board-{name}.png"), full_page=False)
        origin = new_page(width, height)
        origin.goto(f"{stack.url}/games/{gid}#token={tokens[1]}")
        expect(origin.locator("#status .referee-badge")).to_have_text("refereed by rita")
        expect(origin.locator("#status .analysis-badge")).to_have_count(0)
        origin.screenshot(path=str(shots / f"refereed-board-{name}.png"), full_page=False)
    # The board's Fork button forks the position shown, for whoever asks (a spectator here).
    watcher = new_page()
    watcher.goto(f"{stack.url}/games/{gid}")
    expect(watcher.locator("#seq")).to_have_text(str(n))
    watcher.locator("#fork").click()
    expect(watcher.locator("#fork-msg")).to_contain_text(f"forked at seq {n}")
    expect(watcher.locator("#fork-msg a.fork-seat")).to_have_count(2)
    watcher.screenshot(path=str(shots / "fork-button.png"), full_page=False)
    watcher.locator("#fork-msg a.fork-seat").first.click()
    expect(watcher.locator("#status .analysis-badge")).to_have_text(f"analysis · from {gid} @ {n}")
    expect(watcher.locator("#your-seat")).to_contain_text("ann")
    lobby = new_page()
    lobby.goto(stack.url + "/")
    expect(lobby.locator(f'tr[data-game="{fid}"] .analysis-badge')).to_have_text("analysis")
    expect(lobby.locator(f'tr[data-game="{gid}"] .referee-badge')).to_have_text("refereed")
    expect(lobby.locator(f'tr[data-game="{gid}"] .analysis-badge')).to_have_count(0)
    lobby.screenshot(path=str(shots / "lobby-fork.png"), full_page=False)


@pytest.mark.browser
def test_the_referee_page_shows_any_seats_board_and_the_admin_no_secrets(stack: Stack, new_page: Any, shots: Path) -> None:
    with stack.client() as c:
        made = c.post("/v1/games", json={"game": "dragondale", "seats": ["ann", "bob"], "referee": "rita"}).json()
        gid = made["id"]
        wait_for(lambda: any(g["id"] == gid for g in c.get("/v1/games?limit=500").json()["games"]))
    page = new_page()
    page.goto(f"{stack.url}/games/{gid}#token={made['referee']['token']}")
    expect(page.locator("#your-seat")).to_have_text("referee (no seat)")
    expect(page.locator("#referee")).to_be_visible()
    expect(page.locator("#admin")).to_be_hidden()
    expect(page.locator("#controls")).to_be_hidden()
    board = page.locator("#board")
    expect(board).to_contain_text("hidden units of the Celts")  # the public board
    page.select_option("#referee-as", "1")
    expect(board).not_to_contain_text("hidden units of the Celts")  # bob's (the Celts') own units, shown
    expect(board).to_contain_text("hidden units of the Vikings")  # as bob sees ann's
    page.screenshot(path=str(shots / "referee-board.png"), full_page=False)
    admin = new_page()
    admin.goto(f"{stack.url}/games/{gid}#token={made['admin_token']}")
    expect(admin.locator("#your-seat")).to_have_text("admin (no seat)")
    expect(admin.locator("#admin")).to_be_visible()
    expect(admin.locator("#board")).to_contain_text("hidden units of the Celts")
    expect(admin.locator("#board")).to_contain_text("hidden units of the Vikings")
    expect(admin.locator("#referee")).to_be_hidden()


@pytest.mark.browser
def test_an_imported_game_is_badged(stack: Stack, new_page: Any, shots: Path, tmp_path: Path) -> None:
    """A record loaded by `boardlog import` (an unsigned one here: --unverified) says so in its
    summary and on its board page, with the audit's verdict."""
    gid = f"p03-{uuid.uuid4().hex[:12]}"
    path = tmp_path / "record.jsonl"
    path.write_bytes(b"".join(export_lines(play_offline("rite", ["ann", "bob"], {}, 3, gid=gid, max_commands=6))))
    out = run_cli(stack.env, "import", str(path), "--unverified")
    assert out.returncode == 0 and out.stdout.startswith(f"imported {gid}"), out.stdout + out.stderr
    with stack.client() as c:
        wait_for(lambda: c.get(f"/v1/games/{gid}").status_code == 200
                 and c.get(f"/v1/games/{gid}").json().get("imported") is not None)
        mark = c.get(f"/v1/games/{gid}").json()["imported"]
        assert mark["verdict"] == "unverifiable" and mark["at"]
    for width, height, name in ((1280, 900, "desktop"), (390, 844, "phone")):
        page = new_page(width, height)
        page.goto(f"{stack.url}/games/{gid}")
        badge = page.locator("#status .imported-badge")
        expect(badge).to_have_text("imported · unverifiable")
        assert "boardlog import" in (badge.get_attribute("title") or "")
        expect(page.locator("#spectator-imported")).to_be_visible()
        expect(page.locator("#spectator-play")).to_be_hidden()
        page.screenshot(path=str(shots / f"imported-board-{name}.png"), full_page=False)
    lobby = new_page()
    lobby.goto(stack.url + "/")
    expect(lobby.locator(f'tr[data-game="{gid}"] .imported-badge')).to_have_text("imported")
