"""Open tables in the lobby (headless chromium, live stack): a signed-in player creates a game
with an open seat from the lobby's form, a second signed-in player (another browser profile)
joins it from the lobby with one click, and the game is played to its first prompt; set-up ran
once, after the join, with both players' entropy, and the audit re-derives it."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.browser.test_seat_pages import signed_in, tab
from tests.conftest import Stack, wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def created_game(r: Any) -> bool:
    """The lobby form's POST /v1/games (not the list's GET, which refreshes meanwhile)."""
    return bool(r.url.endswith("/v1/games") and r.request.method == "POST")


def test_an_open_table_is_joined_from_the_lobby_and_played(stack: Stack, chromium: Any, shots: Path) -> None:
    errors: list[str] = []
    ann = signed_in(chromium, stack, "ann", errors)
    bob = signed_in(chromium, stack, "bob", errors)
    try:
        lobby = tab(ann, errors)
        lobby.goto(stack.url + "/")
        # The game types by their names, with player counts and a line each.
        expect(lobby.locator("#types li[data-type=rite]")).to_contain_text("Rite (2-5 players)")
        expect(lobby.locator("#types li[data-type=factions]")).to_contain_text("Factions: Battlegrounds (2-4 players)")
        expect(lobby.locator("#types li[data-type=dragondale]")).to_contain_text("Dragon Dale (2-4 players)")
        lobby.select_option("#game-type", "race")
        # Signed in, the form starts with ann's own seat and an open one.
        expect(lobby.locator("#seat-kind-0")).to_have_value("me")
        expect(lobby.locator("#seat-kind-1")).to_have_value("open")
        lobby.fill("#options", '{"target": 1000}')
        with lobby.expect_response(created_game) as answer:
            lobby.get_by_role("button", name="Create game").click()
        made = answer.value.json()
        gid = made["id"]
        assert made["status"] == "forming"
        expect(lobby.locator("#created-h")).to_have_text("Table open")
        row = lobby.locator(f"#games tr[data-table='{gid}']")
        expect(row).to_contain_text("you: seat 0")
        expect(row).to_contain_text("1 free seat")
        expect(row.get_by_role("button", name=f"cancel table {gid}")).to_be_visible()
        mine = tab(ann, errors)
        mine.goto(stack.url + "/me")
        expect(mine.locator(f"#my-games tr[data-table='{gid}']")).to_contain_text("waiting for 1 more player")
        mine.close()
        with stack.client() as c:
            assert c.get(f"/v1/games/{gid}").status_code == 404  # nothing is set up yet
            opened = c.get(f"/v1/tables/{gid}").json()["created"]

        page = tab(bob, errors)
        page.goto(stack.url + "/?show=open")
        their_row = page.locator(f"#games tr[data-table='{gid}']")
        expect(their_row).to_contain_text("ann, (free seat)")
        page.screenshot(path=str(shots / "lobby-open-table.png"), full_page=True)
        their_row.get_by_role("button", name=re.compile("^join ")).click()
        expect(page.locator("#action-msg")).to_contain_text("the game has started")
        page.locator("#joined-board").click()
        expect(page.locator("#your-seat")).to_contain_text("bob (seat 1)")

        board = tab(ann, errors)
        board.goto(f"{stack.url}/games/{gid}")
        expect(board.locator("#your-seat")).to_contain_text("ann (seat 0)")
        roll = board.locator("#commands button", has_text="roll")
        expect(roll).to_have_count(1)
        roll.click()
        expect(board.locator("#cmd-msg")).to_contain_text("Accepted: roll")

        # Bob's lobby, My games: the game, his turn now (once the roll is projected).
        with stack.client() as c:
            wait_for(lambda: (c.get(f"/v1/games/{gid}").json()["prompt"] or {}).get("seats") == [1], timeout=30)
        page.goto(stack.url + "/")
        page.get_by_role("button", name="My games").click()
        expect(page).to_have_url(re.compile(r"\?show=mine$"))
        expect(page.locator(f"#games tr[data-game='{gid}']")).to_contain_text("Your turn: ")

        with stack.client() as c:
            events = c.get(f"/v1/games/{gid}/events").json()["events"]
            setups = [e for e in events if e["type"] == "boardlog.GameCreated"]
            assert len(setups) == 1 and events[0]["seq"] == 1
            entropy = setups[0]["data"]["entropy"]
            assert len(entropy) == 2 and all(re.fullmatch(r"[0-9a-f]{32}", e) for e in entropy)
            assert entropy[0] != entropy[1]
            # Set up at the join, not at the creation.
            assert events[0]["at"] > datetime.fromtimestamp(opened, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:23]
            # The admin ends it: the seed is revealed and the audit re-derives the set-up from both entropies.
            h = {"Authorization": f"Bearer {made['admin_token']}"}
            assert c.post(f"/v1/games/{gid}/abort?wait=1", headers=h).status_code == 200
            report = c.get(f"/v1/games/{gid}/audit").json()
            assert report["ok"] is True and "seed commitment" in report["checked"], report

        # The finished filter lists it with its replay link; a phone shows the lobby without sideways scrolling.
        with stack.client() as c:
            wait_for(lambda: any(g["id"] == gid for g in c.get("/v1/games?status=finished").json()["games"]))
        lobby.get_by_role("button", name="Finished").click()
        done = lobby.locator(f"#games tr[data-game='{gid}']")
        expect(done.get_by_role("link", name=f"replay of {gid}")).to_have_attribute("href", f"/games/{gid}/replay")
        expect(done).to_contain_text("ann, bob")
        phone_ctx = chromium.new_context(viewport={"width": 390, "height": 844})
        phone = tab(phone_ctx, errors)
        phone.goto(stack.url + "/")
        expect(phone.locator(f"#games tr[data-game='{gid}']")).to_be_visible()
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.screenshot(path=str(shots / "lobby-phone.png"), full_page=True)
        phone_ctx.close()

        # The options form of a shipped game: a tribe per seat and the experienced set-up, sent
        # as options the table shows; its creator cancels it from the lobby.
        lobby.get_by_role("button", name="All", exact=True).click()
        lobby.select_option("#game-type", "dragondale")
        expect(lobby.locator("#game-line")).to_contain_text("hidden units")
        lobby.locator("#seats .seat-row").nth(1).locator(".seat-choice").select_option("druids")
        lobby.check("#opt-experienced")
        with lobby.expect_response(created_game) as answer:
            lobby.get_by_role("button", name="Create game").click()
        dd = answer.value.json()
        assert answer.value.status == 201, dd
        dd_row = lobby.locator(f"#games tr[data-table='{dd['id']}']")
        expect(dd_row).to_contain_text("tribes: vikings, druids")
        expect(dd_row).to_contain_text("experienced: true")
        dd_row.get_by_role("button", name=f"cancel table {dd['id']}").click()
        expect(lobby.locator("#action-msg")).to_contain_text("cancelled")
        expect(dd_row).to_have_count(0)
        assert errors == []
    finally:
        ann.close()
        bob.close()
