"""Journey: a game one seat stops answering ends by `abandon_after` (issue #36, "Abandoned").

ann and bob start a clocked game of Rite (a few seconds a move; `on_timeout: skip`, and the
default `abandon_after` of 3). bob never answers again. Each time his time runs out the game
passes for him, and he is told so by mail and webhook, with how many more timeouts forfeit him;
ann is told the game passed for him. At his third timeout in a row he forfeits: the game ends,
ann wins, and both get the end mail with the result and its reason. The move list says it."""

from __future__ import annotations

import pytest

from tests.conftest import wait_for
from tests.journeys.abandon_acts import clocked_rite, play_alone
from tests.journeys.acts import hooked, mailed, move_texts, person, plain
from tests.journeys.conftest import Deployment, settle
from tests.support.receivers import MailBox, Web

pytestmark = pytest.mark.integration

TIMEOUT_SUBJECT = "you ran out of time"


def test_a_seat_that_stops_answering_forfeits_after_three_timeouts_and_both_are_told(
        service: Deployment, mailbox: MailBox, hooks: Web) -> None:
    with service.client() as c:
        ann, bob = person(c, mailbox, hooks, "ann"), person(c, mailbox, hooks, "bob")
        game = clocked_rite(c, [ann, bob], {"per_move": 4, "on_timeout": "skip"})
        assert c.get(f"/v1/games/{game.id}").json()["clock"]["abandon_after"] == 3  # the default

        # ann plays whenever it is her turn; bob has vanished.
        over = play_alone(c, game, "ann")
        outcome = over["outcome"]
        assert outcome["winners"] == [game.seats["ann"]], over
        assert outcome["reason"] == "resigned: bob; bob ran out of time 3 turns in a row", outcome
        assert over["clock"]["in_a_row"].get(str(game.seats["bob"])) == 3

        # bob was told at each timeout, by mail and webhook, how many more would forfeit him.
        def told_bob() -> list[str]:
            return [plain(m) for m in mailed(mailbox, bob, game.id) if TIMEOUT_SUBJECT in str(m["Subject"])]

        wait_for(lambda: len(told_bob()) >= 2, timeout=20)
        said = told_bob()
        assert len(said) == 2, said  # once each
        assert "you ran out of time; the game passed for you; 2 more and you forfeit." in said[0]
        assert "you ran out of time; the game passed for you; 1 more and you forfeit." in said[1]
        wait_for(lambda: len([n for n in hooked(hooks, bob, game.id) if n["type"] == "boardlog.notice.timeout"]) >= 2,
                 timeout=20)
        # ann is told the game passed for him.
        ann_told = [n["asked"] for n in hooked(hooks, ann, game.id) if n["type"] == "boardlog.notice.timeout"]
        assert ann_told and all(a == "bob ran out of time: the platform answered for them" for a in ann_told)

        # Both get the end mail, with the result and its reason, once.
        def ends(p: object) -> list[str]:
            return [plain(m) for m in mailed(mailbox, p, game.id) if "the game is over" in str(m["Subject"])]  # type: ignore[arg-type]

        wait_for(lambda: ends(ann) and ends(bob), timeout=20)
        settle()
        [to_ann], [to_bob] = ends(ann), ends(bob)
        assert "the game is over: you won (resigned: bob; bob ran out of time 3 turns in a row)." in to_ann
        assert "the game is over: ann won (resigned: bob; bob ran out of time 3 turns in a row)." in to_bob

        # The move list says it in words.
        texts = move_texts(c, game.id)
        assert "bob forfeits: out of time 3 turns in a row." in texts
        assert any(t.startswith("bob ran out of time (2 of 3 in a row)") for t in texts), texts
