"""What the people of the mail-only journey do: read the newest mail that may be answered, pick
a move from the legal moves it lists, and answer it from a mail program (top-posted,
bottom-posted, HTML only), as the reply domain's mail server would deliver it."""

from __future__ import annotations

import html
import smtplib
from email.message import EmailMessage
from typing import Any

import httpx

from tests.integration.helpers import bearer
from tests.journeys.acts import Game, Person
from tests.journeys.conftest import Deployment
from tests.support.receivers import MailBox

LISTS = ("Your legal moves (reply with one of them):", "What you may send now")


def clocked_rite(c: httpx.Client, seats: list[Person], per_move: int = 3600) -> Game:
    """A two-seat Rite game with a clock, its seats the `seats` players' (by id, so each is told
    of the opening turn); after every move the platform appends the clock's own step (what
    voided every reply before issue #36)."""
    r = c.post("/v1/games", headers=bearer(seats[0].key),
               json={"game": "rite", "seats": [{"player": p.id} for p in seats],
                     "options": {"clock": {"per_move": per_move}}})
    assert r.status_code == 201, r.text
    made = r.json()
    return Game(made["id"], [str(s.get("token") or "") for s in made["seats"]], made["admin_token"],
                {p.name: i for i, p in enumerate(seats)})


def answerable(mailbox: MailBox, p: Person, gid: str, after: int) -> EmailMessage | None:
    """The newest mail to `p` of game `gid`, past the first `after` of theirs, that a reply
    answers (a turn, a reminder, or an answer that is still their turn)."""
    mails = mailbox.to(p.address)[after:]
    ours = [m for m in mails if gid in str(m["Subject"]) and m["Reply-To"]]
    return ours[-1] if ours else None


def text_of(m: EmailMessage) -> str:
    body = m.get_body(("plain",))
    assert body is not None, m
    return str(body.get_content())


def legal_moves(m: EmailMessage) -> list[str]:
    """The moves the mail lists, in notation."""
    out: list[str] = []
    listing = False
    for line in text_of(m).splitlines():
        if any(header in line for header in LISTS):
            listing = True
            continue
        if listing:
            if not line.startswith("  ") or line.startswith("  …"):
                break
            out.append(line.strip())
    assert out, text_of(m)
    return out


def reply(service: Deployment, to: str, sender: str, body: str, subtype: str = "plain") -> None:
    """A reply delivered to boardlog's inbound SMTP; `subtype` "html" sends HTML alone."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "Re: your turn"
    msg.set_content(body, subtype=subtype)
    with smtplib.SMTP("127.0.0.1", service.mail_in_port, timeout=20) as smtp:
        smtp.send_message(msg)


def answer(service: Deployment, m: EmailMessage, sender: str, move: str, style: str) -> None:
    """Answer mail `m` with `move` the way a mail program of `style` lays it out."""
    text = text_of(m)
    quoted = "\n".join("> " + line for line in text.splitlines())
    to = str(m["Reply-To"])
    if style == "top":
        reply(service, to, sender, f"{move}\n\nthanks!\n\nOn Tue, boardlog wrote:\n{quoted}\n")
    elif style == "bottom":
        reply(service, to, sender, f"On Tue, boardlog wrote:\n{quoted}\n\n{move}\n")
    else:
        reply(service, to, sender, f"<html><body><div>{html.escape(move)}</div><div>On Tue, boardlog wrote:"
                                   f"<blockquote><pre>{html.escape(text)}</pre></blockquote></div></body></html>",
              "html")


def receipt_of(m: EmailMessage) -> dict[str, Any] | None:
    import orjson

    for part in m.iter_attachments():
        got: dict[str, Any] = orjson.loads(part.get_content())
        return got
    return None
