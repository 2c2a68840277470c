"""Journey: the same disputed roll, ruled by replying to the referee's mail (issue #37, "By mail").

carol referees ann and bob's Rite game as a player. bob disputes ann's roll; carol replies
"uphold: the roll stands" to the mail that told her, from her mail program, with its quoted text
below. The ruling is the referee's, with her reason; ann and bob are told once; the move list says
it; the roll stands. The same reply sent again changes nothing."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

import pytest

from tests.conftest import wait_for
from tests.journeys.acts import (
    Person,
    accepted,
    events,
    hooked,
    mailed,
    move_entry,
    move_texts,
    notice_seq,
    person,
    plain,
    rite,
    roll_by,
    send,
    words_of,
)
from tests.journeys.conftest import Deployment, settle
from tests.support.receivers import MailBox, Web

pytestmark = pytest.mark.integration


def reply(service: Deployment, to: str, body: str, sender: str) -> None:
    """A reply delivered to boardlog's inbound SMTP, as the reply domain's mail server would."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "Re: a dispute to rule"
    msg.set_content(body)
    with smtplib.SMTP("127.0.0.1", service.mail_in_port, timeout=20) as smtp:
        smtp.send_message(msg)


def test_the_referee_upholds_a_disputed_roll_by_replying_to_the_mail(
        service: Deployment, mailbox: MailBox, hooks: Web) -> None:
    with service.client() as c:
        ann, bob, carol = (person(c, mailbox, hooks, n) for n in ("ann", "bob", "carol"))
        game = rite(c, [ann, bob], referee=carol)
        roll = roll_by(c, game, "ann")
        move = move_entry(c, game.id, roll.on)["move"]
        _, opened = accepted(send(c, game.id, game.token("bob"), "boardlog.dispute",
                                  {"seq": roll.on, "note": "I never saw that die"}))

        wait_for(lambda: [m for m in mailed(mailbox, carol, game.id) if notice_seq(m) == opened], timeout=20)
        [told] = [m for m in mailed(mailbox, carol, game.id) if notice_seq(m) == opened]
        reply_to = str(told["Reply-To"] or "")
        assert reply_to.endswith("@play.test"), told
        quoted = "\n".join("> " + line for line in plain(told).splitlines())

        # carol answers from her mail program: the ruling on top, the mail quoted below.
        reply(service, reply_to, f"uphold: the roll stands\n\nOn a day, boardlog wrote:\n{quoted}\n", carol.address)

        def resolved() -> list[dict[str, object]]:
            return [e for e in events(c, game.id, game.token("ann"), since=opened + 1)
                    if e["type"] == "boardlog.DisputeResolved"]

        wait_for(resolved, timeout=30)
        [ruling] = resolved()
        assert ruling["data"] == {**ruling["data"], "verdict": "upheld", "by": "referee",  # type: ignore[dict-item]
                                  "reason": "the roll stands", "on": roll.on}
        ruled = max(int(e["seq"]) for e in events(c, game.id, game.token("ann"), since=opened + 1))
        sentence = f"The referee (carol) upholds move {move}: the roll stands"

        def notices(p: Person) -> list[dict[str, object]]:
            return [n for n in hooked(hooks, p, game.id) if n["seq"] == ruled]

        wait_for(lambda: notices(ann) and notices(bob), timeout=20)
        settle()
        for p in (ann, bob):
            assert len(notices(p)) == 1 and sentence in words_of(notices(p)[0]), (p.name, notices(p))
        assert any(sentence in t for t in move_texts(c, game.id)), move_texts(c, game.id)
        # Upheld: the roll stands, nothing was undone.
        assert not move_entry(c, game.id, roll.on).get("undone")

        # The same reply again: the dispute is settled, so nothing changes (a refusal at the door,
        # or an answer mail saying so).
        before, mails = events(c, game.id, game.token("ann")), len(mailbox.to(carol.address))
        try:
            reply(service, reply_to, "uphold: the roll stands", carol.address)
        except smtplib.SMTPRecipientsRefused:
            pass
        else:
            wait_for(lambda: len(mailbox.to(carol.address)) > mails, timeout=20)  # the answer mail
        settle()
        assert events(c, game.id, game.token("ann")) == before
