"""Issue #38 item 9: where players choose (the lobby's Factions options, the board page, the rules
reference), one sentence says which content this project invents, linking to the section of
RULINGS.md that says which, served as a page."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import catalog
from rules.factions.content import INVENTED, INVENTED_LINK
from service.api.rulings import rulings_html, slug
from service.usecases.gametypes import game_types
from tests.conftest import Stack

PAGES = Path(__file__).parents[2] / "service" / "pages"
RULINGS = Path(__file__).parents[2] / "rules" / "factions" / "RULINGS.md"


def test_the_sentence_is_one_sentence_naming_each_invention() -> None:
    assert "." not in INVENTED.replace("3- or 4-player", "")
    for what in ("15 unit stat lines", "nine factions", "6 of the 7 spells", "3- and 4-player boards",
                 "Resource Center pairs"):
        assert what in INVENTED


def test_the_lobby_board_and_rules_pages_say_it_with_the_link() -> None:
    catalog.load()
    option = next(o for t in game_types() if t["game"] == "factions" for o in t["options"] if o["key"] == "factions")
    assert option["hint"] == INVENTED and option["link"] == INVENTED_LINK
    html = (PAGES / "rules-factions.html").read_text()
    assert f'{INVENTED} (<a href="{INVENTED_LINK["href"]}">{INVENTED_LINK["text"]}</a>).' in html
    js = (PAGES / "board-factions.js").read_text()
    assert f'const INVENTED = "{INVENTED}";' in js and f'href: "{INVENTED_LINK["href"]}"' in js
    assert "o.link" in (PAGES / "lobby-form.js").read_text()  # the new-game form shows the link


def test_the_link_names_a_section_of_rulings_md() -> None:
    anchor = INVENTED_LINK["href"].split("#", 1)[1]
    headings = [line.lstrip("#").strip() for line in RULINGS.read_text().splitlines() if line.startswith("## ")]
    assert anchor in [slug(h) for h in headings]
    assert f'<h2 id="{anchor}">' in rulings_html("factions")


@pytest.mark.integration
def test_rulings_md_is_served_as_a_page(stack: Stack) -> None:
    with stack.client() as c:
        r = c.get("/rules/factions/rulings")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert '<h2 id="what-is-invented">' in r.text and "Rank Ties" in r.text
        assert "script" not in r.text.lower()
        page = c.get("/rules/factions")
        assert INVENTED_LINK["href"] in page.text
        missing = c.get("/rules/chess/rulings")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
