"""The clock in the pages (issue #15 items 1 and 3), in headless chromium: the lobby's form asks
for a clock, the board counts the deadline down, and /me lists the seat's time left and starts
and ends a vacation (the board then shows the seat's clock stopped, then running again).
Screenshots go to /tmp/boardlog-shots."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, child_env, running_stack, wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_CLOCK_MIN_SECONDS="1", BOARDLOG_PLAYERS_PER_MINUTE="0")
    with running_stack(env, tmp_path_factory.mktemp("clockpages")) as s:
        s.start("deadlines", "deadlines")
        yield s
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


def test_the_lobby_asks_for_a_clock_and_the_board_counts_it_down(stack: Stack, new_page: Any, shots: Path) -> None:
    page = new_page()
    page.goto(stack.url + "/")
    page.select_option("#game-type", "factions")
    page.select_option("#clock-per-move", "86400")
    expect(page.locator("#clock-more")).to_be_visible()
    page.select_option("#clock-timeout", "pause")
    page.locator("#seats input").nth(0).fill("ann")
    page.locator("#seats input").nth(1).fill("bob")
    page.click("#create")
    link = page.locator("#created-links a").first
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert href is not None
    gid = re.search(r"/games/([^#]+)", href).group(1)  # type: ignore[union-attr]
    with stack.client() as c:
        clock = c.get(f"/v1/games/{gid}").json().get("clock")
        assert clock is not None and clock["per_move"] == 86400 and clock["on_timeout"] == "pause"
    board = new_page()
    board.goto(href if href.startswith("http") else stack.url + href)
    expect(board.locator("#clock")).to_contain_text(re.compile(r"(ann|bob): (23 h 5\d min|1 d 0 h) left"),
                                                    timeout=30_000)
    board.screenshot(path=str(shots / "clock-board.png"))


def test_me_lists_the_time_left_and_a_vacation_stops_the_clock(stack: Stack, chromium: Any, shots: Path) -> None:
    with stack.client() as c:
        made = c.post("/v1/players", json={"name": "vera"}).json()
        key = made["key"]
        r = c.post("/v1/games", headers={"Authorization": f"Bearer {key}"}, json={
            "game": "factions", "seats": [{"player": "vera"}, "bob"],
            "options": {"clock": {"per_move": 7200, "on_timeout": "skip"}}})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        wait_for(lambda: bool((c.get(f"/v1/games/{gid}").json().get("clock") or {}).get("deadlines")), timeout=30)
        seat = c.get(f"/v1/games/{gid}").json()["prompt"]["seats"][0]
    ctx = chromium.new_context(viewport={"width": 390, "height": 844})
    ctx.set_default_timeout(15_000)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(stack.url + made["signin_url"])
        page.locator("#confirm-go").click()  # a sign-in link signs in only by a click
        expect(page.locator("#who")).to_have_text("vera")
        page.goto(stack.url + "/me")
        row = page.locator(f'#my-games tr[data-game="{gid}"]')
        if seat == 0:
            expect(row).to_contain_text(re.compile(r"1 h 5\d min left"))
        expect(page.locator("#vacation-state")).to_contain_text("30 of your 30 days")
        page.fill("#vacation-days", "3")
        page.click("#vacation-start")
        expect(page.locator("#vacation-state")).to_contain_text("On vacation since")
        page.screenshot(path=str(shots / "clock-me-vacation.png"), full_page=True)
        with stack.client() as c:
            wait_for(lambda: (c.get(f"/v1/games/{gid}").json().get("clock") or {}).get("vacation") == [0], timeout=30)
        if seat == 0:
            expect(row).to_contain_text("on vacation (", timeout=15_000)
        # Her opponents see it on the board, whoever's turn it is.
        board = ctx.new_page()
        board.on("pageerror", lambda e: errors.append(str(e)))
        board.goto(stack.url + f"/games/{gid}")
        expect(board.locator("#clock")).to_contain_text("vera: on vacation")
        board.close()
        page.reload()  # and as the page shows it when opened
        expect(page.locator("#vacation-state")).to_contain_text("On vacation since")
        if seat == 0:
            expect(row).to_contain_text("on vacation (")
        page.click("#vacation-end")
        expect(page.locator("#vacation-state")).to_contain_text("Not on vacation")
        with stack.client() as c:
            wait_for(lambda: (c.get(f"/v1/games/{gid}").json().get("clock") or {}).get("vacation") == [], timeout=30)
    finally:
        ctx.close()
    assert not errors, errors


def test_an_open_table_says_its_clock(stack: Stack, new_page: Any) -> None:
    with stack.client() as c:
        key = c.post("/v1/players", json={"name": "tess"}).json()["key"]
        r = c.post("/v1/games", headers={"Authorization": f"Bearer {key}"}, json={
            "game": "factions", "seats": [{"player": "tess"}, {"open": True}],
            "options": {"clock": {"per_move": 259200, "on_timeout": "forfeit"}}})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
    page = new_page()
    page.goto(stack.url + "/?show=open")
    expect(page.locator(f'tr[data-table="{gid}"]')).to_contain_text("clock: 3 d 0 h a move; on timeout: forfeit")
