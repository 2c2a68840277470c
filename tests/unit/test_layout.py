"""The one layout every HTML page is served in (service/api/layout.py): each page file is its body
with one opening comment, and the head, skip link, header and navigation come from layout.html."""

from __future__ import annotations

import re

import pytest

from service.api.layout import PAGES, page_html, render
from service.api.rulings import rulings_html

PAGE_FILES = sorted(p.name for p in PAGES.glob("*.html") if p.name != "layout.html")


@pytest.mark.parametrize("name", PAGE_FILES)
def test_every_page_is_its_body_in_the_one_layout(name: str) -> None:
    source = (PAGES / name).read_text()
    assert source.startswith("<!--page {"), f"{name} is not a body for the layout"
    assert "<header" not in source and "<head>" not in source  # the layout's, not the page's
    page = page_html(name)
    assert page.startswith("<!doctype html>") and page.count('<header class="top">') == 1
    assert '<nav aria-label="Site"><a href="/">Lobby</a>' in page
    assert '<link rel="stylesheet" href="/static/style.css">' in page
    # Scripts are the page's modules from /static, none inline and none classic.
    for tag in re.findall(r"<script[^>]*>", page):
        assert re.fullmatch(r'<script type="module" src="/static/[a-z0-9-]+\.js">', tag), tag


def test_a_page_says_what_its_layout_holds_and_the_values_are_escaped() -> None:
    page = render('<!--page {"title": "a <b> & c", "nav": [["Me & you", "/me?x=1&y=2", "me-link"]], '
                  '"live": true, "scripts": ["board.js"]} -->\n<main id="main">hi</main>\n')
    assert "<title>a &lt;b&gt; &amp; c</title>" in page
    assert '<a id="me-link" href="/me?x=1&amp;y=2">Me &amp; you</a>' in page
    assert 'id="live"' in page and '<script type="module" src="/static/board.js"></script>' in page
    assert '<main id="main">hi</main>' in page


def test_the_rulings_page_is_in_the_layout_too() -> None:
    page = rulings_html("rite")
    assert page.count('<header class="top">') == 1
    assert "<title>Rite — rulings — boardlog</title>" in page
    assert '<a href="/rules/rite">Rules reference</a>' in page
