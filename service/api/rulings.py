"""A game's RULINGS.md as a web page, each heading with the id GitHub gives it, so a page can link
to one ruling's section (`/rules/factions/rulings#what-is-invented`)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from markdown_it import MarkdownIt

import rules

_TITLES = {"rite": "Rite", "factions": "Factions: Battlegrounds", "dragondale": "Dragon Dale"}
_HEAD = (
    "<!doctype html><html lang=en><head><meta charset=utf-8>"
    "<meta name=viewport content='width=device-width, initial-scale=1'><title>{title} — rulings — boardlog</title>"
    "<link rel=icon href='data:,'><link rel=stylesheet href=/static/style.css></head><body>"
    "<header class=top><a class=brand href=/>boardlog</a><nav aria-label=Site><a href=/>Lobby</a>"
    "<a href=/rules/{game}>Rules reference</a></nav></header><main id=main class=rules-ref>"
)


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
    title = html.escape(_TITLES.get(game, game))
    return _HEAD.format(title=title, game=game) + md.renderer.render(tokens, md.options, {}) + "</main></body></html>"
