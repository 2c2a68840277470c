"""A game's RULINGS.md as a web page, each heading with the id GitHub gives it, so a page can link
to one ruling's section (`/rules/factions/rulings#what-is-invented`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from markdown_it import MarkdownIt

import rules
from service.api.layout import render

_TITLES = {"rite": "Rite", "factions": "Factions: Battlegrounds", "dragondale": "Dragon Dale"}



def slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def rulings_html(game: str) -> str:
    """The page of `game`'s RULINGS.md (raw HTML in the file is shown as text, never run)."""
    md = MarkdownIt("commonmark", {"html": False})
    source = (Path(rules.__file__).parent / game / "RULINGS.md").read_text()
    tokens = md.parse(source)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            tok.attrSet("id", slug(tokens[i + 1].content))
    title = _TITLES.get(game, game)
    front = json.dumps({"title": f"{title} — rulings — boardlog", "nav": [["Rules reference", f"/rules/{game}"]]})
    return render(f"<!--page {front} -->\n<main id=main class=rules-ref>" + md.renderer.render(tokens, md.options, {}) + "</main>\n")
