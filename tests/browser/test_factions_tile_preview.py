"""A Factions Terrain Tile seen before it is placed (issue #38 item 10), in headless chromium.

"Choosing 'tile 1, spot 1, 0 or 180' shows no terrain." Seat by seat, at desktop size and at
phone size, the player picks a set-up spot: each tile choice holds the tile in small, and the
choice pointed at (or focused: the page focuses the first once a spot is chosen, on a phone in
the action bar) is drawn on the spot, dashed, with the terrain the rules will lay there
(rules/factions/board.py's tile_terrain). The choice clicked, the board shows that terrain.
Screenshots go to /tmp/boardlog-shots.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from rules.factions.board import space_name, tile_terrain
from rules.factions.content import FACTIONS, LAYOUTS
from tests.browser.conftest import CHROMIUM
from tests.browser.test_boards import PHONE, SMALL_TEXT_JS, auth, create, open_seat, wait_turn
from tests.conftest import Stack, wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]

PREVIEW_JS = """
() => [...document.querySelectorAll('#board svg.board g.tile-preview rect.tile-preview-cell')]
  .map((r) => [r.dataset.id, r.dataset.terrain])
"""
MINI_JS = """
(text) => {
  const b = [...document.querySelectorAll('#commands button.cmd')].find((x) => x.dataset.text === text);
  return b ? [...b.querySelectorAll('.tile-mini [data-terrain]')].map((x) => x.dataset.terrain) : null;
}
"""
# Scrolled to, the preview is on screen and clear of the move's bar (a phone's sticks to the bottom).
IN_SIGHT_JS = """
() => {
  const g = document.querySelector('#board svg.board g.tile-preview');
  if (!g) return 'no preview';
  g.scrollIntoView({ block: 'center' });
  const r = g.getBoundingClientRect(), bar = document.getElementById('controls').getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight) return `off screen: ${JSON.stringify(r)}`;
  const sticky = getComputedStyle(document.getElementById('controls')).position === 'sticky';
  return !sticky || r.bottom <= bar.top ? 'ok' : `under the bar: ${r.bottom} > ${bar.top}`;
}
"""
FILLS_JS = """
(ids) => ids.map((id) => document.querySelector(`#board g.cell[data-id="${id}"] rect.cell-shape`).getAttribute('fill'))
"""


def expected(faction: str, text: str) -> list[list[str]]:
    """[space, terrain] of each space a 'tile N spot rot' choice lays, as the rules lay it."""
    _, num, spot, rot = text.split()
    lay = LAYOUTS[2]
    laid = tile_terrain(FACTIONS[faction].tiles[int(num) - 1], int(rot), int(spot), lay)
    return [[space_name(i, lay.width), k] for i, k in laid]


def to_tiles(stack: Stack, game: dict[str, Any]) -> int:
    """Past the advantage (its first choice, by the API) to the first Terrain Tile; the seq."""
    gid = game["id"]
    with stack.client() as c:
        s = c.get(f"/v1/games/{gid}").json()
        seat = s["prompt"]["seats"][0]
        legal = c.get(f"/v1/games/{gid}/legal", headers=auth(game, seat)).json()
        first = legal["commands"][0]
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=auth(game, seat),
                   json={"id": "advantage", "type": first["type"], "args": first["args"], "expect": legal["seq"]})
        assert r.status_code == 200, r.text
        seq: int = r.json()["seq"][1]
        wait_for(lambda: c.get(f"/v1/games/{gid}", params={"min_seq": seq}).json()["prompt"]["kind"] == "tile")
    return seq


def place_one(page: Any, stack: Stack, game: dict[str, Any], seat: int, faction: str, seq: int,
              on_board: bool, shot: Path) -> int:
    """Pick a spot (on the board, or the action bar's start button), check the small tiles and
    the preview of the focused and the pointed choice, place the pointed one; the new seq."""
    wait_turn(page, seq)
    if on_board:
        page.locator("#board g.overlay.live").first.click()
    else:
        page.locator("#commands button.pick").first.click()
    expect(page.locator("#selection")).to_be_visible()
    choices = page.locator('#commands button.cmd[data-type="factions.tile"]')
    expect(choices.first).to_be_visible()
    texts = [str(t) for t in choices.evaluate_all("bs => bs.map((b) => b.dataset.text)")]
    # The page focuses the first choice: its tile is drawn on the spot at once.
    wait_for(lambda: page.evaluate(PREVIEW_JS) == expected(faction, texts[0]), timeout=10)
    # Every choice holds its tile in small: the same four terrains.
    for text in texts:
        mini = page.evaluate(MINI_JS, text)
        assert mini is not None and sorted(mini) == sorted(k for _, k in expected(faction, text)), (text, mini)
    # The spot in sight with the choices (on a phone, above the action bar over the board).
    assert page.evaluate(IN_SIGHT_JS) == "ok"
    # The choice pointed at (a turned one where there is one) is the one drawn.
    chosen = next((t for t in texts if t.endswith(" 180")), texts[-1])
    button = page.locator(f'#commands button.cmd[data-text="{chosen}"]')
    if on_board:
        button.hover()
    else:
        button.focus()
    wait_for(lambda: page.evaluate(PREVIEW_JS) == expected(faction, chosen), timeout=10)
    preview_fills = page.evaluate("""() => [...document.querySelectorAll('#board g.tile-preview rect')]
      .map((r) => r.getAttribute('fill'))""")
    page.screenshot(path=str(shot))
    small = page.evaluate(SMALL_TEXT_JS)
    assert not small, f"text under 11 px: {small[:10]}"
    button.click()
    spaces = [s for s, _ in expected(faction, chosen)]
    with stack.client() as c:
        wait_for(lambda: c.get(f"/v1/games/{game['id']}").json()["seq"] > seq, timeout=15)
        new: int = c.get(f"/v1/games/{game['id']}").json()["seq"]
        view = c.get(f"/v1/games/{game['id']}/view", params={"min_seq": new}, headers=auth(game, seat)).json()
    cells = {x["id"]: x for x in view["board"]["board"]["cells"]}
    assert [[s, cells[s]["terrain"]] for s in spaces] == expected(faction, chosen)
    # Placed, the board draws what the preview drew.
    wait_for(lambda: page.evaluate(FILLS_JS, spaces) == preview_fills, timeout=15)
    return new


def test_a_terrain_tile_choice_is_drawn_in_place_before_it_is_placed(stack: Stack, new_page: Any,
                                                                     shots: Path) -> None:
    game = create(stack, "factions")
    seq = to_tiles(stack, game)
    with stack.client() as c:
        s = c.get(f"/v1/games/{game['id']}").json()
        first = s["prompt"]["seats"][0]
        view = c.get(f"/v1/games/{game['id']}/view", headers=auth(game, first)).json()
    factions = [p["faction"] for p in view["board"]["players"]]
    desk = open_seat(new_page, stack, game, first, (1280, 900))
    phone = open_seat(new_page, stack, game, 1 - first, PHONE)
    seq = place_one(desk, stack, game, first, factions[first], seq, True, shots / "board-factions-tile-preview-desktop.png")
    seq = place_one(phone, stack, game, 1 - first, factions[1 - first], seq, False,
                    shots / "board-factions-tile-preview-phone.png")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    # The preview goes with the choices: none once the tile is down and it is the other's turn.
    expect(phone.locator("#board g.tile-preview")).to_have_count(0)
