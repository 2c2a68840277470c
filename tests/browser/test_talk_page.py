"""The board page's table talk and queue box in headless chromium (issue #15 items 6 and 7): a
message holding markup shows as its text, never as HTML; a spectator reads but has no form; a
seat queues an answer in the box, sees only its own queue, and is told when it was dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,  # one stack for the module's tests, each on games of its own
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]

EVIL = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><b>bold</b> & “quotes”'


def _game(stack: Stack, name: str, **options: Any) -> dict[str, Any]:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": name, "seats": ["ann", "bob"], "options": options})
        assert r.status_code == 201, r.text
        game: dict[str, Any] = r.json()
        wait_for(lambda: c.get(f"/v1/games/{game['id']}").status_code == 200 and
                 c.get(f"/v1/games/{game['id']}").json().get("seq", 0) > 0)
    return game


def test_a_message_with_markup_shows_as_text(stack: Stack, new_page: Any, shots: Path) -> None:
    game = _game(stack, "race", target=50)
    gid, ann = game["id"], game["seats"][0]["token"]
    page = new_page()
    page.goto(f"{stack.url}/games/{gid}#token={ann}")
    expect(page.locator("#talk-form")).to_be_visible()
    page.fill("#talk-text", EVIL)
    expect(page.locator("#talk-count")).to_have_text(f"{len(EVIL)} / 2000")
    page.click("#talk-send")
    item = page.locator("#talk-list .talk-item .talk-text")
    expect(item).to_have_text(EVIL)
    assert page.evaluate("window.pwned") is None
    assert page.locator("#talk-list script, #talk-list img, #talk-list b").count() == 0
    page.screenshot(path=str(shots / "talk-seat.png"), full_page=True)

    # A spectator reads it, as text, and has no form to post with.
    watcher = new_page(390, 844)
    watcher.goto(f"{stack.url}/games/{gid}")
    expect(watcher.locator("#talk-list .talk-text")).to_have_text(EVIL)
    expect(watcher.locator("#talk-form")).to_be_hidden()
    expect(watcher.locator("#queue")).to_be_hidden()
    assert watcher.evaluate("window.pwned") is None
    watcher.screenshot(path=str(shots / "talk-spectator-phone.png"), full_page=True)

    # Another seat's message arrives live; a 2,001-character one is refused with its reason.
    with stack.client() as c:
        r = c.post(f"/v1/games/{gid}/messages", headers=bearer(game["seats"][1]["token"]), json={"text": "hi ann"})
        assert r.status_code == 200, r.text
    expect(page.locator("#talk-list .talk-text").nth(1)).to_have_text("hi ann")
    page.evaluate("document.getElementById('talk-text').removeAttribute('maxlength')")
    page.fill("#talk-text", "x" * 2001)
    page.click("#talk-send")
    expect(page.locator("#talk-msg")).to_contain_text("message_too_long")
    # A message sent with the next move: kept until ann rolls, then posted right after the roll.
    page.fill("#talk-text", "rolling now")
    page.check("#talk-with-move")
    page.click("#talk-send")
    expect(page.locator("#talk-msg")).to_contain_text("goes with your next move")
    page.locator("#commands button").first.click()
    expect(page.locator("#talk-list .talk-item").nth(2)).to_contain_text("rolling now")
    # named as the move list numbers the roll (the message's "on" is the roll's seq)
    with stack.client() as c:
        roll = next(e for e in c.get(f"/v1/games/{gid}/moves").json()["entries"] if e.get("notation") == "roll")
    expect(page.locator("#talk-list .talk-item").nth(2)).to_contain_text(f"with move {roll['move']}")
    expect(page.locator("#talk-text")).to_have_value("")

    # Muted: the list folds away for this seat only.
    page.click("#talk-mute")
    expect(page.locator("#talk-list")).to_be_hidden()
    expect(page.locator("#talk-muted")).to_be_visible()

    # The admin hides the first message; a spectator then reads that it was hidden.
    admin = new_page()
    admin.on("dialog", lambda d: d.accept())
    admin.goto(f"{stack.url}/games/{gid}#token={game['admin_token']}")
    expect(admin.locator("#talk-form")).to_be_hidden()
    admin.locator("#talk-list .talk-hide").first.click()
    expect(admin.locator("#talk-list .talk-item").first).to_contain_text("hidden by the admin")
    watcher.reload()
    expect(watcher.locator("#talk-list .talk-text").first).to_have_text("(hidden by the admin)")
    expect(watcher.locator("#talk-list .talk-text").nth(1)).to_have_text("hi ann")


def test_a_seat_queues_answers_in_the_box(stack: Stack, new_page: Any, shots: Path) -> None:
    game = _game(stack, "rite")
    gid, ann, bob = game["id"], game["seats"][0]["token"], game["seats"][1]["token"]
    with stack.client() as c:
        knights = [x["text"] for x in c.get(f"/v1/games/{gid}/legal", headers=bearer(ann)).json()["commands"]
                   if x["text"].startswith("summon")]
    page = new_page()
    page.goto(f"{stack.url}/games/{gid}#token={bob}")
    expect(page.locator("#queue")).to_be_visible()
    page.fill("#queue-text", f"if `{knights[1]}` then summon fighter b3\n")
    page.click("#queue-save")
    expect(page.locator("#queue-msg")).to_contain_text("Saved")
    expect(page.locator("#queue-text")).to_have_value(f"if {knights[1]} then summon fighter b3")
    page.fill("#queue-text", "fly to the moon")
    page.click("#queue-save")
    expect(page.locator("#queue-msg")).to_contain_text("bad_queue")
    page.fill("#queue-text", f"if {knights[1]} then summon fighter b3")
    page.click("#queue-save")
    expect(page.locator("#queue-state")).to_have_text("1 queued")

    # Ann never sees it.
    other = new_page()
    other.goto(f"{stack.url}/games/{gid}#token={ann}")
    expect(other.locator("#queue")).to_be_visible()
    expect(other.locator("#queue-state")).to_have_text("nothing queued")
    assert "fighter b3" not in other.content()

    # Ann plays another knight: bob's queue is dropped, and his page says so.
    with stack.client() as c:
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(ann), json={"id": "k1", "text": knights[0]})
        assert r.status_code == 200, r.text
    expect(page.locator("#queue-dropped")).to_contain_text("dropped", timeout=15_000)
    expect(page.locator("#queue-state")).to_have_text("nothing queued")
    page.screenshot(path=str(shots / "talk-queue-dropped.png"), full_page=True)


@pytest.mark.parametrize("name", ["rite", "factions", "dragondale"])
def test_the_queues_example_is_in_the_games_own_notation(stack: Stack, new_page: Any, name: str) -> None:
    """The example beside the queue box is one the service takes, for each game (Rite's
    'fireball' was shown at every game)."""
    game = _game(stack, name)
    page = new_page()
    page.goto(f"{stack.url}/games/{game['id']}#token={game['seats'][1]['token']}")
    expect(page.locator("#queue")).to_be_visible()
    example = page.locator("#queue-example").inner_text()
    assert example.startswith("if ") and " then " in example
    assert ("fireball" in example) == (name == "rite")
    page.fill("#queue-text", example)
    page.click("#queue-save")
    expect(page.locator("#queue-msg")).to_contain_text("Saved")
    expect(page.locator("#queue-state")).to_have_text("1 queued")
