"""Perft: exact counts of `legal_commands` in known positions."""

from __future__ import annotations

from collections import Counter

from rules.dragondale import GAME
from tests.dragondale.positions import at_action, cmd, new_game, park, play


def test_perft_first_action_two_tribes() -> None:
    """All units at home: explore out of the encampment into 1 or 2 of its 3 neighbours, and the rest."""
    s = at_action(park(park(new_game(["vikings", "celts"]), 0), 1), 0)
    counts = Counter(c.type.split(".")[1] for c in GAME.legal_commands(s, 0))
    assert counts["explore"] == 9  # out of camp_a into 3 singles + 3 pairs, or into each from it
    assert counts["special"] == len(set(s.tribes[0].hand)) == 3
    assert counts["skip"] == 0  # "Use 2 actions": no pass while an action can be taken
    assert counts["empower"] == 2  # vik-1 fury_down; vik-2 exchange, with no token to swap
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
