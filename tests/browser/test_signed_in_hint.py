"""A visitor's pages do not ask who is signed in (a 401 in every visitor's console): the
service sets a readable hint beside the HttpOnly session cookie, and the pages ask /v1/me only
with it. The hint follows the session: set at sign-in (and for a session older than it), gone at
sign-out, and gone with a session ended on another device, the stale session cookie too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.browser.test_pages import create_race
from tests.conftest import Stack

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]

HINT, SESSION = "boardlog_signed_in", "boardlog_session"


class Watched:
    """A page whose requests to /v1/me* and console errors are recorded."""

    def __init__(self, ctx: Any) -> None:
        self.page = ctx.new_page()
        self.asked: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self._request(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("response", lambda r: self.errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)

    def _request(self, url: str) -> None:
        path = "/" + url.split("/", 3)[3] if url.count("/") >= 3 else url
        if path == "/v1/me" or path.startswith(("/v1/me/", "/v1/me?")):
            self.asked.append(path)


def names(ctx: Any) -> set[str]:
    return {c["name"] for c in ctx.cookies()}


def test_a_visitors_pages_never_ask_who_is_signed_in(stack: Stack, chromium: Any) -> None:
    game = create_race(stack)
    gid = game["id"]
    ctx = chromium.new_context()
    ctx.set_default_timeout(10_000)
    try:
        w = Watched(ctx)
        for path, ready in (("/", "#games tr[data-game]"), (f"/games/{gid}", "#status .badge"),
                            (f"/games/{gid}/replay", ".rp-where"), ("/me", "#me-msg:not(:empty)"),
                            ("/signin", "#key-form"), ("/rules/rite", "h1")):
            w.page.goto(stack.url + path)
            expect(w.page.locator(ready).first).to_be_visible()
            w.page.wait_for_timeout(300)  # the header's count is asked for after the page's own reads
        assert w.asked == [], w.asked
        assert w.errors == [], w.errors
        assert names(ctx) == set()
        expect(w.page.locator('header.top nav a[href="/me"]')).to_have_count(0)
    finally:
        ctx.close()


def test_the_hint_follows_the_session(stack: Stack, chromium: Any) -> None:
    with stack.client() as c:
        made = c.post("/v1/players", json={"name": "ann"}).json()
    ctx = chromium.new_context()
    ctx.set_default_timeout(10_000)
    try:
        w = Watched(ctx)
        w.page.goto(stack.url + made["signin_url"])
        w.page.locator("#confirm-go").click()  # a sign-in link signs in only by a click
        expect(w.page.locator("#who")).to_have_text("ann")
        assert {HINT, SESSION} <= names(ctx)
        assert w.page.evaluate("document.cookie") == f"{HINT}=1"  # the session's own stays unread
        w.page.goto(stack.url + "/")
        expect(w.page.locator('header.top nav a[href="/me"]')).to_have_count(1)  # the header asked

        # A session signed in before there was a hint: the next page sets it.
        kept = [k for k in ctx.cookies() if k["name"] == SESSION]
        ctx.clear_cookies()
        ctx.add_cookies(kept)
        w.page.goto(stack.url + "/")
        assert HINT in names(ctx)
        expect(w.page.locator('header.top nav a[href="/me"]')).to_have_count(1)

        # Signed out everywhere from another device: this page's ask is refused once and it
        # forgets the hint; the next page clears the stale session cookie too.
        r = httpx.delete(stack.url + "/v1/me/sessions", headers={"Authorization": f"Bearer {made['key']}"})
        assert r.status_code == 200
        made = {**made, **r.json()}  # the key is retired with the sessions: the new one signs in
        w.asked.clear()
        w.page.reload()
        expect(w.page.locator("#games")).to_be_visible()
        w.page.wait_for_function(f"() => !document.cookie.includes('{HINT}=')")
        assert w.asked, "the page holding the hint asks who is signed in"
        w.page.reload()
        expect(w.page.locator("#games")).to_be_visible()
        assert names(ctx) == set(), ctx.cookies()
        w.asked.clear()
        w.errors.clear()
        w.page.reload()
        expect(w.page.locator("#games")).to_be_visible()
        w.page.wait_for_timeout(300)
        assert w.asked == [] and w.errors == []

        # Signed in again, then out by the page's own button: both cookies go.
        w.page.goto(stack.url + made["signin_url"])
        w.page.locator("#confirm-go").click()  # a sign-in link signs in only by a click
        expect(w.page.locator("#who")).to_have_text("ann")
        w.page.get_by_role("button", name="Forget me on this computer").click()
        expect(w.page.locator("#signin-msg")).to_contain_text("Signed out")
        assert names(ctx) == set(), ctx.cookies()
    finally:
        ctx.close()
