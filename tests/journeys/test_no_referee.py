"""Journey: a dispute in a game with no referee, settled by the other seat's vote, with every
notice sent once (issue #37, "No referee").

ann and bob play Rite, each told by mail and by webhook. ann's pass ends the round and rolls the
volcano die; bob disputes it. ann, the only other seat, is asked once; the game takes no move
while the dispute is open; ann votes to void it, saying why; both are told of the ruling once,
with the reason; the move list says it, and the move is struck."""

from __future__ import annotations

import pytest

from tests.conftest import wait_for
from tests.journeys.acts import (
    Person,
    accepted,
    code_of,
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


def test_a_dispute_with_no_referee_is_settled_by_vote_and_every_notice_comes_once(
        service: Deployment, mailbox: MailBox, hooks: Web) -> None:
    with service.client() as c:
        ann, bob = person(c, mailbox, hooks, "ann"), person(c, mailbox, hooks, "bob")
        game = rite(c, [ann, bob])
        assert c.get(f"/v1/games/{game.id}").json()["refereed"] is False

        # ann's pass ends the round: the volcano die is rolled in her move.
        roll = roll_by(c, game, "ann")
        move = move_entry(c, game.id, roll.on)["move"]

        # The move the prompted seat could play now, tried once the dispute is open.
        prompted = c.get(f"/v1/games/{game.id}", params={"min_seq": roll.last}).json()["prompt"]["seats"][0]
        legal = c.get(f"/v1/games/{game.id}/legal", params={"min_seq": roll.last},
                      headers={"Authorization": f"Bearer {game.tokens[prompted]}"}).json()["commands"]

        # bob disputes it.
        note = "the die fell off the table"
        _, opened = accepted(send(c, game.id, game.token("bob"), "boardlog.dispute",
                                            {"seq": roll.on, "note": note}))

        # ann, the only other seat, is asked once on each target, naming the move as the list does.
        wait_for(lambda: any(n["seq"] == opened for n in hooked(hooks, ann, game.id))
                 and any(notice_seq(m) == opened for m in mailed(mailbox, ann, game.id)), timeout=20)
        [ask] = [n for n in hooked(hooks, ann, game.id) if n["seq"] == opened]
        assert f"bob disputes move {move}" in ask["asked"] and note in ask["asked"], ask
        [ask_mail] = [m for m in mailed(mailbox, ann, game.id) if notice_seq(m) == opened]
        assert note in plain(ask_mail)

        # While it is open the game takes no move: the seat prompted is told what waits, and why.
        r = send(c, game.id, game.tokens[prompted], legal[0]["type"], legal[0]["args"])
        assert r.status_code in (409, 422) and code_of(r) == "dispute_open", r.text
        # what is disputed and by whom, in the disputer's words (the core has no move numbers)
        assert f"bob disputes ann's move ('{note}')" in r.json()["error"]["message"], r.text
        assert max(e["seq"] for e in events(c, game.id, game.tokens[prompted])) == opened

        # ann votes to void her own roll, saying why: the vote settles it.
        reason = "we saw it land on the floor"
        first, ruled = accepted(send(c, game.id, game.token("ann"), "boardlog.resolve",
                                     {"verdict": "voided", "reason": reason}))
        logged = events(c, game.id, game.token("bob"), since=first)
        [resolved] = [e for e in logged if e["type"] == "boardlog.DisputeResolved"]
        assert resolved["data"]["verdict"] == "voided" and resolved["data"]["by"] == "seats"
        assert resolved["data"]["reason"] == reason and resolved["data"]["on"] == roll.on
        [taken] = [e for e in logged if e["type"] == "boardlog.TakenBack"]
        assert taken["data"]["first"] == roll.on

        # Both seats are told of the ruling once, with its reason, on every target.
        def told(p: Person) -> bool:
            return (any(n["seq"] == ruled for n in hooked(hooks, p, game.id))
                    and any(notice_seq(m) == ruled for m in mailed(mailbox, p, game.id)))

        wait_for(lambda: told(ann) and told(bob), timeout=20)
        settle()
        for p in (ann, bob):
            ruling = [n for n in hooked(hooks, p, game.id) if n["seq"] == ruled]
            assert len(ruling) == 1, (p.name, ruling)
            assert reason in words_of(ruling[0]) and "void" in words_of(ruling[0]).lower(), ruling
            mails = [m for m in mailed(mailbox, p, game.id) if notice_seq(m) == ruled]
            assert len(mails) == 1 and reason in plain(mails[0]), (p.name, [plain(m) for m in mails])

        # Every notice of the game came once per target: no seq told twice to anybody.
        for p in (ann, bob):
            seqs = [n["seq"] for n in hooked(hooks, p, game.id)]
            assert len(seqs) == len(set(seqs)), (p.name, seqs)
            mail_seqs = [notice_seq(m) for m in mailed(mailbox, p, game.id)]
            assert len(mail_seqs) == len(set(mail_seqs)), (p.name, mail_seqs)
        # bob, who opened the dispute, was not asked to answer it.
        assert not [n for n in hooked(hooks, bob, game.id) if n["seq"] == opened]

        # The move list says who ruled and why, and strikes the voided move.
        texts = " ".join(move_texts(c, game.id))
        assert reason in texts, texts
        assert move_entry(c, game.id, roll.on).get("undone"), move_entry(c, game.id, roll.on)
