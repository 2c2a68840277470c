"""Screenshots of each game's board page, in progress with pieces on it, at desktop (1280x800)
and phone (390x844) sizes, for a person to look at before and after a change to the pages.

Slow (not in `make test`): run it by hand, naming the folder the pictures go to:
    BOARDLOG_SHOTS_DIR=/work/shots/after pytest tests/browser/test_screenshots.py -m slow
Each picture is <game>-<desktop|phone>.png (and -board.png, the board alone; -legend.png, the
legend opened), seat 0's page after a seeded random play by the API.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.browser.test_boards import auth, create, summary
from tests.conftest import Stack, wait_for

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.shared_stack,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
# Commands that put pieces on the board, chosen over the others so the picture has some.
KEEN = {"factions.recruit", "factions.activate", "factions.step", "rite.summon", "dragondale.plan"}


def play(stack: Stack, game: dict[str, Any], commands: int, rng: random.Random) -> None:
    gid = game["id"]
    with stack.client() as c:
        head = 0
        for i in range(commands):
            s = c.get(f"/v1/games/{gid}", params={"min_seq": head} if head else {}).json()
            if s["status"] != "active":
                return
            seat = s["prompt"]["seats"][0]
            legal = c.get(f"/v1/games/{gid}/legal", headers=auth(game, seat)).json()
            cmds = legal["commands"]
            keen = [x for x in cmds if x["type"] in KEEN]
            pick = rng.choice(keen if keen and rng.random() < 0.8 else cmds)
            r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=auth(game, seat),
                       json={"id": f"shot-{i}", "type": pick["type"], "args": pick["args"], "expect": legal["seq"]})
            assert r.status_code == 200, r.text
            head = r.json()["seq"][1]
        wait_for(lambda: summary(c, gid)["seq"] >= head, timeout=15)


@pytest.mark.parametrize("game_name", ["rite", "factions", "dragondale"])
def test_board_screenshots(stack: Stack, new_page: Any, game_name: str) -> None:
    out = Path(os.environ.get("BOARDLOG_SHOTS_DIR", "/tmp/boardlog-shots/pages"))
    out.mkdir(parents=True, exist_ok=True)
    game = create(stack, game_name)
    play(stack, game, 30, random.Random(f"shots-{game_name}"))
    for size_name, size in SIZES.items():
        page = new_page(*size)
        page.goto(f"{stack.url}/games/{game['id']}#token={game['seats'][0]['token']}")
        expect(page.locator("svg.board")).to_be_visible()
        expect(page.locator("#board")).to_have_attribute("data-skin", "ok")
        page.wait_for_timeout(500)  # the move list and talk fill in after the board
        page.screenshot(path=str(out / f"{game_name}-{size_name}.png"), full_page=True)
        # The board alone too: on a phone the sticky move bar covers it in the whole page's picture.
        page.locator("#board").screenshot(path=str(out / f"{game_name}-{size_name}-board.png"))
        # The legend opened: each piece's symbol with its name.
        page.locator("#legend-box > summary").click()
        page.locator("#legend-box").screenshot(path=str(out / f"{game_name}-{size_name}-legend.png"))
        page.context.close()
