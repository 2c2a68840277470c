"""The replay page by move (issue #21 item 5, issue #14's replay gaps), in headless chromium.

A Rite game is played over HTTP up to its first unit move (`move c4 d5`-style notation); the page
then shows that step with the unit already on its destination, both cells washed and an arrow
between them, the step's events as sub-steps one can open, and steps by move with the buttons,
the list and the keys. A bad `?at=` (abc, -1, past the end) says so and shows no position. A
finished game's step shows its draws re-derived from the revealed seed, and a viewer may replay
with everything shown. Desktop and phone sizes; screenshots go to /tmp/boardlog-shots.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.browser.test_boards import SMALL_TEXT_JS, create
from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, new_race
from tests.support.replaying import new_rite, play_rite_until_a_move

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,  # one stack for the module's tests, each on games of its own
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


@pytest.fixture(scope="module")
def rite(module_stack: Stack) -> dict[str, Any]:
    """One Rite game, played up to its first move: its id, tokens, the move and its step."""
    stack = module_stack
    with stack.client() as c:
        gid, tokens = new_rite(c)
        notation, seq = play_rite_until_a_move(c, gid, tokens)
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= seq)
        last = c.get(f"/v1/games/{gid}/replay").json()
    assert last["entry"]["notation"] == notation
    return {"gid": gid, "tokens": tokens, "notation": notation, "step": last["step"], "seq": seq}


def cell(page: Any, cid: str) -> Any:
    return page.locator(f'#board svg.board g.cell[data-id="{cid}"]')


def test_the_move_step_shows_the_unit_on_its_destination_and_both_cells(stack: Stack, rite: dict[str, Any],
                                                                         new_page: Any, shots: Path) -> None:
    gid, n = rite["gid"], rite["step"]
    _, src, dst = rite["notation"].split()
    page = new_page(1440, 1000)
    page.goto(f"{stack.url}/games/{gid}/replay?at={n}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(n))
    expect(page.locator("#board")).to_have_attribute("data-skin", "ok")  # the Rite board, not the plain drawing
    expect(page.locator("#step-notation")).to_have_text(rite["notation"])
    expect(page.locator("#step-text")).to_contain_text("ann")
    expect(page.locator("#step-line time")).to_have_count(1)
    # the unit is already on the destination, both cells washed, an arrow from one to the other
    expect(cell(page, dst).locator(".piece, g").first).to_be_visible()
    assert cell(page, dst).get_attribute("class") and "marked" in str(cell(page, dst).get_attribute("class"))
    assert "marked" in str(cell(page, src).get_attribute("class"))
    expect(page.locator(f'#board line.rp-arrow[data-from="{src}"][data-to="{dst}"]')).to_have_count(1)
    expect(page.locator("#step-changes")).to_contain_text(f"moved {src} → {dst}")
    expect(page.locator("#step-changes")).to_contain_text("energy")
    src_title = cell(page, src).locator("title").first.text_content() or ""
    dst_title = cell(page, dst).locator("title").first.text_content() or ""
    unit = page.locator("#step-changes li.rp-moved").first.text_content() or ""
    kind = unit.split(" (")[0]
    assert kind.lower() in dst_title.lower() and kind.lower() not in src_title.split("\n", 1)[-1].lower(), (unit, src_title, dst_title)
    # the whole game is there, one entry a step, the current one marked
    expect(page.locator("#log li.rp-entry")).to_have_count(n)
    expect(page.locator("#log li.current")).to_have_attribute("data-n", str(n))
    expect(page.locator("#players-box")).to_be_visible()
    page.screenshot(path=str(shots / "replay-rite-move-desktop.png"), full_page=True)

    # the step before: the unit is still at its start, the page steps by move
    page.get_by_role("button", name="Previous step").click()
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at={n - 1}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(n - 1))
    assert kind.lower() in (cell(page, src).locator("title").first.text_content() or "").lower()
    page.locator("body").press("ArrowRight")
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at={n}")
    page.locator('#log li[data-n="2"]').click()
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at=2")
    page.get_by_role("button", name="Last step").click()
    expect(page.locator("#board")).to_have_attribute("data-step", str(n))

    # an event of the step is a sub-step: the board after that one event
    page.locator("#step-events summary").click()
    first = page.locator("#step-event-list li").first
    seq = int(first.get_attribute("data-seq") or 0)
    first.get_by_role("button").click()
    expect(page.locator("#step-sub")).to_contain_text(f"event #{seq}")
    expect(page.locator("#board")).to_have_attribute("data-seq", str(seq))
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at={n}&seq={seq}")
    page.get_by_role("button", name="Show the whole step").click()
    expect(page.locator("#step-sub")).to_be_hidden()
    # a link by seq (a dispute's, a fork's) opens the step holding it, at that event
    page.goto(f"{stack.url}/games/{gid}/replay?seq={seq}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(n))
    expect(page.locator("#step-sub")).to_contain_text(f"event #{seq}")

    # the audit says what it checked, mid-game: the draws wait for the end
    expect(page.locator("#audit-reason")).to_contain_text(re.compile(r"intact; \d+ draws? checkable when the game ends"))

    # the board page's move list: a move's number opens the replay at that step
    board = new_page(1280, 900)
    board.goto(f"{stack.url}/games/{gid}")
    link = board.locator(f'#moves li[data-n="{n}"] a.mv-num')
    expect(link).to_have_attribute("href", f"/games/{gid}/replay?at={n}")
    link.click()
    expect(board.locator("#step-notation")).to_have_text(rite["notation"])

    phone = new_page(390, 844)
    phone.goto(f"{stack.url}/games/{gid}/replay?at={n}")
    expect(phone.locator("#board")).to_have_attribute("data-step", str(n))
    assert "marked" in str(cell(phone, dst).get_attribute("class"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.evaluate(SMALL_TEXT_JS) == [], "no text under 11 px"
    phone.screenshot(path=str(shots / "replay-rite-move-phone.png"), full_page=True)


def test_a_bad_at_shows_a_clear_error_and_no_position(stack: Stack, rite: dict[str, Any], new_page: Any, shots: Path) -> None:
    gid, n = rite["gid"], rite["step"]
    page = new_page(1280, 900)
    for bad, says in (("abc", "not 'abc'"), ("-1", "from 1"), (str(n + 50), f"from 1 to {n}")):
        page.goto(f"{stack.url}/games/{gid}/replay?at={bad}")
        expect(page.locator("#bad-at")).to_contain_text("No such step")
        expect(page.locator("#bad-at")).to_contain_text(says)
        expect(page.locator("#board")).not_to_have_attribute("data-step", re.compile(".*"))
        expect(page.locator("#board svg.board")).to_have_count(0)
    page.screenshot(path=str(shots / "replay-bad-at.png"))
    page.get_by_role("button", name="Go to the first step").click()
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at=1")
    expect(page.locator("#bad-at")).to_have_count(0)


def test_a_finished_game_shows_its_draws_re_derived_and_everything(stack: Stack, new_page: Any, shots: Path) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2, target=4)
        for i in range(40):
            r = command(c, gid, tokens[i % 2])
            if r.status_code == 409:
                break
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["status"] == "over")
    page = new_page(1280, 900)
    page.goto(f"{stack.url}/games/{gid}/replay?at=2#token={tokens[1]}")
    expect(page.locator("#board")).to_have_attribute("data-step", "2")
    assert page.url == f"{stack.url}/games/{gid}/replay?at=2", "the token leaves the address"
    expect(page.locator("#viewer")).to_contain_text("p1 (seat 1)")
    expect(page.locator("#step-notation")).to_have_text("roll")
    expect(page.locator("#step-draws")).to_contain_text("derived from the committed seed")
    expect(page.locator("#step-draws li.mv-draw")).to_have_text(re.compile(r"^#\d+: d6 → [1-6]$"))
    expect(page.locator("#audit-badge")).to_have_text("verified")
    # a board without pieces that move (the race's counters): the cell whose number changed
    expect(page.locator("#step-changes")).to_contain_text("s0: 0 → ")
    page.locator("#view-as").select_option("all")
    expect(page).to_have_url(f"{stack.url}/games/{gid}/replay?at=2&view=all")
    expect(page.locator("#viewer")).to_contain_text("Everything shown")
    page.locator("#view-as").select_option("public")
    expect(page.locator("#viewer")).to_contain_text("public view")
    page.screenshot(path=str(shots / "replay-race-over.png"), full_page=True)


def test_a_move_taken_back_is_struck_through(stack: Stack, new_page: Any, shots: Path) -> None:
    with stack.client() as c:
        gid, tokens = new_rite(c)
        notation, _ = play_rite_until_a_move(c, gid, tokens, seed=5)
        n = c.get(f"/v1/games/{gid}/replay").json()["step"]
        assert command(c, gid, tokens[0], "boardlog.takeback", {}).status_code == 200
        r = command(c, gid, tokens[1], "boardlog.accept", {})
        assert r.status_code == 200, r.text
        head = r.json()["seq"][1]
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= head)
    page = new_page(1280, 900)
    page.goto(f"{stack.url}/games/{gid}/replay?at={n}")
    expect(page.locator("#step-notation")).to_have_text(notation)
    expect(page.locator("#step-line")).to_have_class(re.compile(r"\bundone\b"))
    expect(page.locator("#step-line")).to_contain_text("Undone")
    expect(page.locator(f'#log li[data-n="{n}"]')).to_have_class(re.compile(r"\bundone\b"))
    assert page.locator("#step-notation").evaluate("e => getComputedStyle(e).textDecorationLine") == "line-through"
    page.get_by_role("button", name="Last step").click()
    expect(page.locator("#step-line")).to_contain_text("Take-back")
    page.screenshot(path=str(shots / "replay-taken-back.png"), full_page=True)


@pytest.mark.parametrize("game", ["factions", "dragondale"])
def test_each_game_replays_on_its_own_board(stack: Stack, new_page: Any, shots: Path, game: str) -> None:
    """Factions and Dragon Dale at phone and desktop size, on their skins; Dragon Dale refereed,
    its referee replaying with every hidden unit shown."""
    with stack.client() as c:
        body: dict[str, Any] = {"game": game, "seats": ["ann", "bob"], "options": {}}
        if game == "dragondale":
            body["referee"] = {"name": "rita"}
        r = c.post("/v1/games", json=body)
        assert r.status_code == 201, r.text
        g = r.json()
        gid = g["id"]
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] > 1)
    phone = new_page(390, 844)
    phone.goto(f"{stack.url}/games/{gid}/replay?at=1")
    expect(phone.locator("#board")).to_have_attribute("data-skin", "ok")
    expect(phone.locator("#step-line")).to_contain_text("Set-up")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.evaluate(SMALL_TEXT_JS) == [], "no text under 11 px"
    phone.screenshot(path=str(shots / f"replay-{game}-phone.png"), full_page=True)
    if game == "dragondale":
        desk = new_page(1440, 1000)
        desk.goto(f"{stack.url}/games/{gid}/replay?at=1#token={g['referee']['token']}")
        expect(desk.locator("#viewer")).to_contain_text("you are the game's referee")
        expect(desk.locator("#view-as")).to_have_value("all")
        expect(desk.locator("#board")).to_have_attribute("data-skin", "ok")
        titles = " ".join(desk.locator("#board svg.board g.cell > title").all_text_contents())
        assert "only their owner knows" not in titles and "hidden: the other tribes see only the back" in titles, titles[:400]
        desk.screenshot(path=str(shots / "replay-dragondale-referee.png"), full_page=True)
        desk.locator("#view-as").select_option("public")
        expect(desk.locator("#viewer")).to_contain_text("public view")


def test_a_piece_removed_in_a_step_stays_as_a_ghost(stack: Stack, new_page: Any, shots: Path) -> None:
    """Legal Rite commands, a defeat whenever one is legal, until a step removes a unit: the
    replay of that step draws it faded on its cell and says so."""
    rnd = random.Random(7)
    with stack.client() as c:
        gid, tokens = new_rite(c)
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] > 1)
        head = int(c.get(f"/v1/games/{gid}").json()["seq"])
        found: dict[str, Any] | None = None
        for _ in range(200):
            seat = c.get(f"/v1/games/{gid}/view", params={"at": head}).json()["prompt"]["seats"][0]
            cmds = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[seat])).json()["commands"]
            pick = [x for x in cmds if x["type"] == "rite.defeat"] or [x for x in cmds if x["type"] in ("rite.move", "rite.summon")] or cmds
            chosen = rnd.choice(pick)
            r = command(c, gid, tokens[seat], chosen["type"], chosen["args"], expect=head)
            assert r.status_code == 200, r.text
            head = int(r.json()["seq"][1])
            last = c.get(f"/v1/games/{gid}/replay").json()
            if last["changes"]["removed"]:
                found = last
                break
        assert found is not None, "no unit removed in 200 commands"
    gone = found["changes"]["removed"][0]
    page = new_page(1280, 900)
    page.goto(f"{stack.url}/games/{gid}/replay?at={found['step']}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(found["step"]))
    expect(cell(page, gone["cell"]).locator(".piece.ghost")).to_have_count(1)
    assert "marked" in str(cell(page, gone["cell"]).get_attribute("class"))
    expect(page.locator("#step-changes")).to_contain_text(f"removed from {gone['cell']}")
    page.locator("#board").screenshot(path=str(shots / "replay-rite-ghost.png"))


def _play_until(c: Any, gid: str, tokens: list[str], found: Any, seed: int, limit: int = 150) -> dict[str, Any]:
    """Random legal commands until the newest replay step, as seat 0 sees it, is one `found`
    accepts: that step."""
    rnd = random.Random(seed)
    wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] > 1)
    head = int(c.get(f"/v1/games/{gid}").json()["seq"])
    for _ in range(limit):
        seat = c.get(f"/v1/games/{gid}/view", params={"at": head}).json()["prompt"]["seats"][0]
        chosen = rnd.choice(c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[seat])).json()["commands"])
        r = command(c, gid, tokens[seat], chosen["type"], chosen["args"], expect=head)
        assert r.status_code == 200, r.text
        head = int(r.json()["seq"][1])
        last: dict[str, Any] = c.get(f"/v1/games/{gid}/replay", headers=bearer(tokens[0])).json()
        if found(last):
            return last
    raise AssertionError(f"no such step in {limit} commands")


def test_what_changed_reads_in_each_games_own_words(stack: Stack, new_page: Any, shots: Path) -> None:
    """The list of what changed names things as the board does: Dragon Dale's territories and
    units by name (not `mountain2`, `celts:hidden`), a Factions Terrain Tile laid in set-up as the
    terrain it put under each space; the page's heading names the game, not its code."""
    with stack.client() as c:
        games = {}
        for game in ("factions", "dragondale"):
            r = c.post("/v1/games", json={"game": game, "seats": ["ann", "bob"], "options": {}})
            assert r.status_code == 201, r.text
            games[game] = (r.json()["id"], [s["token"] for s in r.json()["seats"]])
        fid, ftok = games["factions"]
        laid = _play_until(c, fid, ftok, lambda s: bool(s["changes"]["terrain"]), seed=1)
        did, dtok = games["dragondale"]
        moved = _play_until(c, did, dtok, lambda s: bool(s["changes"]["moved"]), seed=2)
    page = new_page(1280, 900)
    page.goto(f"{stack.url}/games/{fid}/replay?at={laid['step']}#token={ftok[0]}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(laid["step"]))
    expect(page.locator("#title")).to_have_text(f"Replay · Factions: Battlegrounds · {fid}")
    spaces = [t["cell"] for t in laid["changes"]["terrain"]]
    items = page.locator("#step-changes li.rp-terrain")
    expect(items).to_have_count(len(spaces))
    for i, space in enumerate(spaces):
        expect(items.nth(i)).to_have_text(re.compile(rf"^{space}: No tile yet → (Water|Island|Plains)$"))
        assert "marked" in str(cell(page, space).get_attribute("class"))
    page.screenshot(path=str(shots / "replay-factions-terrain.png"), full_page=True)

    page.goto(f"{stack.url}/games/{did}/replay?at={moved['step']}#token={dtok[0]}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(moved["step"]))
    expect(page.locator("#title")).to_have_text(f"Replay · Dragon Dale · {did}")
    text = page.locator("#step-changes li.rp-moved").first.text_content() or ""
    m = moved["changes"]["moved"][0]
    assert m["from"] not in text.split() and m["to"] not in text.split() and ":" not in text, text
    assert re.search(r"(Vikings|Celts) .+ moved .+ → .+", text), text
    page.screenshot(path=str(shots / "replay-dragondale-moved.png"), full_page=True)
    page.goto(f"{stack.url}/games/{did}#token={dtok[0]}")
    # The board names the game as players call it (the view's headline, else the type and seats).
    expect(page.locator("#title")).to_contain_text("Dragon Dale")
    expect(page.locator("#title")).not_to_contain_text(did)


# How far below the board's middle a seat's home cells are drawn (the skin's `home`), in the SVG's
# units: positive when they are in its lower half, where a player's own side is.
HOME_BELOW_MIDDLE_JS = """
async ([gid, game, seat]) => {
  const view = await (await fetch(`/v1/games/${gid}/view`)).json();
  const centre = (s) => { const b = s.getBBox(); return b.y + b.height / 2; };
  const ys = [...document.querySelectorAll('#board svg.board g.cell .cell-shape')].map(centre);
  const mid = (Math.min(...ys) + Math.max(...ys)) / 2;
  const { skins } = await import('/static/skins.js');
  const mine = skins[game].home(view, seat)
    .map((id) => document.querySelector(`#board svg.board g.cell[data-id="${CSS.escape(String(id))}"] .cell-shape`))
    .filter(Boolean).map(centre);
  return mine.length ? mine.reduce((a, y) => a + y, 0) / mine.length - mid : null;
}
"""


@pytest.mark.parametrize("game", ["rite", "factions", "dragondale"])
def test_a_seat_replays_its_game_facing_its_own_side(stack: Stack, new_page: Any, shots: Path, game: str) -> None:
    """The board page turns the board so that the viewer's side is at the bottom; a seat's
    replay, as that seat, now turns it the same way (it was drawn as the spectators see it, so a
    player stepping through their own game saw the board upside down). The public replay keeps
    the board as it is."""
    g = create(stack, game)
    gid = g["id"]
    public = new_page(1280, 900)
    public.goto(f"{stack.url}/games/{gid}/replay")
    expect(public.locator("#board")).to_have_attribute("data-skin", "ok")
    unturned = {seat: public.evaluate(HOME_BELOW_MIDDLE_JS, [gid, game, seat]) for seat in (0, 1)}
    assert None not in unturned.values() and min(unturned.values()) < 0, unturned  # one side is on top
    for seat in (0, 1):
        board = new_page(1280, 900)
        board.goto(f"{stack.url}/games/{gid}#token={g['seats'][seat]['token']}")
        expect(board.locator("#board")).to_have_attribute("data-skin", "ok")
        assert board.evaluate(HOME_BELOW_MIDDLE_JS, [gid, game, seat]) > 0
        replay = new_page(390, 844)
        replay.goto(f"{stack.url}/games/{gid}/replay#token={g['seats'][seat]['token']}")
        expect(replay.locator("#viewer")).to_contain_text(f"(seat {seat}) sees it")
        expect(replay.locator("#board")).to_have_attribute("data-skin", "ok")
        assert replay.evaluate(HOME_BELOW_MIDDLE_JS, [gid, game, seat]) > 0, (game, seat)
        replay.locator("#board").screenshot(path=str(shots / f"replay-{game}-seat{seat}-facing.png"))
