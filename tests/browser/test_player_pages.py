"""The sign-in and "me" pages in headless chromium against a live stack: a sign-in link signs the
browser in (the cookie, not the page, holds the session), and the player's page lists it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def test_a_signin_link_signs_the_browser_in_and_me_lists_the_session(stack: Stack, chromium: Any) -> None:
    with stack.client() as c:
        made = c.post("/v1/players", json={"name": "ann"}).json()
    ctx = chromium.new_context()
    ctx.set_default_timeout(10_000)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(stack.url + made["signin_url"])
        page.locator("#confirm-go").click()  # a sign-in link signs in only by a click
        expect(page.locator("#who")).to_have_text("ann")
        assert "key=" not in page.url  # taken out of the address bar
        cookie = next(k for k in ctx.cookies() if k["name"] == "boardlog_session")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
        assert page.evaluate("document.cookie") == "boardlog_signed_in=1"  # no script reads the session
        page.close()

        me = ctx.new_page()
        me.on("pageerror", lambda e: errors.append(str(e)))
        me.goto(stack.url + "/me")
        expect(me.locator("#title")).to_have_text("ann")
        rows = me.locator("#sessions tbody tr")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("this device")

        # "Sign out this device" (a cookie-signed DELETE from the page: the Origin check lets it by).
        rows.first.get_by_role("button", name="Sign out this device").click()
        expect(me.locator("#me-msg")).to_contain_text("not signed in")
        r = httpx.get(stack.url + "/v1/me/sessions", headers={"Authorization": f"Bearer {made['key']}"})
        assert r.json()["sessions"] == []

        # "Forget me on this computer" on the sign-in page signs this device out too.
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(stack.url + made["signin_url"])
        page.locator("#confirm-go").click()  # a sign-in link signs in only by a click
        expect(page.locator("#who")).to_have_text("ann")
        page.get_by_role("button", name="Forget me on this computer").click()
        expect(page.locator("#signin-msg")).to_contain_text("Signed out")
        r = httpx.get(stack.url + "/v1/me/sessions", headers={"Authorization": f"Bearer {made['key']}"})
        assert r.json()["sessions"] == []
    finally:
        ctx.close()
    assert not errors, errors
