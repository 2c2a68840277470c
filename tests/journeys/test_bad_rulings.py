"""Journey: every wrong way to dispute or rule is refused with a 4xx naming the rule, and writes
nothing (issue #37, "Bad input").

In a Rite game refereed by rita, bob disputes ann's roll. Then, each in turn: a reason empty, of
501 characters, with a control or a bidi character; a ruling by a seat, by a spectator; a second
dispute while one is open; a move while it is open; then, once rita has ruled, a ruling on the
settled dispute and ann disputing her own move. After each the game's log is as it was."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.conftest import wait_for
from tests.journeys.acts import Game, accepted, code_of, events, roll_by, send
from tests.journeys.conftest import Deployment

pytestmark = pytest.mark.integration


def refused(c: httpx.Client, game: Game, rule: str, attempt: Callable[[], httpx.Response]) -> None:
    """`attempt` is refused with a 4xx whose code is `rule`, and the log is unchanged."""
    before = events(c, game.id, game.referee_token)
    r = attempt()
    assert 400 <= r.status_code < 500, (rule, r.status_code, r.text)
    assert code_of(r) == rule, (rule, r.text)
    assert r.json().get("message") or (r.json().get("error") or {}).get("message"), r.text  # says why
    assert events(c, game.id, game.referee_token) == before, rule


def test_wrong_disputes_and_rulings_are_refused_naming_the_rule_and_write_nothing(service: Deployment) -> None:
    with service.client() as c:
        r = c.post("/v1/games", json={"game": "rite", "seats": ["ann", "bob"], "referee": "rita"})
        assert r.status_code == 201, r.text
        made = r.json()
        game = Game(made["id"], [s["token"] for s in made["seats"]], made["admin_token"], {"ann": 0, "bob": 1},
                    made["referee"]["token"])
        wait_for(lambda: c.get(f"/v1/games/{game.id}").json().get("prompt"), timeout=15)
        roll = roll_by(c, game, "ann")
        bobs = [e["seq"] for e in events(c, game.id, game.referee_token)
                if e["type"] == "boardlog.CommandAccepted" and e["seat"] == 1]
        # The move the prompted seat could play now, tried once the dispute is open.
        prompted = c.get(f"/v1/games/{game.id}", params={"min_seq": roll.last}).json()["prompt"]["seats"][0]
        move = c.get(f"/v1/games/{game.id}/legal", params={"min_seq": roll.last},
                     headers={"Authorization": f"Bearer {game.tokens[prompted]}"}).json()["commands"][0]
        accepted(send(c, game.id, game.token("bob"), "boardlog.dispute", {"seq": roll.on, "note": "never rolled"}))
        ref = game.referee_token

        def ruling(token: str | None, reason: object) -> Callable[[], httpx.Response]:
            return lambda: send(c, game.id, token, "boardlog.resolve", {"verdict": "voided", "reason": reason})

        refused(c, game, "bad_reason", ruling(ref, ""))
        refused(c, game, "bad_reason", ruling(ref, "x" * 501))
        refused(c, game, "bad_reason", ruling(ref, "the bell\x07 rang"))
        refused(c, game, "bad_reason", ruling(ref, "the roll \u202estands"))
        refused(c, game, "referee_resolves", ruling(game.token("ann"), "I say so"))
        spectator = ruling(None, "I watched it")
        before = events(c, game.id, ref)
        r = spectator()
        assert r.status_code in (401, 403) and code_of(r) not in ("", "None"), r.text
        assert events(c, game.id, ref) == before
        refused(c, game, "dispute_open", lambda: send(c, game.id, game.token("ann"), "boardlog.dispute",
                                                      {"seq": bobs[0], "note": "and that one"}))
        refused(c, game, "dispute_open", lambda: send(c, game.id, game.tokens[prompted], move["type"], move["args"]))

        # rita rules; the settled dispute takes no second ruling, and ann may not dispute her own move.
        accepted(send(c, game.id, ref, "boardlog.resolve", {"verdict": "upheld", "reason": "the roll stands"}))
        refused(c, game, "no_dispute", ruling(ref, "on second thoughts"))
        refused(c, game, "own_move", lambda: send(c, game.id, game.token("ann"), "boardlog.dispute",
                                                  {"seq": roll.on, "note": "my own roll"}))
