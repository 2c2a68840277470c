"""The newcomer's journey (issue #36): a visitor signs up on the page, makes a Factions game and
invites a friend by email; the friend signs up from that mail and lands in their seat; they
play by clicking; the first comes back on a phone, signs in by a mailed link and is in their
seat in two taps. Bad input along the way is refused saying why and changes nothing."""

from __future__ import annotations

import re
import uuid
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import wait_for
from tests.journeys.conftest import Deployment
from tests.support.receivers import MailBox

pytestmark = [pytest.mark.integration, pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def mail_link(box: MailBox, to: str, pattern: str, count: int = 1) -> str:
    """The link of the `count`-th mail to `to` (waited for), as its plain text gives it."""
    wait_for(lambda: len(box.to(to)) >= count, timeout=20, interval=0.1)
    mail: EmailMessage = box.to(to)[count - 1]
    found = re.search(pattern, mail.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert found, mail
    return found.group(0)


def browser_of(browser: Any, errors: list[str], **viewport: int) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
    ctx.set_default_timeout(20_000)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    return ctx, page


def play_one(page: Any) -> None:
    """One move by clicking: the first choice offered, and the next one, until it is sent."""
    from playwright.sync_api import expect

    for _ in range(12):
        before = page.locator("#cmd-msg").inner_text()
        page.locator("#commands button").first.click()
        page.wait_for_timeout(150)
        if "Accepted" in page.locator("#cmd-msg").inner_text() and page.locator("#cmd-msg").inner_text() != before:
            return
        if page.locator("#selection").is_hidden() and "Sending" in page.locator("#cmd-msg").inner_text():
            expect(page.locator("#cmd-msg")).to_contain_text("Accepted")
            return
    expect(page.locator("#cmd-msg")).to_contain_text("Accepted")


def my_turn(page: Any) -> bool:
    return bool(page.locator("#controls").is_visible() and page.locator("#commands button").count()
                and not page.locator("#commands button").first.is_disabled())


def test_a_newcomer_signs_up_invites_a_friend_by_mail_plays_and_comes_back_on_a_phone(
        browser: Any, service: Deployment, mailbox: MailBox, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    ann_mail, bob_mail = f"ann-{uuid.uuid4().hex[:8]}@example.org", f"bob-{uuid.uuid4().hex[:8]}@example.org"
    shots = tmp_path

    # Bad input first: a malformed address is refused saying why, and nothing is mailed.
    with httpx.Client(base_url=service.url, timeout=30) as c:
        bad = c.post("/v1/signup", json={"name": "ann", "email": "ann.example.org"})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad_email"

    # Ann, a visitor, finds "Sign in" in the lobby's header and signs up.
    ann_ctx, ann = browser_of(browser, errors)
    ann.goto(service.url + "/")
    ann.locator("#signin-link").click()
    ann.fill("#signup-name", "ann")
    ann.fill("#signup-email", ann_mail)
    ann.get_by_role("button", name="Sign up").click()
    expect(ann.locator("#signin-msg")).to_contain_text("Check your mail")
    signup = mail_link(mailbox, ann_mail, r"http\S+/signin#signup=[\w-]+\S*")
    ann.goto(signup)
    # The link is only shown until she clicks (issue #42): opening it signs nothing in.
    expect(ann.locator("#confirm-text")).to_have_text("Finish signing up as ann?")
    assert not any(k["name"] == "boardlog_session" for k in ann_ctx.cookies())
    ann.get_by_role("button", name="Sign up as ann").click()
    expect(ann).to_have_url(re.compile(r"/$"))  # back to the lobby, signed in
    expect(ann.locator("header.top nav a[href='/me']")).to_be_visible()
    # The link works once: opened again elsewhere it says so and signs nobody in.
    with httpx.Client(base_url=service.url, timeout=30) as c:
        token = re.search(r"signup=([\w-]+)", signup).group(1)  # type: ignore[union-attr]
        again = c.post("/v1/signup/complete", json={"token": token})
        assert again.status_code == 401 and again.json()["error"]["code"] == "bad_signup_link"

    # She makes a Factions game: her own seat and one invited by email.
    ann.select_option("#game-type", "factions")
    ann.select_option("#seat-kind-0", "me")
    ann.select_option("#seat-kind-1", "email")
    ann.fill("#seat-1", bob_mail)
    ann.locator("#create").click()
    expect(ann.locator("#created-links li.invited")).to_contain_text(f"mailed to {bob_mail}")
    gid = ann.locator("#created-links a.mono").first.inner_text()

    # Bob opens the invitation: his seat, and what signing up does for it.
    bob_ctx, bob = browser_of(browser, errors)
    bob.goto(mail_link(mailbox, bob_mail, r"http\S+/games/\S+#token=[\w-]+"))
    expect(bob.locator("#keep-seat")).to_contain_text("in this tab only")
    bob.screenshot(path=str(shots / "bob-invited.png"))
    bob.locator("#seat-signin").click()
    bob.fill("#signup-name", "bob")
    bob.fill("#signup-email", bob_mail)
    bob.get_by_role("button", name="Sign up").click()
    bob.goto(mail_link(mailbox, bob_mail, r"http\S+/signin#signup=[\w-]+\S*", count=2))
    expect(bob.locator("#confirm-seat")).to_contain_text(f"of game {gid}, which you asked from, is kept")
    bob.get_by_role("button", name="Sign up as bob").click()
    expect(bob).to_have_url(re.compile(rf"/games/{gid}$"))
    expect(bob.locator("#your-seat")).to_contain_text("bob")

    # Ann opens her board from the lobby; they play ten moves by clicking.
    ann.goto(f"{service.url}/games/{gid}")
    expect(ann.locator("#your-seat")).to_contain_text("ann")
    played = 0
    while played < 10 or not my_turn(ann):
        ann.reload()
        bob.reload()
        expect(ann.locator("#seq")).not_to_have_text("…")
        mover = ann if my_turn(ann) else bob if my_turn(bob) else None
        if mover is None:
            ann.wait_for_timeout(300)
            continue
        play_one(mover)
        played += 1
        assert played < 30, "the game never came back to ann"
    ann.screenshot(path=str(shots / "ann-desktop.png"), full_page=True)
    ann_ctx.close()

    # On a phone, in a new browser: Sign in, a mailed link, then two taps to her turn.
    phone_ctx, phone = browser_of(browser, errors, **PHONE)
    phone.goto(service.url + "/")
    phone.locator("#signin-link").click()
    phone.fill("#mail-address", ann_mail)
    phone.get_by_role("button", name="Mail me a sign-in link").click()
    expect(phone.locator("#signin-msg")).to_contain_text("on its way")
    magic = mail_link(mailbox, ann_mail, r"http\S+/signin#magic=[\w-]+\S*", count=2)
    phone.goto(magic)
    phone.get_by_role("button", name="Sign in as ann").click()
    expect(phone).to_have_url(re.compile(r"/$"))
    phone.locator("header.top nav a[href='/me']").click()  # tap 1
    phone.locator(f"#my-games tr[data-game='{gid}'] a").first.click()  # tap 2
    expect(phone.locator("#your-seat")).to_contain_text("ann")
    expect(phone.locator("#controls")).to_be_visible()
    assert "(your move)" in phone.title()
    phone.screenshot(path=str(shots / "ann-phone.png"), full_page=True)
    # The magic link, used once, signs nobody in again.
    with httpx.Client(base_url=service.url, timeout=30) as c:
        used = c.post("/v1/sessions/magic", json={"token": re.search(r"magic=([\w-]+)", magic).group(1)})  # type: ignore[union-attr]
        assert used.status_code == 401 and used.json()["error"]["code"] == "bad_magic_link"
    for ctx in (bob_ctx, phone_ctx):
        ctx.close()
    assert not errors, errors
    print(f"screenshots: {shots}")
