"""Issue #38's Dragon Dale items, one test a rule from a hand-built position, each quoting the
rulebook sentence it reads (rules version 2; version 1 kept for its records, CHANGELOG.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.core import Command, Rng, SeatInfo, fold
from rules.dragondale import GAME
from rules.dragondale.board import board_for
from rules.dragondale.flow import Flow
from rules.dragondale.game import GAME_V1, GAME_V2
from rules.dragondale.state import State
from tests.dragondale.positions import at_action, cmd, first, new_game, park, play, tokens, tribe

V, C = 0, 1


def two(**kw: object) -> State:
    s = new_game(["vikings", "celts"], **kw)  # type: ignore[arg-type]
    return replace(park(park(s, 0), 1), terr_tokens={})


def draws_for(s: State, seat: int) -> tuple[int, str]:
    """How many draws one insight draw uses from a fresh Rng, and the token's type."""
    rng = Rng(b"draw")
    f = Flow(s, rng)
    f.draw_insight(seat)
    return rng.draws, f.events[0].data["secret"]["token"][1]


# --- item 13: what the draw count tells ---------------------------------------------------------

@pytest.mark.parametrize("token", ["neutral:square", "neutral:circle", "celts:leaf"])
def test_gaining_insight_draws_the_same_count_whatever_the_bag_holds(token: str) -> None:
    """"To gain an insight token, draw 1 token from the bag ... The insight type that matches the
    shape most closely is the type that has the highest probability of being drawn" [Gaining and
    Playing Insight]: the weighting is secret, the number of draws a command makes is public, so
    a bag of one square (the Vikings' shape) and a bag of one circle use the same one draw."""
    s = replace(two(), bag={token: 1})
    count, drawn = draws_for(s, V)
    assert (count, drawn) == (1, token.split(":")[1])
    big = replace(two(), bag={"neutral:square": 3, "neutral:circle": 5, "druids:star": 2})
    assert draws_for(big, V)[0] == 1


def test_version_1_games_keep_their_draws() -> None:
    """A game made under rules version 1 draws as it did (its record re-runs in the audit): one
    preferred token took one draw, one other token none."""
    s = replace(two(), rules=1)
    assert draws_for(replace(s, bag={"neutral:square": 1}), V)[0] == 1
    assert draws_for(replace(s, bag={"neutral:circle": 1}), V)[0] == 0


# --- item 14: an empowered card under the TOP card ----------------------------------------------

def empower_under_top(s: State) -> tuple[State, list, Command]:
    s = at_action(tribe(s, V, tokens=tokens("neutral:leaf")), V, 1)
    assert s.tribes[V].ideas[-1] == "vik-A"  # the (TOP) card lies on the Ideas pile
    card = s.tribes[V].library[0]
    c = next(c for c in GAME.legal_commands(s, V) if c.type == "dragondale.empower" and c.args["card"] == card)
    after, ev = play(s, c)
    return after, ev, c


def test_empowered_card_under_the_top_card_is_seen_only_by_its_tribe() -> None:
    """"Other tribes may only look at the top card of your Ideas pile. If the card with (TOP) is in
    there, it always has to be on top of the pile" [Setup 17]: the card empowered goes under the
    TOP card, named to its own tribe only; the effect applied stays public."""
    s, ev, c = empower_under_top(two())
    card = c.args["card"]
    assert s.tribes[V].ideas[-2:] == (card, "vik-A")
    e = first(ev, "CardEmpowered")
    assert GAME.redact(e, V).data["secret"]["card"] == card
    for viewer in (C, None):
        seen = GAME.redact(e, viewer)
        assert seen is not None and card not in repr(seen.data) and seen.data["effect"] == c.args["effect"]
        shown = GAME.redact_command(c, viewer)
        assert shown is not None and card not in repr(shown.args) and shown.args["effect"] == c.args["effect"]
        told = GAME.describe_event(s, seen, viewer, ["ann", "bob"]).text
        assert told.startswith("ann empowers a card ")
    assert GAME.redact_command(c, V) == c


def test_empowered_card_on_top_of_ideas_is_public() -> None:
    """With no (TOP) card on the pile the card empowered lies on top, where every tribe may look."""
    s = tribe(two(), V, ideas=("vik-B",))
    s, ev, c = empower_under_top_ok(s)
    e = first(ev, "CardEmpowered")
    assert GAME.redact(e, C).data["card"] == c.args["card"] == s.tribes[V].ideas[-1]


def empower_under_top_ok(s: State) -> tuple[State, list, Command]:
    s = at_action(tribe(s, V, tokens=tokens("neutral:leaf")), V, 1)
    card = s.tribes[V].library[0]
    c = next(c for c in GAME.legal_commands(s, V) if c.type == "dragondale.empower" and c.args["card"] == card)
    after, ev = play(s, c)
    return after, ev, c


def test_version_1_named_the_empowered_card_to_everyone() -> None:
    _, ev, c = empower_under_top(replace(two(), rules=1))
    assert GAME.redact(first(ev, "CardEmpowered"), C).data["card"] == c.args["card"]


# --- item 17: newcomer Celts start with the introductory Reaching card --------------------------

def test_newcomer_celts_start_with_the_introductory_reaching_card_in_hand() -> None:
    """"VIKINGS/CELTS: You start with the introductory version of the card "Reaching the Dragon
    Tree"" [Newcomers]: in hand from the start, not in Library position 3."""
    s = new_game(["vikings", "celts"], newcomer=["celts"])
    celts = s.tribes[C]
    assert "cel-reach-intro" in celts.hand and "cel-reach-intro" not in celts.library
    assert "cel-reach" not in celts.hand + celts.library
    s = at_action(tribe(s, C, tokens=()), C, 1)
    assert cmd(C, "special", card="cel-reach-intro") in GAME.legal_commands(s, C)
    regular = new_game(["vikings", "celts"])
    assert "cel-reach" in regular.tribes[C].library and "cel-reach" not in regular.tribes[C].hand


def test_version_1_left_the_celts_introductory_card_in_the_library() -> None:
    seats = [SeatInfo(0, "a"), SeatInfo(1, "b")]
    opts = {"tribes": ["vikings", "celts"], "newcomer": ["celts"]}
    s = fold(GAME_V1, GAME_V1.setup(opts, seats, Rng(b"v1")))
    assert s.rules == 1 and s.tribes[C].library[2] == "cel-reach-intro"
    assert fold(GAME_V2, GAME_V2.setup(opts, seats, Rng(b"v1"))).rules == 2
    assert fold(GAME, GAME.setup(opts, seats, Rng(b"v1"))).rules == 3


# --- item 16: the 3-tribe board -----------------------------------------------------------------

def test_three_tribe_encampments_each_have_their_own_place() -> None:
    """"3 tribes: Playing order goes counter-clockwise from the starting tribe" [Setup 5]: three
    encampments around the ring, each at its own place, in counter-clockwise playing order."""
    import math
    b = board_for(3)
    camps = ["camp_a", "camp_b", "camp_c"]
    places = [(b.terr[c].x, b.terr[c].y) for c in camps]
    assert len(set(places)) == 3
    cx = sum(t.x for t in b.terr.values()) / len(b.terr)
    cy = sum(t.y for t in b.terr.values()) / len(b.terr)
    # screen y grows downwards: counter-clockwise on the page is a rising angle with y flipped
    angles = [math.atan2(-(y - cy), x - cx) for x, y in places]
    turns = [(angles[(i + 1) % 3] - angles[i]) % (2 * math.pi) for i in range(3)]
    assert all(0 < t < math.pi for t in turns), angles
