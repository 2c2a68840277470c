"""One referee console, whoever the referee is (issue #37 item 2), in headless chromium: a
player named as a Rite game's referee signs in, finds the dispute waiting on them first on
their page (counted in the header), opens the board as the referee (every seat's board, the
dispute with the move replayed before and after and what a void draws again), is refused a
ruling without a reason (nothing sent), voids with one (the confirmation names the disputed
move), posts to the table talk as the referee, and replays the game with everything shown.
A seat's dispute picker offers only the other seats' moves, the newest chosen, and follows the
game while the form stays open. Desktop and phone sizes; screenshots go to /tmp/boardlog-shots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, player

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,  # one stack for the module's tests, each on games of its own
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def _move(c: httpx.Client, gid: str, tokens: list[str]) -> tuple[int, int]:
    """The prompted seat plays its first legal command: that seat and the command's first seq."""
    seq = c.get(f"/v1/games/{gid}").json()["seq"]
    summary = c.get(f"/v1/games/{gid}?min_seq={seq}").json()
    seat = summary["prompt"]["seats"][0]
    m = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[seat])).json()["commands"][0]
    r = command(c, gid, tokens[seat], m["type"], m["args"])
    assert r.json()["status"] == "accepted", r.text
    wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= r.json()["seq"][-1])
    return seat, r.json()["seq"][0]


def _signed_in(new_page: Any, stack: Stack, who: dict[str, str], width: int, height: int) -> Any:
    page = new_page(width, height)
    page.goto(stack.url + who["signin_url"])
    page.locator("#confirm-go").click()  # a sign-in link signs in only by a click
    expect(page.locator("#who")).to_have_text(who["name"] if "name" in who else who["id"], timeout=10_000)
    return page


def test_a_signed_in_player_referee_rules_from_the_board_with_a_reason(stack: Stack, new_page: Any, shots: Path) -> None:
    with stack.client() as c:
        carol = {**player(c, "carol-r"), "name": "carol-r"}
        r = c.post("/v1/games", json={"game": "rite", "seats": ["ann", "bob"], "referee": {"player": carol["id"]}})
        assert r.status_code == 201, r.text
        gid, tokens = r.json()["id"], [s["token"] for s in r.json()["seats"]]
        wait_for(lambda: c.get(f"/v1/games/{gid}").status_code == 200 and c.get(f"/v1/games/{gid}").json()["prompt"])
        before = c.get(f"/v1/games/{gid}/view").json()["board"]
        mover, on = _move(c, gid, tokens)
        r = command(c, gid, tokens[1 - mover], "boardlog.dispute", {"seq": on, "note": "that tile was not in the stack"})
        assert r.json()["status"] == "accepted", r.text
        asked, opened = r.json()["seq"][0], r.json()["seq"][-1]  # the dispute's command, its DisputeOpened
        wait_for(lambda: c.get(f"/v1/games/{gid}?min_seq={opened}").status_code == 200)
    for width, height, size in ((390, 844, "phone"), (1280, 900, "desktop")):
        me = _signed_in(new_page, stack, carol, width, height)
        me.goto(f"{stack.url}/me")
        first = me.locator("#my-games tbody tr").first
        expect(first).to_have_attribute("data-game", gid)
        expect(first).to_contain_text("Your ruling")
        expect(first).to_contain_text("that tile was not in the stack")
        expect(first.locator(".referee-badge")).to_have_text("you referee")
        expect(me.locator("header.top #waiting-count")).to_have_text("1")
        me.screenshot(path=str(shots / f"referee-me-{size}.png"), full_page=True)

        page = me
        page.on("dialog", lambda d: d.accept())
        first.get_by_role("link", name=f"Rite · {gid}").click()
        expect(page.locator("#your-seat")).to_contain_text("referee (no seat)")
        expect(page.locator("#referee")).to_be_visible()
        expect(page.locator("#controls")).to_be_hidden()
        expect(page.locator("#abort")).to_be_hidden()
        expect(page.locator("#referee-as option")).to_have_count(3)  # the public board, ann's, bob's
        dispute = page.locator("#conduct-live .conduct-dispute")
        expect(dispute).to_contain_text("that tile was not in the stack")
        expect(dispute).to_contain_text("You referee this game")
        expect(page.locator("#ruling-before")).to_have_attribute("href", f"/games/{gid}/replay?seq={on - 1}&view=all")
        expect(page.locator("#ruling-after")).to_have_attribute("href", f"/games/{gid}/replay?seq={asked - 1}&view=all")
        expect(page.locator("#ruling-redraws")).to_be_visible()  # the ruling view's words on what a void draws
        expect(page.locator("#talk-form")).to_be_visible()  # the referee talks at the table
        page.screenshot(path=str(shots / f"referee-console-{size}.png"), full_page=True)

    # Void without a reason: refused on the page, nothing sent.
    dispute.get_by_role("button", name="Void").click()
    expect(page.locator("#referee-msg")).to_contain_text("bad_reason")
    with stack.client() as c:
        assert c.get(f"/v1/games/{gid}").json()["seq"] == opened
    page.fill("#ruling-reason", "the tile stack was misread")
    dispute.get_by_role("button", name="Void").click()
    msg = page.locator("#referee-msg")
    expect(msg).to_contain_text("Accepted: void move 1 (")
    assert "(move " not in msg.inner_text()  # the confirmation names the disputed move, not the ruling's step
    expect(page.locator("#conduct-live")).to_contain_text("No dispute is open")
    with stack.client() as c:
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["conduct"]["undone"] != [])
        resolved = [e for e in c.get(f"/v1/games/{gid}/events?from={opened}").json()["events"]
                    if e["type"] == "boardlog.DisputeResolved"]
        assert resolved[0]["data"]["reason"] == "the tile stack was misread" and resolved[0]["data"]["by"] == "referee"
        assert c.get(f"/v1/games/{gid}/view").json()["board"] == before

    # Table talk as the referee, marked so.
    page.fill("#talk-text", "Play on from the position before the move, please.")
    page.locator("#talk-send").click()
    said = page.locator("#talk-list .talk-item.talk-referee")
    expect(said).to_have_count(1)
    expect(said.locator(".talk-who")).to_have_text("The referee (carol-r)")
    page.screenshot(path=str(shots / "referee-console-after.png"), full_page=True)

    # The record: the replay with everything shown opens for the signed-in referee.
    page.locator("#referee-replay").click()
    expect(page.locator("#viewer")).to_contain_text("Everything shown")
    expect(page.locator("#viewer")).to_contain_text("you are the game's referee")
    expect(page.locator("#as-all")).to_be_enabled()


def test_the_dispute_picker_offers_the_other_seats_moves_newest_first(stack: Stack, new_page: Any) -> None:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "factions", "seats": ["ann", "bob"]})
        assert r.status_code == 201, r.text
        gid, tokens = r.json()["id"], [s["token"] for s in r.json()["seats"]]
        wait_for(lambda: c.get(f"/v1/games/{gid}").status_code == 200 and c.get(f"/v1/games/{gid}").json()["prompt"])
        played = [_move(c, gid, tokens) for _ in range(3)]
    watcher = next(s for s, _ in played if any(t != s for t, _ in played))
    theirs = [on for s, on in played if s != watcher]
    page = new_page(1280, 900)
    page.goto(f"{stack.url}/games/{gid}#token={tokens[watcher]}")
    page.locator("#conduct summary", has_text="Dispute a move").click()
    options = page.locator("#dispute-move option")
    expect(options).to_have_count(len(theirs) + 1)  # the other seat's moves, and "an older move"
    expect(page.locator("#dispute-move")).to_have_value(str(max(theirs)))
    # A move played while the form stays open: the default follows the game, never an old move.
    with stack.client() as c:
        for _ in range(4):
            s, on = _move(c, gid, tokens)
            if s != watcher:
                break
        else:
            pytest.skip("the other seat was not prompted again in four moves")
    expect(page.locator("#dispute-move")).to_have_value(str(on), timeout=10_000)
    values = [v for v in options.evaluate_all("os => os.map(o => o.value)") if v != "older"]
    own = {str(q) for t, q in played if t == watcher}
    assert not own & set(values), "one's own moves are a takeback's, not a dispute's"
