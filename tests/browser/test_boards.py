"""The three games' board pages in headless chromium, played by clicking as players would.

One page session per game and seat: seat 0 at desktop size plays on the board itself (clicking
highlighted cells and set-up spots, then a choice), seat 1 at phone size (390x844) with the
action bar's buttons. Along the way the test checks, per game: at 390x844 no sideways scroll, no
text under 11 px and the first legal command on screen without scrolling; the first command
within 6 Tab presses; Send disabled while it is not the viewer's turn; the last opponent move's
cells marked; one move-list entry per command with its sentence; and, for Rite, a unit the
volcano removed drawn as a ghost. Screenshots at both sizes go to /tmp/boardlog-shots.
"""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,  # one stack for the module's tests, each on games of its own
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]

MOVES_PER_SEAT = 10
PHONE = (390, 844)

# Every text node on screen with its drawn size in px: an SVG text's font size times the
# scale it is drawn at, an HTML element's computed font size. Closed <details>, hidden parts
# and <title> tooltips take no room and are skipped.
SMALL_TEXT_JS = """
() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const t = walker.currentNode;
    if (!t.textContent.trim()) continue;
    const e = t.parentElement;
    if (!e || e.closest('title')) continue;
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    let px = parseFloat(cs.fontSize);
    if (e instanceof SVGElement) {
      const m = e.getScreenCTM();
      px = px * Math.hypot(m.a, m.b);
    }
    if (px < 10.99) out.push(`${t.textContent.trim().slice(0, 30)} (${px.toFixed(1)} px)`);
  }
  return out;
}
"""

# The first choice of the action bar is on screen and nothing covers its centre.
FIRST_COMMAND_VISIBLE_JS = """
() => {
  const b = document.querySelector('#commands button');
  if (!b) return 'no command button';
  const r = b.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) return `off screen: ${JSON.stringify(r)}`;
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return at && (at === b || b.contains(at)) ? 'ok' : `covered by ${at && at.outerHTML.slice(0, 80)}`;
}
"""

# On a phone the move alone sticks over the board: the panels beside it (at the table) follow in
# the page's flow, and at least half the screen is left to the board.
BOARD_LEFT_IN_VIEW_JS = """
() => {
  const bar = document.getElementById('controls').getBoundingClientRect();
  const table = document.getElementById('conduct').getBoundingClientRect();
  const board = document.getElementById('board').getBoundingClientRect();
  if (table.top < innerHeight) return `"At the table" is on the first screen, at ${table.top}`;
  if (bar.height > innerHeight / 2) return `the move bar takes ${bar.height} px of ${innerHeight}`;
  if (board.top >= bar.top) return `the board starts under the bar (${board.top} >= ${bar.top})`;
  return 'ok';
}
"""


def create(stack: Stack, game: str, seats: int = 2) -> dict[str, Any]:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": game, "seats": ["ann", "bob", "cy", "di", "ed"][:seats], "options": {}})
        assert r.status_code == 201, r.text
        out: dict[str, Any] = r.json()
        wait_for(lambda: c.get(f"/v1/games/{out['id']}").status_code == 200 and c.get(f"/v1/games/{out['id']}").json()["seq"] > 1)
    return out


def summary(c: httpx.Client, gid: str) -> dict[str, Any]:
    out: dict[str, Any] = c.get(f"/v1/games/{gid}").json()
    return out


def auth(game: dict[str, Any], seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {game['seats'][seat]['token']}"}


def open_seat(new_page: Any, stack: Stack, game: dict[str, Any], seat: int, size: tuple[int, int]) -> Any:
    page = new_page(*size)
    page.goto(f"{stack.url}/games/{game['id']}#token={game['seats'][seat]['token']}")
    expect(page.locator("#your-seat")).to_contain_text(f"seat {seat}")
    expect(page.locator("svg.board")).to_be_visible()
    return page


def wait_turn(page: Any, seq: int) -> None:
    expect(page.locator("#seq")).to_have_text(str(seq), timeout=15_000)
    expect(page.locator("#prompt-line")).to_contain_text("Your turn")
    expect(page.locator("#commands button").first).to_be_enabled()


def click_one_move(page: Any, on_board: bool, rng: random.Random) -> str:
    """Build one command by clicking: targets (board cells, spots, or the bar's start buttons),
    then one of the choices; returns the notation of the choice clicked."""
    for _ in range(12):
        targets = page.locator("#board g.target") if on_board else page.locator("#commands button.pick")
        choices = page.locator("#commands button.cmd")
        nt, nc = targets.count(), choices.count()
        if nt and (not nc or rng.random() < 0.6):
            targets.nth(rng.randrange(nt)).click()
            expect(page.locator("#selection")).to_be_visible()
            continue
        assert nc, "neither a target nor a choice to click"
        button = choices.nth(rng.randrange(nc))
        text = str(button.get_attribute("data-text"))
        button.click()
        return text
    raise AssertionError("no command completed after 12 clicks")


def check_phone(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    small = page.evaluate(SMALL_TEXT_JS)
    assert not small, f"text under 11 px: {small[:10]}"


def marked_cells(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("#board g.cell.marked", "els => els.map(e => e.dataset.id)"))


@pytest.mark.parametrize("game_name", ["rite", "factions", "dragondale"])
def test_both_seats_play_by_clicking(stack: Stack, new_page: Any, shots: Path, game_name: str) -> None:
    game = create(stack, game_name)
    gid = game["id"]
    rng = random.Random(f"{game_name}-clicks")
    with stack.client() as c:
        s = summary(c, gid)
        first = s["prompt"]["seats"][0]
        # The seat to move, on a fresh page: Tab from the top reaches its first command in 6 (the
        # skip link, brand, Lobby, Sign in, the seat link's sign-in hint, then the command).
        keys = new_page(1280, 900)
        keys.goto(f"{stack.url}/games/{gid}#token={game['seats'][first]['token']}")
        wait_turn(keys, s["seq"])
        keys.locator("body").focus()
        reached = 0
        for n in range(1, 7):
            keys.keyboard.press("Tab")
            if keys.evaluate("document.activeElement === document.querySelector('#commands button')"):
                reached = n
                break
        assert reached, "the first command is not reached within 6 Tab presses"
        keys.context.close()

        desk = open_seat(new_page, stack, game, 0, (1280, 900))
        phone = open_seat(new_page, stack, game, 1, PHONE)
        pages = {0: desk, 1: phone}
        phone_checked = False
        marks_checked = 0
        played = {0: 0, 1: 0}
        for _ in range(70):
            if min(played.values()) >= MOVES_PER_SEAT:
                break
            s = summary(c, gid)
            assert s["status"] == "active", s
            seat = s["prompt"]["seats"][0]
            other = 1 - seat
            page = pages[seat]
            wait_turn(page, s["seq"])
            expect(pages[other].locator("#seq")).to_have_text(str(s["seq"]), timeout=15_000)
            if other not in s["prompt"]["seats"]:
                expect(pages[other].locator("#send-text")).to_be_disabled()
                if other == 1:  # the phone, waiting: its bar over the board is the prompt line alone
                    expect(phone.locator("#all-box")).to_be_hidden()
                    expect(phone.locator("#commands")).to_have_text("")
                    bar, msg = phone.locator("#controls").bounding_box(), phone.locator("#cmd-msg").bounding_box()
                    assert bar is not None and msg is not None  # the confirmation of a move goes after 5 s
                    assert bar["height"] - msg["height"] < 0.2 * PHONE[1], (bar, msg)
            if seat == 1 and not phone_checked:
                phone.evaluate("window.scrollTo(0, 0)")
                check_phone(phone)
                assert phone.evaluate(FIRST_COMMAND_VISIBLE_JS) == "ok"
                assert phone.evaluate(BOARD_LEFT_IN_VIEW_JS) == "ok"
                assert phone.evaluate(TEXT_OVER_TEXT_JS) == []
                assert phone.evaluate(TOKENS_OVER_TEXT_JS) == []
                phone.screenshot(path=str(shots / f"board-{game_name}-phone.png"))
                phone_checked = True
            # The game's own drawing (board-<game>.js) drew this board, not the plain fallback.
            expect(page.locator("#board")).to_have_attribute("data-skin", "ok")
            click_one_move(page, on_board=seat == 0, rng=rng)
            before = s["seq"]
            wait_for(lambda before=before: summary(c, gid)["seq"] > before, timeout=15)
            played[seat] += 1
            # The other seat's page: the cells that move touched are marked.
            moves = c.get(f"/v1/games/{gid}/moves?limit=20", headers=auth(game, other)).json()["entries"]
            mine = [m for m in moves if m["seat"] == seat]
            head = summary(c, gid)["seq"]
            expect(pages[other].locator("#seq")).to_have_text(str(head), timeout=15_000)
            if mine and mine[-1]["cells"] and all(m["seat"] != other for m in moves[moves.index(mine[-1]):]):
                want = set(mine[-1]["cells"])
                board_ids = set(pages[other].eval_on_selector_all("#board g.cell", "els => els.map(e => e.dataset.id)"))
                if want & board_ids:
                    shown = want & board_ids
                    wait_for(lambda p=pages[other], shown=shown: shown <= marked_cells(p), timeout=10)
                    marks_checked += 1
        assert min(played.values()) >= MOVES_PER_SEAT, played
        assert phone_checked
        assert marks_checked, "no move touched a cell: the last move's mark was never checked"

        # The move list: one entry per accepted command, each with its sentence, shown on the page.
        entries = c.get(f"/v1/games/{gid}/moves?limit=500", headers=auth(game, 0)).json()["entries"]
        commands = [m for m in entries if m.get("seat") is not None]
        accepted = [e for e in c.get(f"/v1/games/{gid}/events", headers=auth(game, 0)).json()["events"]
                    if e["type"] == "boardlog.CommandAccepted"]
        assert len(commands) == len(accepted) >= 2 * MOVES_PER_SEAT
        assert all(m["text"] for m in commands)
        expect(desk.locator("#moves")).to_contain_text(commands[-1]["text"][:40])

        desk.screenshot(path=str(shots / f"board-{game_name}-desktop.png"), full_page=True)
        phone.screenshot(path=str(shots / f"board-{game_name}-phone-end.png"))
        check_phone(phone)
        # The receipts and "forget my seat" follow the move's bar in the page, outside it.
        for part in ("#receipts-line", "#leave"):
            phone.locator(part).scroll_into_view_if_needed()
            expect(phone.locator(part)).to_be_visible()
            assert phone.locator(f"#controls {part}").count() == 0


def test_a_unit_the_volcano_removed_shows_as_a_ghost(stack: Stack, new_page: Any, shots: Path) -> None:
    """Rite: units are summoned, then both seats pass until an end-of-round volcano roll removes a
    unit; the page of a seat opened just before that round ended draws it faded where it stood."""
    game = create(stack, "rite")
    gid = game["id"]
    rng = random.Random("volcano")
    with stack.client() as c:
        for _ in range(200):
            s = summary(c, gid)
            seat = s["prompt"]["seats"][0]
            h = auth(game, seat)
            legal = c.get(f"/v1/games/{gid}/legal", headers=h).json()
            view = c.get(f"/v1/games/{gid}/view", headers=h).json()["board"]
            cmds = legal["commands"]
            summons = [x for x in cmds if x["type"] == "rite.summon"]
            passes = [x for x in cmds if x["type"] == "rite.pass"]
            others_passed = all(p["passed"] for p in view["players"] if p["seat"] != seat)
            page = None
            if summons and rng.random() < 0.85:
                cmd = rng.choice(summons)
            elif passes:
                cmd = passes[0]
                if others_passed and view["phase"] != "over":
                    # This pass ends the round: a fresh page of the other seat sees the board first.
                    page = open_seat(new_page, stack, game, 1 - seat, (1280, 900))
                    expect(page.locator("#seq")).to_have_text(str(s["seq"]))
            else:
                cmd = rng.choice(cmds)
            units_before = sum(1 for cell in view["board"]["cells"] for p in cell["pieces"] if isinstance(p["owner"], int))
            r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=h,
                       json={"id": str(uuid.uuid4()), "type": cmd["type"], "args": cmd["args"], "expect": legal["seq"]})
            assert r.status_code == 200, r.text
            head = r.json()["seq"][1]
            wait_for(lambda head=head: summary(c, gid)["seq"] >= head, timeout=15)
            if page is None:
                continue
            after = c.get(f"/v1/games/{gid}/view", headers=auth(game, 1 - seat)).json()["board"]
            units_after = sum(1 for cell in after["board"]["cells"] for p in cell["pieces"] if isinstance(p["owner"], int))
            if units_after < units_before:
                expect(page.locator("#seq")).to_have_text(str(summary(c, gid)["seq"]), timeout=15_000)
                ghost = page.locator("#board .piece.ghost").first
                expect(ghost).to_be_attached()
                assert "Removed since your last move" in ghost.locator("title").text_content()
                page.screenshot(path=str(shots / "board-rite-ghost.png"), full_page=True)
                return
            page.context.close()
    pytest.fail("no volcano roll removed a unit in 200 commands")


def test_the_rules_references_and_the_board_files_are_served(stack: Stack) -> None:
    with stack.client() as c:
        for game in ("rite", "factions", "dragondale"):
            r = c.get(f"/rules/{game}")
            assert r.status_code == 200 and "rules reference" in r.text
            js = c.get(f"/static/board-{game}.js")
            assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
            assert "export const skin = {" in js.text
        assert c.get("/rules/chess").json()["error"]["code"] == "not_found"
        tribes = c.get("/static/content/dragondale/tribes.json")
        assert tribes.status_code == 200 and "vikings" in tribes.json()["tribes"]
        # Rite's words on the board are its content file, the same the move descriptions read.
        from rules.rite.describe import unit_name

        texts = c.get("/static/content/rite/texts.json").json()
        assert texts["units"]["lightbringer"]["name"] == unit_name("lightbringer") == "Light Bringer"
        assert c.get("/static/content/rite/factions.json").json()["factions"]["humans"]["objective"] == "shrine"
        assert "Light Bringer" not in c.get("/static/board-rite.js").text  # no content left in the script
        from rules.dragondale.describe import territory

        kinds = c.get("/static/content/dragondale/territories.json").json()["kinds"]
        assert f"{kinds['marsh']['name']} 2" == territory("marsh2") == "Marshland 2"
        assert "Marshland" not in c.get("/static/board-dragondale.js").text
        terrain = c.get("/static/content/factions/terrain.json").json()
        assert terrain["terrain"]["W"]["name"] == "Water" and "Water" not in c.get("/static/board-factions.js").text
        for bad in ("/static/content/rite/maps.json", "/static/content/dragondale/..%2Fgame.py", "/static/content/x/tribes.json"):
            assert c.get(bad).status_code == 404, bad
        board = c.get(f"/games/{create(stack, 'rite')['id']}").text
        # One module is the page's script; it imports the rest (each skin through skins.js).
        assert '<script type="module" src="/static/board.js"></script>' in board
        skins = c.get("/static/skins.js").text
        assert all(f'from "./board-{game}.js"' in skins for game in ("rite", "factions", "dragondale"))


def test_a_factions_move_is_built_space_by_space_with_undo(stack: Stack, new_page: Any, shots: Path) -> None:
    """A unit with 2 Movement: the player clicks its first space, undoes, clicks it again and a
    second space, and sends the move: both steps land, in order, and the unit stands on the
    second space."""
    game = create(stack, "factions")
    gid = game["id"]
    rng = random.Random("factions-path")
    with stack.client() as c:
        # Set-up and recruiting by the API (the bot's choices), until a unit may step twice.
        seat, chain, head = None, None, 0
        for i in range(400):
            r = c.get(f"/v1/games/{gid}", params={"min_seq": head} if head else {})  # read my own write
            assert r.status_code == 200, r.text
            s = r.json()
            seat = s["prompt"]["seats"][0]
            legal = c.get(f"/v1/games/{gid}/legal", headers=auth(game, seat)).json()
            chain = next((x for x in legal["commands"] if x["type"] == "factions.step" and x.get("then")), None)
            if chain:
                break
            cmds = legal["commands"]
            # Recruit and activate rather than end early, so that some unit soon moves.
            keen = [x for x in cmds if x["type"] in ("factions.recruit", "factions.activate")]
            pick = rng.choice(keen or cmds)
            r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=auth(game, seat),
                       json={"id": f"setup-{i}", "type": pick["type"], "args": pick["args"], "expect": legal["seq"]})
            assert r.status_code == 200, r.text
            head = r.json()["seq"][1]
        assert chain is not None and seat is not None, "no unit got two steps in 400 commands"
        first, second = chain["args"]["to"], chain["then"][0]["args"]["to"]
        start = summary(c, gid)["seq"]

        page = new_page(1280, 900)
        page.goto(f"{stack.url}/games/{gid}#token={game['seats'][seat]['token']}")
        wait_turn(page, start)
        page.locator(f'#board g.target[data-id="{first}"]').click()
        expect(page.locator("#sel-path")).to_contain_text(first)
        page.locator("#sel-undo").click()
        expect(page.locator("#selection")).to_be_hidden()
        page.locator(f'#board g.target[data-id="{first}"]').click()
        page.locator(f'#board g.target[data-id="{second}"]').click()
        expect(page.locator("#sel-path")).to_contain_text(f"{first} → {second}")
        page.screenshot(path=str(shots / "board-factions-path.png"))
        page.locator("#commands button.cmd", has_text=f"step {second}").first.click()
        expect(page.locator("#cmd-msg")).to_contain_text("(2 of 2)", timeout=15_000)
        wait_for(lambda: len([e for e in c.get(f"/v1/games/{gid}/events", params={"from": start + 1},
                                               headers=auth(game, seat)).json()["events"]
                              if e["type"] == "factions.UnitMoved"]) == 2, timeout=15)
        events = c.get(f"/v1/games/{gid}/events", params={"from": start + 1}, headers=auth(game, seat)).json()["events"]
        moved = [e["data"]["to"] for e in events if e["type"] == "factions.UnitMoved"]
        assert moved == [first, second]
        accepted = [e["data"]["type"] for e in events if e["type"] == "boardlog.CommandAccepted"]
        assert accepted == ["factions.step", "factions.step"]


# Cells whose piece tokens reach into their own name or id line (drawn boxes, in the SVG's units).
TOKENS_OVER_TEXT_JS = """
() => {
  const out = [];
  for (const g of document.querySelectorAll('#board svg.board g.cell')) {
    const pieces = g.querySelector('.pieces');
    if (!pieces || !pieces.childElementCount) continue;
    const p = pieces.getBBox();
    for (const t of g.querySelectorAll('text.cell-label, text.cell-id')) {
      const b = t.getBBox();
      const over = Math.min(p.y + p.height, b.y + b.height) - Math.max(p.y, b.y);
      if (over > 1.5) out.push(`${g.dataset.id}: "${t.textContent}" under the tokens by ${over.toFixed(1)}`);
    }
  }
  return out;
}
"""


# A cell's name drawn over its id line (a two-line "Gold Mine" raised into "c7 ◇" on a phone).
TEXT_OVER_TEXT_JS = """
() => {
  const out = [];
  for (const g of document.querySelectorAll('#board svg.board g.cell')) {
    const id = g.querySelector('text.cell-id');
    if (!id) continue;
    const a = id.getBBox();
    for (const t of g.querySelectorAll('text.cell-label')) {
      const b = t.getBBox();
      const over = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      if (over > 1.5) out.push(`${g.dataset.id}: "${t.textContent}" over "${id.textContent}" by ${over.toFixed(1)}`);
    }
  }
  return out;
}
"""


@pytest.mark.parametrize("seats", [2, 4])
def test_dragon_dale_tokens_leave_each_territorys_name_readable(stack: Stack, new_page: Any, shots: Path,
                                                               seats: int) -> None:
    """A camp holds a tribe's six or seven units at the start: its tokens stay between its id
    and its name (in the rows that fit, the rest in a "+n" token) instead of over them. On a
    phone, where an area has no id line and its name two lines at 11 px, every territory's tokens
    (a tribe's, a tree, a rune stone, the Dragon) stay above its name."""
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "dragondale", "seats": ["ann", "bob", "cy", "di"][:seats], "options": {}})
        assert r.status_code == 201, r.text
        game = r.json()
        wait_for(lambda: c.get(f"/v1/games/{game['id']}").json()["seq"] > 1)
    page = open_seat(new_page, stack, game, 0, (1280, 900))
    expect(page.locator('#board svg.board g.cell[data-id^="camp"] .piece').first).to_be_visible()
    assert page.evaluate(TOKENS_OVER_TEXT_JS) == []
    assert page.evaluate(OUTSIDE_CELL_JS) == []  # a camp's wide token and its "+n" stay inside it
    assert page.evaluate(TEXT_OVER_TEXT_JS) == []
    page.locator("#board").screenshot(path=str(shots / f"board-dragondale-{seats}-camps.png"))
    phone = open_seat(new_page, stack, game, 1, PHONE)
    expect(phone.locator('#board svg.board g.cell[data-id^="camp"] .piece').first).to_be_visible()
    assert phone.locator("#board svg.board g.cell .pieces .piece").count() >= seats + 3  # camps, trees, stones
    assert phone.evaluate(TOKENS_OVER_TEXT_JS) == []
    assert phone.evaluate(OUTSIDE_CELL_JS) == []
    assert phone.evaluate(TEXT_OVER_TEXT_JS) == []
    phone.locator("#board").screenshot(path=str(shots / f"board-dragondale-{seats}-camps-phone.png"))


# The crowded-cell checks that drew synthetic tokens (1-9 in every cell) through the page are
# tests/js/token-layout.test.js now: the layout is a pure module, checked for 1-12 tokens in every
# cell shape at desktop and phone sizes by `node --test`. The real boards above and below keep
# the end-to-end checks of what chromium draws.


# Tokens and names of a cell drawn outside its own shape (drawn boxes, in the SVG's units). A
# circle's box has corners the circle does not: there a token counts by its rounded corners,
# each a circle of the token's corner radius that must lie inside the cell's.
OUTSIDE_CELL_JS = """
() => {
  const out = [];
  for (const g of document.querySelectorAll('#board svg.board g.cell')) {
    const shape = g.querySelector('.cell-shape');
    const s = shape.getBBox();
    for (const e of g.querySelectorAll('.pieces .piece rect, text.cell-label')) {
      const b = e.getBBox();
      const what = `${g.dataset.id}: "${e.parentElement.dataset.label || e.textContent}"`;
      if (b.x < s.x - 0.5 || b.y < s.y - 0.5 || b.x + b.width > s.x + s.width + 0.5 || b.y + b.height > s.y + s.height + 0.5) {
        out.push(`${what} outside the cell`);
        continue;
      }
      if (shape.tagName !== 'circle' || e.tagName !== 'rect') continue;
      const cx = +shape.getAttribute('cx'), cy = +shape.getAttribute('cy'), R = +shape.getAttribute('r');
      const rx = Math.min(+e.getAttribute('rx') || 0, b.width / 2, b.height / 2);
      const corners = [[b.x + rx, b.y + rx], [b.x + b.width - rx, b.y + rx], [b.x + rx, b.y + b.height - rx], [b.x + b.width - rx, b.y + b.height - rx]];
      const by = Math.max(...corners.map(([x, y]) => Math.hypot(x - cx, y - cy) + rx - R));
      if (by > 0.5) out.push(`${what} outside the circle by ${by.toFixed(1)}`);
    }
  }
  return out;
}
"""


@pytest.mark.parametrize("seats", [2, 4])
def test_a_factions_base_camp_shows_its_recruits_inside_it(stack: Stack, new_page: Any, shots: Path, seats: int) -> None:
    """Recruits wait in their Base Camp: the camp is drawn along its side of the board, each
    recruit's token inside it and whole (one square held a single token, and its "+n" hung
    over the camp's edge), and the camp's name inside it too (four players: camps down the
    west and east sides)."""
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "factions", "seats": ["ann", "bob", "cy", "di"][:seats], "options": {}})
        assert r.status_code == 201, r.text
        game = r.json()
        wait_for(lambda: c.get(f"/v1/games/{game['id']}").json()["seq"] > 1)
    gid = game["id"]
    rng = random.Random(f"factions-camp-{seats}")
    in_camp: dict[int, int] = {}
    with stack.client() as c:
        head = 0
        for i in range(300):
            s = c.get(f"/v1/games/{gid}", params={"min_seq": head} if head else {}).json()
            units = c.get(f"/v1/games/{gid}/view").json()["board"]["units"] or []
            in_camp = {seat: sum(1 for u in units if u["space"] == "base" and u["seat"] == seat) for seat in range(seats)}
            if max(in_camp.values()) >= 3:
                break
            seat = s["prompt"]["seats"][0]
            legal = c.get(f"/v1/games/{gid}/legal", headers=auth(game, seat)).json()
            # Recruit and keep recruits at home: no activation, so they stay in camp.
            cmds = [x for x in legal["commands"] if x["type"] != "factions.activate"] or legal["commands"]
            keen = [x for x in cmds if x["type"] == "factions.recruit"]
            pick = rng.choice(keen or cmds)
            r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=auth(game, seat),
                       json={"id": f"camp-{i}", "type": pick["type"], "args": pick["args"], "expect": legal["seq"]})
            assert r.status_code == 200, r.text
            head = r.json()["seq"][1]
    full = max(in_camp, key=lambda k: in_camp[k])
    assert in_camp[full] >= 3, in_camp
    for size in ((1280, 900), PHONE):
        page = open_seat(new_page, stack, game, 0, size)
        camp = page.locator(f'#board svg.board g.cell[data-id="camp{full}"]')
        expect(camp.locator(".piece").first).to_be_visible()
        assert camp.locator(".piece:not(.more)").count() == in_camp[full]  # every recruit drawn, none in "+n"
        page.locator("#board").screenshot(path=str(shots / f"board-factions-camp-{seats}-{size[0]}.png"))
        assert page.evaluate(OUTSIDE_CELL_JS) == []
        assert page.evaluate(TOKENS_OVER_TEXT_JS) == []
        assert page.evaluate(TEXT_OVER_TEXT_JS) == []
