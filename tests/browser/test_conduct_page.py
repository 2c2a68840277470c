"""The board page's conduct panel in headless chromium (issue #15 items 4-5, #21 item 4): a seat
clicks "Take back my last move", the other seat's page shows the request and its Accept button,
and clicking it returns the board to where it was (the move list strikes the move through); a
draw offered by clicking is accepted by clicking, and the game ends; "Resign" asks first; a
dispute opened in the form (its note shown as text) is voided by the other seat's click; in a
refereed Rite game the referee's own page voids it. Desktop and phone sizes; screenshots go to
/tmp/boardlog-shots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,  # one stack for the module's tests, each on games of its own
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def _factions(stack: Stack) -> tuple[str, list[str], int, dict[str, Any], int]:
    """A Factions game whose prompted seat has made one command: id, tokens, that seat, its
    board before that command, and the command's first seq."""
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "factions", "seats": ["ann", "bob"]})
        assert r.status_code == 201, r.text
        g = r.json()
        gid, tokens = g["id"], [s["token"] for s in g["seats"]]
        wait_for(lambda: c.get(f"/v1/games/{gid}").status_code == 200 and c.get(f"/v1/games/{gid}").json()["prompt"])
        seat = c.get(f"/v1/games/{gid}").json()["prompt"]["seats"][0]
        before = c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[seat])).json()["board"]
        legal = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[seat])).json()
        m = legal["commands"][0]
        r = command(c, gid, tokens[seat], m["type"], m["args"])
        assert r.json()["status"] == "accepted", r.text
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= r.json()["seq"][1])
    return gid, tokens, seat, before, r.json()["seq"][0]


def test_take_back_clicked_then_accepted_by_clicking(stack: Stack, new_page: Any, shots: Path) -> None:
    gid, tokens, seat, before, _ = _factions(stack)
    mine = new_page(1280, 900)
    mine.goto(f"{stack.url}/games/{gid}#token={tokens[seat]}")
    expect(mine.locator("#conduct")).to_be_visible()
    mine.get_by_role("button", name="Take back my last move").click()
    expect(mine.locator("#cmd-msg")).to_contain_text("Accepted")
    expect(mine.locator("#conduct-live .conduct-proposal")).to_contain_text("You propose taking back your last move, move 1 (")
    theirs = new_page(390, 844)  # the other seat, on a phone
    theirs.goto(f"{stack.url}/games/{gid}#token={tokens[1 - seat]}")
    proposal = theirs.locator("#conduct-live .conduct-proposal")
    expect(proposal).to_contain_text("proposes taking back their last move, move 1 (")
    theirs.screenshot(path=str(shots / "conduct-takeback-phone.png"), full_page=True)
    proposal.get_by_role("button", name="Accept").click()
    expect(theirs.locator("#cmd-msg")).to_contain_text("Accepted")
    expect(theirs.locator("#conduct-live .conduct-proposal")).to_have_count(0)
    with stack.client() as c:
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["conduct"]["undone"] != [])
        assert c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[seat])).json()["board"] == before
    # The proposer's page follows the stream: the request is gone there too.
    expect(mine.locator("#conduct-live .conduct-proposal")).to_have_count(0)
    # The undone move stays in the move list, struck through and marked.
    undone = mine.locator("#moves li.mv-entry.undone")
    expect(undone).to_have_count(1)
    expect(undone).to_contain_text("undone")
    assert "line-through" in undone.locator(".mv-text").first.evaluate("n => getComputedStyle(n).textDecorationLine")
    mine.screenshot(path=str(shots / "conduct-after-takeback.png"), full_page=True)
    # The replay of the undone move says which move undid it, by the list's number, a click away.
    n = undone.get_attribute("data-n")
    mine.goto(f"{stack.url}/games/{gid}/replay?at={n}#token={tokens[seat]}")
    note = mine.locator(".rp-undone-note")
    expect(note).to_contain_text("Undone at step ")
    expect(note).to_contain_text(": Move 1 is taken back: the game returns to where it was before move 1")
    assert "seq" not in note.inner_text()
    by = mine.locator("#undone-by").inner_text().removeprefix("step ")
    mine.locator("#undone-by").click()
    expect(mine.locator(".rp-where")).to_contain_text(f"Step {by} of ")
    expect(mine.locator("#step-text")).to_contain_text("Move 1 is taken back")
    mine.screenshot(path=str(shots / "replay-undone-by.png"), full_page=True)


def test_a_draw_offered_and_accepted_by_clicking_ends_the_game(stack: Stack, new_page: Any, shots: Path) -> None:
    gid, tokens, _, _, _ = _factions(stack)
    ann = new_page(1280, 900)
    ann.goto(f"{stack.url}/games/{gid}#token={tokens[0]}")
    dialogs: list[str] = []

    def dismiss(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    ann.on("dialog", dismiss)
    ann.get_by_role("button", name="Resign").click()  # asked first; dismissed: nothing sent
    wait_for(lambda: bool(dialogs))
    assert "Resign" in dialogs[0]
    ann.get_by_role("button", name="Offer a draw").click()
    expect(ann.locator("#conduct-live .conduct-proposal")).to_contain_text("You propose a draw")
    bob = new_page(1280, 900)
    bob.goto(f"{stack.url}/games/{gid}#token={tokens[1]}")
    bob.locator("#conduct-live .conduct-proposal").get_by_role("button", name="Accept").click()
    expect(bob.locator("#prompt-line")).to_contain_text("The game is over")
    expect(bob.locator("#conduct")).to_be_hidden()
    with stack.client() as c:
        s = c.get(f"/v1/games/{gid}").json()
        assert s["status"] == "over" and "draw" in s["outcome"]["reason"] and s["conduct"]["resigned"] == []
    bob.screenshot(path=str(shots / "conduct-draw.png"), full_page=True)


def test_a_dispute_opened_in_the_form_and_voided_by_clicking(stack: Stack, new_page: Any, shots: Path) -> None:
    gid, tokens, seat, before, on = _factions(stack)
    other = new_page(1280, 900)
    other.goto(f"{stack.url}/games/{gid}#token={tokens[1 - seat]}")
    other.locator("#conduct summary", has_text="Dispute a move").click()
    # The move is chosen from the list as the move list words it, newest first (not by its seq);
    # a draw offered and refused (platform commands, not moves of the game) are not offered.
    with stack.client() as c:
        assert command(c, gid, tokens[1 - seat], "boardlog.propose", {"kind": "draw"}).json()["status"] == "accepted"
        r = command(c, gid, tokens[seat], "boardlog.refuse", {})
        assert r.json()["status"] == "accepted", r.text
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= r.json()["seq"][1])
        entry = next(e for e in c.get(f"/v1/games/{gid}/moves", headers=bearer(tokens[1 - seat])).json()["entries"]
                     if e["seq_from"] == on)
    expect(other.locator("#moves li.mv-entry")).to_have_count(4, timeout=10_000)  # set-up, the move, offer, refusal
    expect(other.locator("#dispute-move option")).to_have_count(2)  # the move, and "an older move"
    newest = other.locator("#dispute-move option").first
    words = entry["text"].rstrip(".")
    expect(newest).to_have_text(f"{entry['move']}. {words}")
    expect(newest).to_have_attribute("value", str(on))
    other.select_option("#dispute-move", str(on))
    expect(other.locator("#dispute-seq")).to_be_hidden()
    other.fill("#dispute-note", "<b>not</b> the move I saw")
    other.get_by_role("button", name="Open the dispute").click()
    expect(other.locator("#conduct-live .conduct-dispute")).to_contain_text(
        f"disputes move {entry['move']} ({words}): <b>not</b> the move I saw")
    mover = new_page(1280, 900)
    mover.on("dialog", lambda d: d.accept())
    mover.goto(f"{stack.url}/games/{gid}#token={tokens[seat]}")
    dispute = mover.locator("#conduct-live .conduct-dispute")
    expect(dispute.get_by_role("button", name="Uphold")).to_be_visible()
    mover.screenshot(path=str(shots / "conduct-dispute.png"), full_page=True)
    dispute.get_by_role("button", name="Void").click()
    expect(mover.locator("#conduct-live .conduct-dispute")).to_have_count(0)
    with stack.client() as c:
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["conduct"]["undone"] != [])
        s = c.get(f"/v1/games/{gid}").json()["conduct"]
        assert s["disputes"][0]["verdict"] == "voided" and s["undone"][0]["first"] == on
        assert c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[seat])).json()["board"] == before



def test_the_referee_voids_a_dispute_by_clicking_and_the_seat_sees_it_struck(stack: Stack, new_page: Any, shots: Path) -> None:
    """A refereed Rite game: the referee's page is its own (every seat's board, no abort), shows
    the dispute a seat opened with Uphold / Void, and voids it by a click; the seat's move list
    strikes the move through. The admin's page shows the dispute without the buttons."""
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "rite", "seats": ["ann", "bob"], "referee": "rita"})
        assert r.status_code == 201, r.text
        made = r.json()
        gid, tokens, ref, admin = made["id"], [s["token"] for s in made["seats"]], made["referee"]["token"], made["admin_token"]
        wait_for(lambda: c.get(f"/v1/games/{gid}").status_code == 200 and c.get(f"/v1/games/{gid}").json()["prompt"])
        seat = c.get(f"/v1/games/{gid}").json()["prompt"]["seats"][0]
        before = c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[seat])).json()["board"]
        m = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[seat])).json()["commands"][0]
        r = command(c, gid, tokens[seat], m["type"], m["args"])
        assert r.json()["status"] == "accepted", r.text
        on = r.json()["seq"][0]
    # The other seat opens the dispute on a phone, in the form.
    other = new_page(390, 844)
    other.goto(f"{stack.url}/games/{gid}#token={tokens[1 - seat]}")
    other.locator("#conduct summary", has_text="Dispute a move").click()
    # A move older than the list the board keeps is named by its seq (the last choice).
    other.select_option("#dispute-move", "older")
    other.fill("#dispute-seq", str(on))
    other.fill("#dispute-note", "that tile was not in the stack")
    other.get_by_role("button", name="Open the dispute").click()
    expect(other.locator("#conduct-live .conduct-dispute")).to_contain_text("disputes move 1 (")
    expect(other.locator("#conduct-live .conduct-dispute button")).to_have_count(0)  # the referee settles it
    # The admin sees it, may not settle it, and keeps its abort.
    adm = new_page(1280, 900)
    adm.goto(f"{stack.url}/games/{gid}#token={admin}")
    expect(adm.locator("#conduct-live .conduct-dispute")).to_contain_text("The referee settles it")
    expect(adm.locator("#conduct-live .conduct-dispute button")).to_have_count(0)
    expect(adm.locator("#abort")).to_be_visible()
    for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
        page = new_page(width, height)
        page.on("dialog", lambda d: d.accept())
        page.goto(f"{stack.url}/games/{gid}#token={ref}")
        expect(page.locator("#your-seat")).to_contain_text("referee (no seat)")
        expect(page.locator("#status .referee-badge")).to_have_text("refereed by rita")
        expect(page.locator("#referee")).to_be_visible()
        expect(page.locator("#admin")).to_be_hidden()
        expect(page.locator("#abort")).to_be_hidden()
        expect(page.locator("#controls")).to_be_hidden()
        expect(page.locator("#referee-as option")).to_have_count(3)  # the public board, ann's, bob's
        dispute = page.locator("#conduct-live .conduct-dispute")
        expect(dispute).to_contain_text("that tile was not in the stack")
        expect(dispute).to_contain_text("You referee this game")
        expect(dispute.get_by_role("button", name="Uphold")).to_be_visible()
        page.screenshot(path=str(shots / f"referee-dispute-{name}.png"), full_page=True)
        page.screenshot(path=str(shots / f"referee-dispute-{name}-screen.png"))
    # Every seat's board: ann's, her face-down powers named (the public board names none).
    players = page.locator("#players-box")
    expect(players).not_to_contain_text("the others do not see it")
    page.select_option("#referee-as", "0")
    expect(players.locator("li", has_text="the others do not see it")).to_have_count(4)
    page.fill("#ruling-reason", "the tile was drawn from the wrong stack")  # a referee rules with a reason
    dispute.get_by_role("button", name="Void").click()
    expect(page.locator("#referee-msg")).to_contain_text("Accepted: void move 1 (")
    expect(page.locator("#conduct-live .conduct-dispute")).to_have_count(0)
    expect(page.locator("#conduct-live")).to_contain_text("No dispute is open")
    expect(page.locator("#moves li.mv-entry.undone")).to_have_count(1)  # the referee's list too
    page.screenshot(path=str(shots / "referee-voided-desktop.png"), full_page=True)
    with stack.client() as c:
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["conduct"]["undone"] != [])
        s = c.get(f"/v1/games/{gid}").json()["conduct"]
        assert s["disputes"][0]["verdict"] == "voided" and s["undone"][0]["first"] == on
        assert c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[seat])).json()["board"] == before
    mover = new_page(390, 844)
    mover.goto(f"{stack.url}/games/{gid}#token={tokens[seat]}")
    undone = mover.locator("#moves li.mv-entry.undone")
    expect(undone).to_have_count(1)
    assert "line-through" in undone.locator(".mv-text").first.evaluate("n => getComputedStyle(n).textDecorationLine")
    mover.screenshot(path=str(shots / "referee-voided-seat-phone.png"), full_page=True)
