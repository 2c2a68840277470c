"""The board page's "Board as text" (issue #40; service/pages/boardtext.js): opened, it shows in
a <pre> exactly what GET …/view.txt gives the same viewer (a seat's text with its own secret,
race's charm; a spectator's without), and follows the game as it moves on."""

from __future__ import annotations

from pathlib import Path
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


def _text(stack: Stack, gid: str, token: str | None) -> str:
    with stack.client() as c:
        r = c.get(f"/v1/games/{gid}/view.txt", headers={"Authorization": f"Bearer {token}"} if token else {})
        assert r.status_code == 200, r.text
        return r.text


@pytest.mark.parametrize("width", [1280, 390])
def test_board_as_text_is_the_view_txt_of_the_same_viewer(stack: Stack, new_page: Any, shots: Path,
                                                          width: int) -> None:
    game = create_race(stack)
    gid, token = game["id"], game["seats"][0]["token"]
    page = new_page(width=width, height=844 if width < 900 else 900)
    page.goto(seat_link(stack, game, 0))
    expect(page.locator("#seq")).to_have_text("2")
    fold = page.locator("#board-text-box")
    page.locator("#board-text-box > summary").click()
    pre = page.locator("#board-text-pre")
    expect(pre).to_have_attribute("aria-label", "The board as text")
    mine = _text(stack, gid, token)
    assert "Your charm:" in mine
    expect(pre).to_have_text(mine, use_inner_text=False)
    assert pre.text_content() == mine
    assert fold.evaluate("el => el.open")
    fold.screenshot(path=str(shots / f"board-text-{width}.png"))

    roll(stack, game)  # the game moves on: the open fold follows it
    after = _text(stack, gid, token)
    assert after != mine
    expect(pre).to_have_text(after)
    assert pre.text_content() == after

    spectator = new_page(width=width)
    spectator.goto(f"{stack.url}/games/{gid}")
    spectator.locator("#board-text-box > summary").click()
    public = _text(stack, gid, None)
    assert "charm" not in public
    expect(spectator.locator("#board-text-pre")).to_have_text(public)
    assert spectator.locator("#board-text-pre").text_content() == public
