"""A notice through Apprise reads as written in a service of any format: seat names are whatever
players chose, and the notice is plain text (a real Apprise, a local HTTP receiver)."""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest

from tests.support.receivers import Web
from workers.notify.channels import send_apprise
from workers.notify.notices import Notice

NAME = '<a href="https://evil.example">[sign in](https://evil.example)</a>'


@pytest.fixture(scope="module")
def web() -> Iterator[Web]:
    w = Web().start()
    yield w
    w.stop()


def _sent(web: Web, fmt: str) -> str:
    n = Notice("p01-abcdef012345", "rite", 9, 1, NAME, "turn", f"{NAME}: take an action", f"{NAME}: pass",
               "2026-12-03T13:00:00.000Z")
    send_apprise(f"json://127.0.0.1:{web.port}/{fmt}?format={fmt}", n.subject(), n.text("http://h"))
    [hit] = web.at(f"/{fmt}")
    return str(orjson.loads(hit.body)["message"])


def test_a_notice_to_an_html_service_is_escaped_and_keeps_its_lines(web: Web) -> None:
    """Sent without saying it was text, Apprise gave it to an HTML service (Telegram, mail) as
    HTML: the name's <a href> was a link and the lines ran into one."""
    body = _sent(web, "html")
    assert "<a href" not in body and "&lt;a&nbsp;href=&quot;https://evil.example&quot;&gt;" in body, body
    assert body.count("<br/>") >= 3 or body.count("<br>") >= 3, body  # one line each, as the text has


def test_a_notice_to_a_markdown_service_has_no_link_of_a_players_making(web: Web) -> None:
    body = _sent(web, "markdown")
    assert "[sign in](" not in body and "\\[sign in\\](https://evil.example)" in body, body
    assert "http://h/games/p01-abcdef012345" in body  # the notice's own links stay whole


def test_a_notice_to_a_text_service_is_the_text(web: Web) -> None:
    body = _sent(web, "text")
    assert NAME in body and "\\[" not in body and "&lt;" not in body, body
