"""Journey: a clocked Rite game played by mail alone (issue #36, "Mail only").

ann and bob never open a page. Each reads the mail that says it is their turn (the moves since
their last, the position, the deadline, the legal moves) and answers it from a mail program: the
move on top, below the quote, or in HTML alone. The game's clock steps after every move, and
every reply still plays. Each accepted answer carries the move's signed receipt, and every one
checks with `boardlog audit --receipt` against the final record. Along the way: a forged token,
a used one and another domain's address are refused at the door; a reply with two moves plays
neither; nothing they sent changed the game."""

from __future__ import annotations

import json
import smtplib
import uuid
from pathlib import Path

import pytest

from tests.conftest import wait_for
from tests.integration.helpers import bearer
from tests.journeys.acts import accepted, events, head, person
from tests.journeys.conftest import Deployment
from tests.journeys.mail_acts import (
    answer,
    answerable,
    clocked_rite,
    legal_moves,
    receipt_of,
    reply,
    text_of,
)
from tests.support.receivers import MailBox, Web

pytestmark = pytest.mark.integration

MOVES = 20
STYLES = ("top", "bottom", "html")


def test_two_players_play_twenty_moves_of_a_clocked_game_by_mail_alone(
        service: Deployment, mailbox: MailBox, hooks: Web, tmp_path: Path) -> None:
    with service.client() as c:
        ann, bob = person(c, mailbox, hooks, "ann"), person(c, mailbox, hooks, "bob")
        game = clocked_rite(c, [ann, bob])
        people = {0: ann, 1: bob}
        read = {ann.name: 0, bob.name: 0}  # how many of their mails each has read
        receipts = []
        for n in range(MOVES):
            seen = head(c, game.id)
            seat = c.get(f"/v1/games/{game.id}", params={"min_seq": seen}).json()["prompt"]["seats"][0]
            p = people[seat]
            wait_for(lambda p=p: answerable(mailbox, p, game.id, read[p.name]), timeout=20)  # type: ignore[misc]
            mail = answerable(mailbox, p, game.id, read[p.name])
            assert mail is not None
            if "your turn" in str(mail["Subject"]):
                said = text_of(mail)
                assert "Your time for it ends at" in said and "The position as you see it:" in said, said
            read[p.name] = len(mailbox.to(p.address))
            moves = legal_moves(mail)
            move = moves[n % len(moves)]
            answer(service, mail, p.address, move, STYLES[n % len(STYLES)])

            def answered(p=p, since=read[p.name]):  # type: ignore[no-untyped-def]
                return [m for m in mailbox.to(p.address)[since:] if "accepted" in str(m["Subject"])
                        or "not played" in str(m["Subject"]) or "too late" in str(m["Subject"])]

            wait_for(answered, timeout=30)
            [told] = answered()
            assert "accepted" in str(told["Subject"]), text_of(told)
            assert f"Accepted: {move}" in text_of(told)
            receipt = receipt_of(told)
            assert receipt is not None and receipt["game"] == game.id
            receipts.append(receipt)
        assert head(c, game.id) > MOVES  # every move, and the clock's step after each

        # Bad input changes nothing: a forged token, another domain's address, a used address.
        before = events(c, game.id)
        for to in (f"play+{uuid.uuid4().hex}@play.test", f"play+{uuid.uuid4().hex}@elsewhere.example"):
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                reply(service, to, ann.address, "pass")
        seat = c.get(f"/v1/games/{game.id}").json()["prompt"]["seats"][0]
        p = people[seat]
        wait_for(lambda: answerable(mailbox, p, game.id, read[p.name]), timeout=20)
        mail = answerable(mailbox, p, game.id, read[p.name])
        assert mail is not None
        read[p.name] = len(mailbox.to(p.address))
        two = legal_moves(mail)[:2]
        reply(service, str(mail["Reply-To"]), p.address, "\n".join(two if len(two) == 2 else two * 2))
        wait_for(lambda: [m for m in mailbox.to(p.address)[read[p.name]:] if "not played" in str(m["Subject"])],
                 timeout=30)
        [refusal] = [m for m in mailbox.to(p.address)[read[p.name]:] if "not played" in str(m["Subject"])]
        assert "one move a reply" in text_of(refusal)
        with pytest.raises(smtplib.SMTPRecipientsRefused):  # that address worked once
            reply(service, str(mail["Reply-To"]), p.address, two[0])
        assert events(c, game.id) == before

        # Every receipt checks against the final record.
        accepted(c.post(f"/v1/games/{game.id}/abort?wait=1", headers=bearer(game.admin)))
        record = tmp_path / "game.jsonl"
        record.write_bytes(c.get(f"/v1/games/{game.id}/export").content)
        keys = tmp_path / "keys.json"
        keys.write_text(json.dumps(c.get("/v1/keys").json()))
    files = []
    for i, r in enumerate(receipts):
        f = tmp_path / f"receipt-{i}.json"
        f.write_text(json.dumps(r))
        files += ["--receipt", str(f)]
    ran = service.cli("audit", str(record), "--key", str(keys), *files)
    assert ran.returncode == 0 and "verified" in ran.stdout, ran.stdout + ran.stderr
