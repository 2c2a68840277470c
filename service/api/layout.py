"""The one layout every HTML page is served in: head, skip link, header and navigation, the
page's body, and its scripts (native ES modules from /static). A header change is one edit of
service/pages/layout.html.

A page file (service/pages/<name>.html) is its body, opened by one comment naming what the
layout needs, e.g. `<!--page {"title": "boardlog — lobby", "scripts": ["lobby.js"]} -->`:
  title      the tab's title (a script may set a better one)
  referrer   the page's referrer policy (default "same-origin"; a page holding a seat token in its
             address says "no-referrer")
  styles     extra style sheets from /static, after style.css
  head       markup added to the head as it is (a page's own <style>)
  skip       where the skip link leads ("#main") and skip_text its words, skip_id its id
  nav        links after "Lobby": [[text, href, id or null], ...]
  live       true: the header's live-stream state (the board page)
  scripts    the page's modules, from /static, in order
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

PAGES = Path(__file__).parent.parent / "pages"
_FRONT = re.compile(r"\A<!--page (\{.*?\}) -->\n", re.S)
_LIVE = '  <span class="live" id="live" role="status" aria-live="polite">connecting…</span>\n'


@cache
def _layout() -> Template:
    return Template((PAGES / "layout.html").read_text())


def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _nav(links: list[list[str | None]]) -> str:
    out = []
    for text, href, *rest in links:
        ident = f' id="{_attr(rest[0])}"' if rest and rest[0] else ""
        out.append(f'<a{ident} href="{_attr(href)}">{html.escape(str(text))}</a>')
    return "".join(out)


def render(page: str) -> str:
    """A page file's text in the layout; a file without the opening comment is served as it is."""
    m = _FRONT.match(page)
    if not m:
        return page
    meta: dict[str, Any] = json.loads(m.group(1))
    return _layout().substitute(
        title=html.escape(meta["title"]),
        referrer=_attr(meta.get("referrer", "same-origin")),
        styles="".join(f'<link rel="stylesheet" href="/static/{_attr(s)}">\n' for s in meta.get("styles", []))
        + meta.get("head", ""),
        skip=_attr(meta.get("skip", "#main")),
        skip_id=f' id="{_attr(meta["skip_id"])}"' if meta.get("skip_id") else "",
        skip_text=html.escape(meta.get("skip_text", "Skip to content")),
        nav=_nav(meta.get("nav", [])),
        live=_LIVE if meta.get("live") else "",
        body=page[m.end():].rstrip("\n"),
        scripts="".join(f'<script type="module" src="/static/{_attr(s)}"></script>\n' for s in meta.get("scripts", [])),
    )


@cache
def page_html(name: str) -> str:
    """The page `name` in its layout (read once a process: the files ship with the code)."""
    return render((PAGES / name).read_text())
