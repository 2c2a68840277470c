"""A notice through Apprise reads as written in a service of any format: seat names are whatever
players chose, and the notice is plain text (a real Apprise, a local HTTP receiver)."""

from __future__ import annotations

import apprise
import orjson

from service.usecases.notifications.channels import apprise_text, markdown_text, send_apprise
from service.usecases.notifications.notices import Notice
from tests.support.receivers import Web

NAME = '<a href="https://evil.example">[sign in](https://evil.example)</a>'


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


def test_discord_reads_markdown_and_mentions_in_plain_text_too() -> None:
    """Discord links "[x](url)" and pings the channel for "@everyone" in a webhook's plain text,
    whatever Apprise's format: for it the text is escaped (Discord drops the backslashes),
    mentions too, and stays text (Markdown would turn Apprise's Discord message into an embed)."""
    services = apprise.Apprise()
    assert services.add("discord://1234567/abcdefg") and services.add("slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ")
    discord, slack = services[0], services[1]
    text = "@everyone [sign in](https://evil.example) *ann*: see https://h/games/p1/replay?seq=9&t=a_b"
    _, body, fmt = apprise_text(discord, "t", text)
    assert fmt == apprise.NotifyFormat.TEXT
    assert body == "\\@everyone \\[sign in\\](https://evil.example) \\*ann\\*: see https://h/games/p1/replay?seq=9&t=a_b"
    _, body, fmt = apprise_text(slack, "t", text)
    assert fmt == apprise.NotifyFormat.MARKDOWN and body.startswith("@everyone \\[sign in\\]")
    assert markdown_text("a_b https://h/x_y") == "a\\_b https://h/x_y"  # the notice's own links stay whole
