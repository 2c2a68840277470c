"""The web pages in headless chromium against a live stack (API, worker, projector, Redis).

Every test drives the test-only game `race` (tests/support/racegame.py): seats take turns
with `roll`; a roll moves 1-6 spaces (plus 2 when it hits the seat's secret charm).
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def create_race(stack: Stack, target: int = 12, seats: tuple[str, ...] = ("ann", "bob")) -> dict[str, Any]:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "race", "seats": list(seats), "options": {"target": target}})
        assert r.status_code == 201, r.text
        game: dict[str, Any] = r.json()
        gid = game["id"]
        # The pages read the projected summary; wait for the projector to write it.
        wait_for(lambda: any(g["id"] == gid for g in c.get("/v1/games").json()["games"]))
    return game


def roll(stack: Stack, game: dict[str, Any]) -> dict[str, Any]:
    """The seat whose turn it is rolls, through the API; returns the new summary once projected."""
    gid = game["id"]
    with stack.client() as c:
        s = c.get(f"/v1/games/{gid}").json()
        seat = s["prompt"]["seats"][0]
        h = {"Authorization": f"Bearer {game['seats'][seat]['token']}"}
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=h,
                   json={"id": str(uuid.uuid4()), "type": "race.roll", "args": {}, "expect": s["seq"]})
        assert r.status_code == 200, r.text
        head = r.json()["seq"][1]
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= head)
        out: dict[str, Any] = c.get(f"/v1/games/{gid}").json()
        return out


def seat_link(stack: Stack, game: dict[str, Any], seat: int) -> str:
    return f"{stack.url}/games/{game['id']}#token={game['seats'][seat]['token']}"


@pytest.mark.browser
def test_lobby_form_creates_a_game_and_shows_the_secret_links(stack: Stack, new_page: Any, shots: Path) -> None:
    page = new_page()
    page.goto(stack.url + "/")
    expect(page.locator("#game-type option[value=race]")).to_have_count(1)
    page.select_option("#game-type", "race")
    page.fill("#seat-0", "ann")
    page.fill("#seat-1", "bob")
    page.click("#add-seat")
    page.fill("#seat-2", "cy")
    page.fill("#options", '{"target": 12}')
    page.get_by_role("button", name="Create game").click()

    created = page.locator("#created")
    expect(created).to_be_visible()
    expect(created).to_contain_text("These links are secret")
    links = page.locator("#created-links input.secret-link")
    expect(links).to_have_count(4)  # three seats and the admin
    urls = [links.nth(i).input_value() for i in range(4)]
    m = re.fullmatch(re.escape(stack.url) + r"/games/([a-z0-9-]+)#token=([\w-]+)", urls[0])
    assert m, urls[0]
    gid = m.group(1)
    assert len({u.split("#token=")[1] for u in urls}) == 4  # every seat and the admin: own token
    expect(page.locator("#created-links li[data-seat='2'] label")).to_have_text("Seat 2: cy")

    row = page.locator(f"#games tr[data-game='{gid}']")
    expect(row).to_be_visible()
    expect(row).to_contain_text("ann: roll the die")
    expect(row.get_by_role("link", name=f"replay of {gid}")).to_have_attribute("href", f"/games/{gid}/replay")
    page.screenshot(path=str(shots / "lobby.png"), full_page=True)

    phone = new_page(width=390, height=844)
    phone.goto(stack.url + "/")
    expect(phone.locator(f"#games tr[data-game='{gid}']")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390

    # The Finished filter asks the API again: no finished games yet.
    page.get_by_role("button", name="Finished").click()
    expect(page.locator(f"#games tr[data-game='{gid}']")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"\?status=over$"))

    # A bad options field is reported by the page before anything is sent.
    page.fill("#options", "{not json")
    page.get_by_role("button", name="Create game").click()
    expect(page.locator("#new-msg")).to_contain_text("not valid JSON")

    # An error from the API is shown with its code and message.
    page.fill("#options", '{"target": 0}')
    page.get_by_role("button", name="Create game").click()
    expect(page.locator("#new-msg")).to_contain_text("target must be an integer")


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_who_sits_in_each_seat_is_read_whole(stack: Stack, new_page: Any, width: int) -> None:
    page = new_page(width=width)
    page.goto(stack.url + "/")
    expect(page.locator("#game-type option[value=rite]")).to_have_count(1)
    page.select_option("#game-type", "rite")
    page.click("#add-seat")
    expect(page.locator("#seats .seat-row")).to_have_count(3)
    # Each seat's "who" select against the same select laid out at its natural width.
    widths = page.evaluate("""() => [...document.querySelectorAll('#seats .seat-kind')].map((sel) => {
      const probe = sel.cloneNode(true);
      probe.style.cssText = 'position:absolute; flex:none; width:auto;';
      document.body.append(probe);
      const need = probe.getBoundingClientRect().width;
      probe.remove();
      return [sel.getBoundingClientRect().width, need];
    })""")
    assert all(have >= need - 0.5 for have, need in widths), widths


@pytest.mark.browser
def test_the_lobby_shows_older_games_a_page_at_a_time(stack: Stack, new_page: Any) -> None:
    with stack.client() as c:
        ids = [c.post("/v1/games", json={"game": "race", "seats": ["a", "b"]}).json()["id"] for _ in range(57)]
        wait_for(lambda: len(c.get("/v1/games?limit=100").json()["games"]) == 57, timeout=20)
        first = c.get("/v1/games").json()
        assert len(first["games"]) == 50 and first["next"]
        assert c.get("/v1/games?cursor=nope").status_code == 422
    page = new_page()
    page.goto(stack.url + "/")
    rows = page.locator("#games tbody tr[data-game]")
    expect(rows).to_have_count(50)
    more = page.get_by_role("button", name="Older games")
    more.click()
    expect(rows).to_have_count(57)
    expect(more).to_be_hidden()
    shown = [rows.nth(i).get_attribute("data-game") for i in range(57)]
    assert sorted(shown) == sorted(ids)  # each once
    page.get_by_role("button", name="Refresh").click()
    expect(rows).to_have_count(50)
    expect(more).to_be_visible()


@pytest.mark.browser
def test_a_seat_plays_a_legal_command_and_the_other_seat_updates_live(
    stack: Stack, new_page: Any, shots: Path
) -> None:
    game = create_race(stack)
    gid = game["id"]
    ann, bob = new_page(), new_page()
    ann.goto(seat_link(stack, game, 0))
    bob.goto(seat_link(stack, game, 1))
    for page in (ann, bob):
        expect(page.locator("#seq")).to_have_text("2")
        expect(page.locator("#log li.log-entry")).to_have_count(2)
        # The token leaves the address bar at once (kept in sessionStorage for this tab).
        assert "token" not in page.url
        assert page.url == f"{stack.url}/games/{gid}"
    expect(ann.locator("#your-seat")).to_contain_text("ann (seat 0)")
    expect(bob.locator("#your-seat")).to_contain_text("bob (seat 1)")
    expect(bob.locator("#live")).to_have_text("live")
    expect(bob.locator("#prompt-line")).to_contain_text("Waiting for ann")
    expect(bob.locator("#commands button")).to_have_count(0)
    bob.evaluate("window.__notReloaded = true")
    # The secret charm is in the seat's own view only.
    expect(ann.locator("#details")).to_contain_text("charm")

    button = ann.locator("#commands button", has_text="roll")
    expect(button).to_have_count(1)
    button.click()
    expect(ann.locator("#cmd-msg")).to_have_text("Accepted: roll (move 1).")
    expect(ann.locator("#seq")).to_have_text("4")
    expect(ann.locator("#log li.log-entry")).to_have_count(4)
    expect(ann.locator("#log li[data-seq='3']")).to_contain_text("ann")
    expect(ann.locator("#log li[data-seq='3'] .notation")).to_have_text("roll")
    expect(ann.locator("#commands button")).to_have_count(0)
    expect(ann.locator("#prompt-line")).to_contain_text("Waiting for bob")

    # bob's page learns of it over server-sent events, without a reload.
    expect(bob.locator("#seq")).to_have_text("4")
    expect(bob.locator("#log li.log-entry")).to_have_count(4)
    expect(bob.locator("#prompt-line")).to_contain_text("Your turn")
    expect(bob.locator("#commands button", has_text="roll")).to_have_count(1)
    assert bob.evaluate("window.__notReloaded") is True
    # The board moved ann's token: her cell now reads her position.
    position = roll_position(stack, gid, 0)
    expect(bob.locator("svg.board g.cell[data-id='s0'] .cell-label")).to_have_text(str(position))
    ann.screenshot(path=str(shots / "board.png"), full_page=True)


def roll_position(stack: Stack, gid: str, seat: int) -> int:
    with stack.client() as c:
        return int(c.get(f"/v1/games/{gid}/view").json()["board"]["positions"][seat])


@pytest.mark.browser
def test_illegal_commands_show_the_api_error(stack: Stack, new_page: Any) -> None:
    game = create_race(stack)
    ann = new_page()
    ann.goto(seat_link(stack, game, 0))
    expect(ann.locator("#seq")).to_have_text("2")

    # Notation the game cannot read: the API's 422 {"error": {code, message}}.
    ann.fill("#text-command", "fly away")
    ann.get_by_role("button", name="Send").click()
    msg = ann.locator("#cmd-msg .msg.error")
    expect(msg).to_contain_text("bad_notation")
    expect(msg).to_contain_text("cannot read 'fly away': try 'roll' or 'note TEXT'")

    # Not this seat's turn: Send is disabled (issue #14), so the box sends nothing.
    bob = new_page()
    bob.goto(seat_link(stack, game, 1))
    expect(bob.locator("#seq")).to_have_text("2")
    bob.fill("#text-command", "roll")
    expect(bob.locator("#send-text")).to_be_disabled()
    bob.press("#text-command", "Enter")
    expect(bob.locator("#cmd-msg .msg")).to_have_count(0)
    expect(bob.locator("#seq")).to_have_text("2")

    # A good text command from the notation box is accepted and clears the box.
    ann.fill("#text-command", "note good luck")
    ann.get_by_role("button", name="Send").click()
    expect(ann.locator("#cmd-msg")).to_contain_text("Accepted")
    expect(ann.locator("#text-command")).to_have_value("")
    expect(ann.locator("#log")).to_contain_text("note good luck")


@pytest.mark.browser
def test_a_spectator_sees_the_public_board_and_no_controls(stack: Stack, new_page: Any) -> None:
    game = create_race(stack)
    gid = game["id"]
    page = new_page()
    page.goto(f"{stack.url}/games/{gid}")
    expect(page.locator("#seq")).to_have_text("2")
    expect(page.locator("#your-seat")).to_have_text("spectator")
    expect(page.locator("#spectator")).to_be_visible()
    expect(page.locator("#controls")).to_be_hidden()
    expect(page.locator("#admin")).to_be_hidden()
    expect(page.locator("#commands button")).to_have_count(0)
    expect(page.locator("#text-command")).to_be_hidden()
    expect(page.locator("svg.board g.cell")).to_have_count(2)
    expect(page.locator("#details")).to_contain_text("positions")
    expect(page.locator("#details")).not_to_contain_text("charm")

    # A wrong token falls back to the spectator's view with a warning.
    bad = new_page()
    bad.goto(f"{stack.url}/games/{gid}#token=not-a-real-token")
    expect(bad.locator("#token-msg")).to_contain_text("not valid for this game")
    expect(bad.locator("#your-seat")).to_have_text("spectator")
    expect(bad.locator("#controls")).to_be_hidden()

    # The admin link: no seat and no commands, but the admin panel.
    admin = new_page()
    admin.goto(f"{stack.url}/games/{gid}#token={game['admin_token']}")
    expect(admin.locator("#your-seat")).to_have_text("admin (no seat)")
    expect(admin.locator("#admin")).to_be_visible()
    expect(admin.locator("#controls")).to_be_hidden()

    # At a phone's width nothing sticks out sideways.
    phone = new_page(width=390, height=844)
    phone.goto(f"{stack.url}/games/{gid}")
    expect(phone.locator("svg.board g.cell")).to_have_count(2)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390

    # The spectator page follows the game live too.
    roll(stack, game)
    expect(page.locator("#seq")).to_have_text("4")
    expect(page.locator("#log li.log-entry")).to_have_count(4)


@pytest.mark.browser
def test_replay_steps_through_the_game_and_the_audit_says_ok(stack: Stack, new_page: Any, shots: Path) -> None:
    """Step by move (one command with its events; tests/browser/test_replay_steps.py has the
    game boards): buttons, keys, the slider, the list; the audit's verdict at the end."""
    game = create_race(stack, target=12)  # a few moves at least: a die a move, 6 at most
    gid = game["id"]
    summary: dict[str, Any] = {}
    for _ in range(40):
        summary = roll(stack, game)
        if summary["status"] != "active":
            break
    assert summary["status"] == "over", summary
    with stack.client() as c:
        steps = c.get(f"/v1/games/{gid}/replay").json()["steps"]
        second = c.get(f"/v1/games/{gid}/replay", params={"at": 3}).json()
    positions = second["view"]["board"]["positions"]

    page = new_page()
    page.goto(f"{stack.url}/games/{gid}/replay?at=3")
    expect(page.locator("#at-out")).to_have_text(f"step 3 of {steps} · move 2")
    expect(page.locator("#board")).to_have_attribute("data-seq", str(second["seq"]))
    expect(page.locator("#log li.current")).to_have_attribute("data-n", "3")
    expect(page.locator("#details")).to_contain_text(", ".join(str(p) for p in positions))
    expect(page.locator("#step-text")).to_have_text("bob rolls the die.")
    expect(page.locator("#step-notation")).to_have_text("roll")

    page.get_by_role("button", name="Next step").click()
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at=4")
    expect(page.locator("#log li.current")).to_have_attribute("data-n", "4")

    page.locator("body").press("ArrowLeft")
    page.locator("body").press("ArrowLeft")
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at=2")
    expect(page.locator("#step-text")).to_have_text("ann rolls the die.")

    page.get_by_role("button", name="First step").click()
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at=1")
    expect(page.locator("#step-line")).to_contain_text("Set-up")
    expect(page.get_by_role("button", name="Previous step")).to_be_disabled()

    page.get_by_role("button", name="Last step").click()
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at={steps}")
    expect(page.locator("#board")).to_have_attribute("data-seq", str(summary["seq"]))
    expect(page.locator("#state-line")).to_contain_text("over")

    page.locator("#slider").fill("2")
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at=2")

    badge = page.locator("#audit-badge")
    expect(badge).to_have_text("verified")
    expect(page.locator("#audit-more")).to_contain_text(f"{summary['seq']} events")
    expect(page.locator("#audit-link")).to_have_attribute("href", f"/v1/games/{gid}/audit")
    page.screenshot(path=str(shots / "replay.png"), full_page=True)

    # A seat's link shows that seat's view (with its secret) and the URL stays shareable.
    own = new_page()
    own.goto(f"{stack.url}/games/{gid}/replay?at=3#token={game['seats'][1]['token']}")
    expect(own.locator("#viewer")).to_contain_text("bob (seat 1)")
    expect(own.locator("#details")).to_contain_text("charm")
    assert own.url == f"{stack.url}/games/{gid}/replay?at=3"


INLINE_SCRIPT_JS = """
() => new Promise((done) => {
  document.addEventListener("securitypolicyviolation", (e) => done(e.violatedDirective), { once: true });
  const s = document.createElement("script");
  s.textContent = "window.__ran = true";
  document.head.append(s);
  setTimeout(() => done(window.__ran ? "ran" : "neither ran nor was refused"), 3000);
})
"""


def test_the_pages_run_no_script_but_their_own(stack: Stack, chromium: Any) -> None:
    """Every page is served with a Content-Security-Policy: a script that reached a page as
    markup (a name, a message) would not run, nothing is sent off the origin, and no other site
    frames it. The pages themselves break none of it: the fixture's pages fail any test on a
    refusal. Here, a script put into the board is refused."""
    game = create_race(stack)
    with stack.client() as c:
        for path in ("/", "/signin", "/me", "/rules/rite", f"/games/{game['id']}", f"/games/{game['id']}/replay",
                     "/games/p01-000000000000", "/unsubscribe/nosuchtoken"):
            r = c.get(path)
            assert "script-src 'self'" in r.headers.get("content-security-policy", ""), (path, r.headers)
            assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
            assert r.headers.get("x-content-type-options") == "nosniff", path
        assert c.get("/static/dom.js").headers.get("x-content-type-options") == "nosniff"
    ctx = chromium.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"{stack.url}/games/{game['id']}#token={game['seats'][0]['token']}")
        expect(page.locator("#seq")).not_to_have_text("", timeout=10_000)
        assert page.evaluate(INLINE_SCRIPT_JS) == "script-src-elem"
    finally:
        ctx.close()
