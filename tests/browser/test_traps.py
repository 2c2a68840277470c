"""The traps a new player fell into on the pages (issue #40, part 5, and part 3's contrast), each
tried as that player would, in headless chromium through the real served stack, at the sizes
where they were found: a typed move's error out of sight on a phone, a comment ticked "with my
next move" never sent, a signed-in seat's replay named the public view, chat and table actions
numbered as moves, a 401 in a visitor's console, targets under 24 px and seat labels under 4.5:1.
"""

from __future__ import annotations

from typing import Any

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

PHONE, DESKTOP = (390, 844), (1280, 900)


def _game(stack: Stack, name: str = "race", seats: tuple[str, ...] = ("ann", "bob"), **options: Any) -> dict[str, Any]:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": name, "seats": list(seats), "options": options})
        assert r.status_code == 201, r.text
        game: dict[str, Any] = r.json()
        wait_for(lambda: c.get(f"/v1/games/{game['id']}").status_code == 200
                 and c.get(f"/v1/games/{game['id']}").json().get("seq", 0) > 0)
    return game


def _signed_in(stack: Stack, chromium: Any, key_holder: dict[str, str], size: tuple[int, int] = DESKTOP) -> Any:
    """A fresh context signed in by the player's sign-in link (a click confirms it)."""
    ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.set_default_timeout(10_000)
    page = ctx.new_page()
    page.goto(stack.url + key_holder["signin_url"])
    page.locator("#confirm-go").click()
    expect(page.locator("#who")).to_have_text(key_holder["name"])
    return ctx, page


# -- 1. a typed move's error where the eye is ----------------------------------------------


def test_a_typed_moves_error_shows_inside_the_phone_screen_and_is_announced(stack: Stack, new_page: Any) -> None:
    game = _game(stack, "rite")  # many legal commands: the error comes after a long fold
    page = new_page(*PHONE)
    page.goto(f"{stack.url}/games/{game['id']}#token={game['seats'][0]['token']}")
    expect(page.locator("#commands button").first).to_be_visible()
    page.locator("#all-sum").click()  # on a phone the notation box is in this fold
    page.fill("#text-command", "fly to the moon")
    page.locator("#text-command").press("Enter")
    error = page.locator("#cmd-msg .msg.error")
    expect(error).to_be_visible()
    page.wait_for_timeout(400)  # a smooth scroll ends
    box = error.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE[1], f"the error is at {box}, outside the {PHONE} screen"
    # Nothing covers it: the point at its middle is the error itself (not the bar's edge, not the board).
    covered = page.evaluate("""() => { const e = document.querySelector('#cmd-msg .msg.error'); const r = e.getBoundingClientRect();
        const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return !!at && e.contains(at); }""")
    assert covered, "the error's middle is under something else"
    # A screen reader is told: the error is inside a live region that announces at once.
    assert page.evaluate("""() => { const e = document.querySelector('#cmd-msg .msg.error');
        const r = e.closest('[role=alert], [aria-live=assertive]'); return !!r; }""")


# -- 2. a comment ticked "with my next move" goes with the move ------------------------------


def test_a_comment_ticked_with_my_next_move_goes_with_the_move_without_post(stack: Stack, new_page: Any) -> None:
    game = _game(stack)
    gid, ann, bob = game["id"], game["seats"][0]["token"], game["seats"][1]["token"]
    page = new_page()
    page.goto(f"{stack.url}/games/{gid}#token={ann}")
    expect(page.locator("#commands button").first).to_be_visible()
    page.fill("#talk-text", "good luck, bob")
    page.check("#talk-with-move")
    page.locator("#commands button").first.click()  # the move, with no press of Post
    expect(page.locator("#cmd-msg")).to_contain_text("Accepted")
    other = new_page()
    other.goto(f"{stack.url}/games/{gid}#token={bob}")
    expect(other.locator("#talk-list .talk-item")).to_contain_text(["good luck, bob"])
    expect(other.locator("#talk-list .talk-item").first).to_contain_text("with move 1")
    expect(page.locator("#talk-text")).to_have_value("")
    expect(page.locator("#talk-with-move")).not_to_be_checked()


# -- 3. the replay names a signed-in seat's view as theirs ----------------------------------


def test_a_signed_in_seats_replay_is_named_theirs_and_others_see_the_public_view(stack: Stack, chromium: Any,
                                                                                  new_page: Any) -> None:
    with stack.client() as c:
        ann, nobody = player(c, "ann"), player(c, "zed")
    game = _game(stack)
    gid = game["id"]
    with stack.client() as c:
        r = c.post(f"/v1/games/{gid}/claim", json={"token": game["seats"][0]["token"]}, headers=bearer(ann["key"]))
        assert r.status_code == 200, r.text
        assert command(c, gid, game["seats"][0]["token"]).status_code == 200
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= 3)

    def viewed(page: Any) -> tuple[str, list[Any]]:
        seats: list[Any] = []
        page.on("response", lambda r: seats.append(r.json()["viewer"]["seat"])
                if "/replay?" in r.url and r.ok else None)
        page.goto(f"{stack.url}/games/{gid}/replay")
        expect(page.locator("#viewer")).not_to_be_empty()
        page.wait_for_timeout(300)
        return page.locator("#viewer").inner_text(), seats

    ctx, page = _signed_in(stack, chromium, ann)
    try:
        said, seats = viewed(page)
        assert "public view" not in said and "ann" in said, said
        assert seats and set(seats) == {0}, seats  # the server showed ann's view: the page says so
        expect(page.locator("#view-as")).to_have_value("seat")
        page.select_option("#view-as", "public")  # and asked for the public one, it gets it
        expect(page.locator("#viewer")).to_contain_text("public view")
        page.wait_for_timeout(300)
        assert seats[-1] is None, seats
    finally:
        ctx.close()
    ctx, page = _signed_in(stack, chromium, nobody)
    try:
        said, seats = viewed(page)
        assert "public view" in said and seats and set(seats) == {None}, (said, seats)
    finally:
        ctx.close()
    said, seats = viewed(new_page())
    assert "public view" in said and seats and set(seats) == {None}, (said, seats)


# -- 4. only moves are numbered --------------------------------------------------------------


def test_only_moves_are_numbered_in_the_move_list(stack: Stack, new_page: Any) -> None:
    game = _game(stack)
    gid, ann, bob = game["id"], game["seats"][0]["token"], game["seats"][1]["token"]
    with stack.client() as c:
        assert command(c, gid, ann).status_code == 200
        r = c.post(f"/v1/games/{gid}/messages", headers=bearer(ann), json={"text": "your turn"})
        assert r.status_code == 200, r.text
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(ann),
                   json={"id": "d1", "type": "boardlog.propose", "args": {"kind": "draw"}})
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(bob),
                   json={"id": "d2", "type": "boardlog.refuse", "args": {}})
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        assert command(c, gid, bob).status_code == 200
        wait_for(lambda: len(c.get(f"/v1/games/{gid}/moves").json()["entries"]) >= 6)
    page = new_page()
    page.goto(f"{stack.url}/games/{gid}#token={ann}")
    entries = page.locator("#moves .mv-entry")
    expect(entries).to_have_count(6)  # set-up, roll, message, proposal, refusal, roll
    lines = [entries.nth(i).inner_text() for i in range(6)]
    numbers = [entries.nth(i).locator("a.mv-num").all_inner_texts() for i in range(6)]
    assert numbers == [[], ["1."], [], [], [], ["2."]], (numbers, lines)
    assert "writes" in lines[2] and "proposes a draw" in lines[3] and "refuses" in lines[4], lines
    expect(page.locator("#moves .mv-count")).to_have_text("2 moves")


# -- 5. no 401 in a visitor's console ---------------------------------------------------------


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_visitor_opening_a_seat_link_logs_no_error(stack: Stack, chromium: Any, size: tuple[int, int]) -> None:
    game = _game(stack, "rite")
    ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.set_default_timeout(10_000)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.goto(f"{stack.url}/games/{game['id']}#token={game['seats'][0]['token']}")
        expect(page.locator("#commands button").first).to_be_visible()
        page.wait_for_timeout(800)  # the header's and the offers' reads come after the page's own
        page.goto(f"{stack.url}/games/{game['id']}/replay")
        expect(page.locator("#viewer")).not_to_be_empty()
        page.wait_for_timeout(500)
        assert errors == [], errors
    finally:
        ctx.close()


# -- 6. targets of at least 24 x 24 px ------------------------------------------------------

# Every control a finger or a pointer aims at. WCAG 2.5.8 exempts a link inside a sentence (its
# size is the text's line): a link whose block (the nearest box in the text's flow, not a flex or
# grid item) holds words besides its links and controls.
SMALL_TARGETS = """() => {
  const out = [];
  const seen = (e) => { const s = getComputedStyle(e); const r = e.getBoundingClientRect();
    return s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && r.height > 0; };
  const inSentence = (a) => {
    if (!getComputedStyle(a).display.startsWith('inline')) return false;
    let b = a.parentElement;
    while (b && getComputedStyle(b).display.startsWith('inline')) b = b.parentElement;
    if (!b || !['block', 'list-item', 'table-cell'].includes(getComputedStyle(b).display)) return false;
    const words = b.cloneNode(true);
    for (const c of words.querySelectorAll('a, button, input, select, textarea, summary')) c.remove();
    return /[A-Za-z]{2}/.test(words.textContent);
  };
  for (const e of document.querySelectorAll('button, a[href], input:not([type=hidden]), select, summary, textarea, [role=button]')) {
    if (!seen(e)) continue;
    if (e.tagName === 'A' && inSentence(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width < 24 - 0.01 || r.height < 24 - 0.01)
      out.push(`${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.className ? '.' + String(e.className).replace(/ /g, '.') : ''} `
               + `"${(e.textContent || e.value || '').trim().slice(0, 30)}" ${r.width.toFixed(1)}x${r.height.toFixed(1)}`);
  }
  return out;
}"""


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_target_on_the_board_replay_and_lobby_is_at_least_24_px(stack: Stack, new_page: Any,
                                                                     size: tuple[int, int]) -> None:
    game = _game(stack, "rite")
    gid, ann = game["id"], game["seats"][0]["token"]
    with stack.client() as c:
        first = c.get(f"/v1/games/{gid}/legal", headers=bearer(ann)).json()["commands"][0]["text"]
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(ann), json={"id": "t1", "text": first})
        assert r.status_code == 200, r.text
        wait_for(lambda: len(c.get(f"/v1/games/{gid}/moves").json()["entries"]) >= 2)
    page = new_page(*size)
    small: dict[str, list[str]] = {}
    for path, ready in ((f"/games/{gid}#token={ann}", "#moves .mv-num"), (f"/games/{gid}", "#moves .mv-num"),
                        (f"/games/{gid}/replay", "#viewer:not(:empty)"), ("/", "#games tr[data-game]")):
        page.goto(stack.url + path)
        expect(page.locator(ready).first).to_be_attached()
        page.wait_for_timeout(300)
        for d in page.locator("details").all():  # the controls inside folded boxes count too
            if d.is_visible():
                d.evaluate("(e) => { e.open = true; }")
        found = page.evaluate(SMALL_TARGETS)
        if found:
            small[path.split("#")[0]] = found
    assert small == {}, "\n".join(f"{k}: {v}" for k, v in small.items())


# -- 7. seat labels meet 4.5:1 -----------------------------------------------------------------


def _luminance(hex_colour: str) -> float:
    n = int(hex_colour.lstrip("#"), 16)

    def lin(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else float(((v + 0.055) / 1.055) ** 2.4)

    return 0.2126 * lin(n >> 16 & 255) + 0.7152 * lin(n >> 8 & 255) + 0.0722 * lin(n & 255)


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two #rrggbb colours."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_contrast_function_matches_wcags_published_figures() -> None:
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast("#ffffff", "#D55E00") == pytest.approx(3.87, abs=0.01)  # the figure
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_every_seat_colours_label_meets_4_5_to_1(stack: Stack, new_page: Any) -> None:
    game = _game(stack, "dragondale", seats=("ann", "bob", "cyd", "dan"))
    page = new_page()
    page.goto(f"{stack.url}/games/{game['id']}")
    expect(page.locator("svg.board g.cell").first).to_be_attached()
    # As drawn: the page's own board redrawn by its skin with a token of each of 8 seats in every
    # cell (the board's renderBoard colours a seat's token and picks its label), each label's fill
    # read against its token's.
    drawn = page.evaluate("""async (gid) => {
        const box = document.getElementById('board'); const width = box.clientWidth;
        const view = await (await fetch(`/v1/games/${gid}/view`)).json();
        const ctx = { seat: null, names: {}, summary: null, legal: [], width, compact: false };
        const { skins } = await import('/static/skins.js');
        const { renderBoard } = await import('/static/board-render.js');
        const board = skins.dragondale.board(view, ctx).board;
        const tokens = [...Array(8).keys()].map((s) => ({ label: `S${s}`, owner: s }));
        const cells = board.cells.slice(0, 2).map((c) => ({ ...c, pieces: tokens.slice(0, 4) }))
          .concat(board.cells.slice(2, 4).map((c) => ({ ...c, pieces: tokens.slice(4) })));
        box.replaceChildren(renderBoard({ ...board, cells }, { fit: width }));
        return [...document.querySelectorAll('#board svg.board .piece:not(.more)')].filter((g) => g.dataset.owner !== '')
          .map((g) => [g.dataset.owner, g.querySelector('rect').getAttribute('fill'), g.querySelector('text').getAttribute('fill')]);
    }""", game["id"])
    assert {int(o) for o, _, _ in drawn} == set(range(8)), drawn
    low = {f"seat {o}: {fill} / {ink}": round(contrast(fill, _long(ink)), 2) for o, fill, ink in drawn
           if contrast(fill, _long(ink)) < 4.5}
    assert low == {}, f"seat tokens whose label is under 4.5:1: {low}"
    # And every seat colour, from their one definition (seats.js SEAT_COLOURS), with the label put on it.
    pairs = page.evaluate("async () => { const m = await import('/static/seats.js'); return m.SEAT_COLOURS.map((c) => [c, m.textOn(c)]); }")
    assert len(pairs) >= 8
    low = {c: round(contrast(c, _long(ink)), 2) for c, ink in pairs if contrast(c, _long(ink)) < 4.5}
    assert low == {}, f"seat colours whose label is under 4.5:1: {low}"


def _long(colour: str) -> str:
    """#rgb as #rrggbb (#rrggbb as it is)."""
    return colour if len(colour) == 7 else "#" + "".join(ch * 2 for ch in colour.lstrip("#"))
