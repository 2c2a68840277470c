"""Many boards open in one browser: over HTTP/1.1 a browser opens six connections to a host in
all, so with a stream a tab the seventh board never loaded and no move went through. The tabs
now share one stream (/v1/streams/games, read by the tab holding a Web Lock), and when that tab
closes another takes it over."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack
from tests.integration.helpers import command, new_race

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]

TABS = 9


def test_nine_boards_in_one_browser_share_one_stream_and_every_move_goes_through(
        stack: Stack, chromium: Any) -> None:
    errors: list[str] = []
    ctx = chromium.new_context()
    ctx.set_default_timeout(15_000)
    streams: list[str] = []
    ctx.on("request", lambda r: streams.append(r.url.split(stack.url, 1)[-1]) if "stream" in r.url else None)
    try:
        with stack.client() as c:
            games = [new_race(c) for _ in range(TABS)]
            pages = []
            for gid, tokens, _ in games:
                page = ctx.new_page()
                page.on("pageerror", lambda e, page=page: errors.append(f"{page.url}: {e}"))
                page.goto(f"{stack.url}/games/{gid}#token={tokens[1]}")  # seat 1: waiting on seat 0
                expect(page.locator("#seq")).to_have_text("2")
                pages.append(page)
            for page in pages:
                expect(page.locator("#live")).to_have_text("live")
            assert not [s for s in streams if s.startswith("/v1/games/")], streams  # no stream of a tab's own

            # A move in each game reaches its own tab, pushed; the last tab answers with a click.
            for (gid, tokens, _), page in zip(games, pages, strict=True):
                assert command(c, gid, tokens[0]).status_code == 200
                expect(page.locator("#seq")).to_have_text("4")
            last = pages[-1]
            last.locator("#commands button", has_text="roll").click()
            expect(last.locator("#cmd-msg")).to_contain_text("Accepted: roll")
            expect(last.locator("#seq")).to_have_text("6")
            opened = [s for s in streams if s.startswith("/v1/streams/games?ids=")]
            assert opened and all(gid in opened[-1].replace("%2C", ",") for gid, _, _ in games), opened[-1:]

            # The tab that reads the stream (the first) closes: another takes it over and opens
            # it again, and moves still arrive.
            before = len(streams)
            pages[0].close()
            for (gid, tokens, _), page in list(zip(games, pages, strict=True))[1:3]:
                assert command(c, gid, tokens[1]).status_code == 200
                expect(page.locator("#seq")).to_have_text("6")
            expect(pages[1].locator("#live")).to_have_text("live")
            again = [s for s in streams[before:] if s.startswith("/v1/streams/games?ids=")]
            assert again and games[0][0] not in again[-1], streams[before:]
    finally:
        ctx.close()
    assert not errors, errors


def test_past_32_games_the_leader_opens_a_stream_for_each_32_more_and_every_game_stays_live(
        stack: Stack, chromium: Any) -> None:
    # One tab showing a board and watching 39 more games (as 39 more tabs of one browser would ask
    # the leader to): the 33rd to 40th games go in a second stream.
    ctx = chromium.new_context()
    ctx.set_default_timeout(15_000)
    streams: list[str] = []
    ctx.on("request", lambda r: streams.append(r.url.split(stack.url, 1)[-1])
           if "/v1/streams/games" in r.url else None)
    try:
        with stack.client() as c:
            games = [new_race(c) for _ in range(40)]
            gid0, tokens0, _ = games[0]
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{stack.url}/games/{gid0}#token={tokens0[1]}")
            expect(page.locator("#live")).to_have_text("live")
            page.evaluate("""async (gids) => {
                window.seen = {};
                const { watchGame } = await import('/static/live.js');
                for (const gid of gids) watchGame(gid, {
                    summary: (text) => { window.seen[gid] = JSON.parse(text).seq; },
                    state: () => {},
                });
            }""", [g for g, _, _ in games[1:]])
            ordered = sorted(g for g, _, _ in games)
            page.wait_for_function("(n) => Object.keys(window.seen).length >= n", arg=39)
            expect(page.locator("#live")).to_have_text("live")
            opened = [s.split("ids=", 1)[1].replace("%2C", ",").split(",") for s in streams]
            assert sorted(opened[-2] + opened[-1]) == ordered and {len(opened[-2]), len(opened[-1])} == {32, 8}

            # A move in the game that sorts last, and in one that sorts first, reaches the tab.
            for gid in (ordered[-1], ordered[0] if ordered[0] != gid0 else ordered[1]):
                tokens = next(t for g, t, _ in games if g == gid)
                assert command(c, gid, tokens[0]).status_code == 200
                page.wait_for_function("([gid, seq]) => window.seen[gid] >= seq", arg=[gid, 4])
            assert not errors, errors
    finally:
        ctx.close()
