"""The move list widget (service/pages/moves.js) on the board page, in headless chromium: the
newest page first, older pages on demand until the whole history is loaded, a new move appended
live with an opened entry kept open, and no sideways scroll at phone size."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, wait_for
from tests.integration.helpers import command, new_race

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]

ROLLS = 60  # one more page than the widget's first (50 entries)


def test_the_move_list_pages_back_to_the_start_and_follows_new_moves(stack: Stack, new_page: Any) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2, target=100_000)
        for i in range(ROLLS):
            assert command(c, gid, tokens[i % 2]).status_code == 200
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= 1 + 2 * ROLLS, timeout=20)
        page = new_page()
        page.goto(f"{stack.url}/games/{gid}#token={tokens[0]}")
        entries = page.locator("#moves .mv-entry")
        expect(entries).to_have_count(50)
        expect(entries.last).to_contain_text("p1 rolls the die.")
        expect(entries.last.locator(".mv-draw")).to_have_text(re.compile(r"^die [1-6]$"))
        expect(entries.last.locator(".mv-num")).to_have_text(f"{ROLLS}.")

        page.get_by_role("button", name="Earlier moves").click()
        expect(entries).to_have_count(ROLLS + 1)  # the set-up heading and one entry per roll
        expect(entries.first).to_contain_text("Set-up")
        expect(page.get_by_role("button", name="Earlier moves")).to_be_hidden()
        expect(page.locator("#moves .mv-count")).to_have_text(f"{ROLLS} moves")

        # An opened entry stays open when the next move arrives over the live stream.
        last = entries.last
        last.locator("summary").click()
        expect(last.locator("details")).to_have_attribute("open", "")
        assert command(c, gid, tokens[0]).status_code == 200
        expect(entries).to_have_count(ROLLS + 2, timeout=15_000)
        expect(entries.last).to_contain_text("p0 rolls the die.")
        expect(page.locator(f"#mv-{ROLLS + 1} details")).to_have_attribute("open", "")

    phone = new_page(width=390, height=844)
    phone.goto(f"{stack.url}/games/{gid}")
    expect(phone.locator("#moves .mv-entry")).to_have_count(50)
    widths = phone.evaluate("() => [document.documentElement.scrollWidth, document.querySelector('#moves').scrollWidth,"
                            " document.querySelector('#moves').clientWidth]")
    assert widths[0] <= 390 and widths[1] <= widths[2], widths
