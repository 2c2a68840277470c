"""A seat that follows its player (headless chromium, live stack): a sign-in link signs in only
by a click on "Sign in as <name>", a seat link opened while signed in offers "Keep this seat on
your account" and keeps it only by that click, and a fresh tab of the same browser profile, with
no link and no token in its storage, then opens the game as that player's seat by the cookie."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.browser.test_pages import create_race, roll, seat_link
from tests.conftest import Stack

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def signed_in(chromium: Any, stack: Stack, name: str, errors: list[str]) -> Any:
    """A fresh browser profile signed in as a new player `name` (its key as `ctx.player_key`)."""
    with stack.client() as c:
        made = c.post("/v1/players", json={"name": name}).json()
    ctx = chromium.new_context()
    ctx.set_default_timeout(10_000)
    page = tab(ctx, errors)
    page.goto(stack.url + made["signin_url"])
    expect(page.locator("#confirm-text")).to_have_text(f"Sign in as {name}?")
    page.wait_for_timeout(300)
    assert not any(c["name"] == "boardlog_session" for c in ctx.cookies())  # opened: nothing signed in
    assert "key=" not in page.url
    page.locator("#confirm-go").click()
    expect(page.locator("#who")).to_have_text(name)
    page.close()
    ctx.player_key = made["key"]
    return ctx


def tab(ctx: Any, errors: list[str]) -> Any:
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    return page


def test_a_claimed_seat_opens_in_a_fresh_tab_by_the_session(stack: Stack, chromium: Any) -> None:
    game = create_race(stack)
    gid = game["id"]
    errors: list[str] = []
    ann = signed_in(chromium, stack, "ann", errors)
    ann_key = ann.player_key
    eve = signed_in(chromium, stack, "eve", errors)
    anon = chromium.new_context()
    anon.set_default_timeout(10_000)
    try:
        page = tab(ann, errors)
        page.goto(seat_link(stack, game, 0))
        expect(page.locator("#keep-seat-claim")).to_have_text("Keep this seat on your account")
        with stack.client() as c:  # opened, not clicked: the seat is nobody's yet
            assert c.get(f"/v1/games/{gid}/seat", headers={"Authorization": f"Bearer {ann_key}"}).status_code == 404
        page.locator("#keep-seat-claim").click()
        expect(page.locator("#token-msg")).to_contain_text("This seat is now yours")
        expect(page.locator("#your-seat")).to_contain_text("ann (seat 0)")
        page.reload()  # kept: nothing left to offer
        expect(page.locator("#your-seat")).to_contain_text("ann (seat 0)")
        page.wait_for_timeout(300)
        assert page.locator("#keep-seat-claim").count() == 0
        page.close()

        fresh = tab(ann, errors)
        fresh.goto(f"{stack.url}/games/{gid}")
        expect(fresh.locator("#your-seat")).to_contain_text("ann (seat 0)")
        assert fresh.evaluate("sessionStorage.length") == 0  # no token in this tab: the cookie plays
        button = fresh.locator("#commands button", has_text="roll")
        expect(button).to_have_count(1)
        button.click()  # a cookie-signed POST from the service's own page
        expect(fresh.locator("#cmd-msg")).to_contain_text("Accepted: roll")

        # Another profile, without the session: the spectator's view.
        watcher = tab(anon, errors)
        watcher.goto(f"{stack.url}/games/{gid}")
        expect(watcher.locator("#your-seat")).to_have_text("spectator")
        expect(watcher.locator("#spectator")).to_be_visible()

        # Another signed-in player opening ann's link is told the seat is hers.
        other = tab(eve, errors)
        other.goto(seat_link(stack, game, 0))
        other.locator("#keep-seat-claim").click()
        expect(other.locator("#token-msg")).to_contain_text("belongs to another player")
        other.close()
        again = tab(eve, errors)
        again.goto(f"{stack.url}/games/{gid}")
        expect(again.locator("#your-seat")).to_have_text("spectator")

        # /me: a second game where it is ann's turn comes first; after bob moves, the first does.
        second = create_race(stack, seats=("bob", "ann"))
        roll(stack, second)  # bob's roll: ann's turn there
        page = tab(ann, errors)
        page.goto(seat_link(stack, second, 1))
        page.locator("#keep-seat-claim").click()
        expect(page.locator("#token-msg")).to_contain_text("This seat is now yours")
        me = tab(ann, errors)
        me.goto(stack.url + "/me")
        rows = me.locator("#my-games tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.first).to_have_attribute("data-game", second["id"])
        expect(rows.first).to_contain_text("Your turn: roll the die")
        expect(rows.nth(1)).to_contain_text("bob: roll the die")
        roll(stack, game)  # bob moves in the first game: both now wait on ann, the latest first
        roll(stack, second)  # ann's seat rolls (by its token) in the second: it waits on bob
        me.reload()
        expect(rows.first).to_have_attribute("data-game", gid)
        expect(rows.first).to_contain_text("Your turn")
        expect(rows.nth(1)).not_to_contain_text("Your turn")
        expect(me.locator("#waiting-count")).to_have_text("1")
        rows.first.get_by_role("link", name=f"race · {gid}").click()
        expect(me.locator("#your-seat")).to_contain_text("ann (seat 0)")
        # Every page's header counts the games waiting on the player; a spectator's has no count.
        expect(me.locator("header.top #waiting-count")).to_have_text("1")
        watcher.goto(stack.url + "/")
        watcher.wait_for_load_state("networkidle")  # the header's own request has been answered
        expect(watcher.locator("header.top nav a")).to_have_count(3)  # Lobby, New game, Sign in (issue #36)
        expect(watcher.locator("header.top #signin-link")).to_have_text("Sign in")
        assert watcher.locator("#waiting-count").count() == 0

        # "Forget me on this computer" on a seat the session holds signs this computer out.
        me.get_by_role("button", name="Forget me on this computer (signs it out)").click()
        expect(me.locator("#your-seat")).to_have_text("spectator")
        assert me.evaluate("fetch('/v1/me').then(r => r.status)") == 401
    finally:
        for ctx in (ann, eve, anon):
            ctx.close()
    assert not errors, errors
