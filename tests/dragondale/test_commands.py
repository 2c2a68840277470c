"""Notation, bad input, options and perft counts."""

from __future__ import annotations

from collections import Counter

import pytest

from rules.core import Command, IllegalCommand, InvalidCommand, Rng, SeatInfo
from rules.dragondale import GAME
from tests.dragondale.positions import at_action, cmd, new_game, park, play


@pytest.mark.parametrize("text", [
    "announce", "skip", "plan", "return v3", "discard vik-2", "pay 0 3", "reveal 2",
    "explore in fog1 from camp_a thicket1", "explore out camp_a to thicket1", "take v1 v4",
    "special vik-named", "empower vik-1 fury_up", "poison tree2", "choose enc:oak:dragon:celts",
    "stance raven swooping_attack",
])
def test_notation_round_trips(text: str) -> None:
    c = GAME.parse_text(text, 0)
    assert GAME.format_text(c) == text
    assert GAME.parse_command(c.type, dict(c.args), 0) == c


@pytest.mark.parametrize("typ,args", [
    ("dragondale.fly", {}),
    ("dragondale.take", {"units": []}),
    ("dragondale.take", {"units": ["v1", "v1"]}),
    ("dragondale.pay", {"tokens": ["a"]}),
    ("dragondale.pay", {"tokens": [-1]}),
    ("dragondale.explore", {"dir": "up", "target": "fog1", "via": ["camp_a"]}),
    ("dragondale.explore", {"dir": "in", "target": "fog1", "via": ["a", "b", "c"]}),
    ("dragondale.choose", {}),
    ("dragondale.choose", {"option": "x", "extra": 1}),
    ("dragondale.stance", {"unit": "raven", "card": 3}),
])
def test_malformed_commands_are_invalid(typ: str, args: dict) -> None:
    with pytest.raises(InvalidCommand):
        GAME.parse_command(typ, args, 0)


@pytest.mark.parametrize("text", ["", "fly away", "explore sideways fog1 from a", "pay x", "return"])
def test_malformed_text_is_invalid(text: str) -> None:
    with pytest.raises(InvalidCommand):
        GAME.parse_text(text, 0)


def test_wrong_seat_and_illegal_choices_change_nothing() -> None:
    s = at_action(park(park(new_game(["vikings", "celts"]), 0), 1), 0)
    before = s
    with pytest.raises(IllegalCommand) as err:
        GAME.decide(s, cmd(1, "skip"), Rng(b"x"))
    assert err.value.code == "not_your_turn"
    with pytest.raises(IllegalCommand) as err:
        GAME.decide(s, cmd(0, "plan"), Rng(b"x"))
    assert err.value.code == "wrong_command"
    with pytest.raises(IllegalCommand) as err:
        GAME.decide(s, cmd(0, "explore", dir="in", target="camp_b", via=["thicket2"]), Rng(b"x"))
    assert err.value.code == "illegal_choice"
    assert s == before


def test_commands_after_the_end_are_refused() -> None:
    s = new_game(["vikings", "celts"])
    from dataclasses import replace
    s = replace(s, outcome={"winners": [0], "scores": [4, 0], "reason": "announced victory"})
    with pytest.raises(IllegalCommand) as err:
        GAME.decide(s, Command("dragondale.skip", {}, 0), Rng(b"x"))
    assert err.value.code == "game_over"


@pytest.mark.parametrize("options", [
    {"tribes": ["vikings"]}, {"tribes": ["vikings", "vikings"]}, {"tribes": ["vikings", "orcs"]},
    {"tribes": ["vikings", "celts"], "experienced": "yes"}, {"colour": "red"},
    {"tribes": ["vikings", "celts"], "newcomer": ["druids"]},
])
def test_bad_options(options: dict) -> None:
    with pytest.raises(InvalidCommand) as err:
        GAME.setup(options, [SeatInfo(0, "a"), SeatInfo(1, "b")], Rng(b"x"))
    assert err.value.code == "bad_options"


def test_bad_seat_counts() -> None:
    for n in (1, 5):
        with pytest.raises(InvalidCommand):
            GAME.setup({}, [SeatInfo(i, "x") for i in range(n)], Rng(b"x"))


def test_perft_first_action_two_tribes() -> None:
    """All units at home: explore out of the encampment into 1 or 2 of its 3 neighbours, and the rest."""
    s = at_action(park(park(new_game(["vikings", "celts"]), 0), 1), 0)
    counts = Counter(c.type.split(".")[1] for c in GAME.legal_commands(s, 0))
    assert counts["explore"] == 9  # out of camp_a into 3 singles + 3 pairs, or into each from it
    assert counts["special"] == len(set(s.tribes[0].hand)) == 3
    assert counts["skip"] == 1
    assert counts["empower"] == 1  # vik-1 fury_down; vik-2 exchange needs a token: none held
    assert sum(counts.values()) == 14


def test_perft_take_from_encampment() -> None:
    """Out of the encampment into one territory: any 1 or 2 of the 7 Viking pieces."""
    s = at_action(park(park(new_game(["vikings", "celts"]), 0), 1), 0)
    s, _ = play(s, cmd(0, "explore", dir="out", target="camp_a", via=["thicket1"]))
    assert len(list(GAME.legal_commands(s, 0))) == 7 + 21
    s2 = at_action(park(park(new_game(["vikings", "celts"]), 0), 1), 0)
    s2, _ = play(s2, cmd(0, "explore", dir="out", target="camp_a", via=["fog1", "thicket1"]))
    # first leg leaves room for one more: exactly 1 unit of 7
    assert len(list(GAME.legal_commands(s2, 0))) == 7


def test_perft_stance_round_experienced_four_tribes() -> None:
    s = new_game(["vikings", "celts", "druids", "dark_faery"], experienced=True)
    per_seat = [len(list(GAME.legal_commands(s, i))) for i in range(4)]
    assert per_seat == [12, 10, 9, 10]  # Druids leave FOREST GUARDIAN out
