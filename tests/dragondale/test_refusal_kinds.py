"""Dragon Dale's refusal kinds (issue #38 item 4): a refused answer names the rule that stops it
with a code of `refusals.KINDS` (the game's `refusal_kinds`), from hand-built positions, and
changes nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.core import Command, IllegalCommand
from rules.dragondale import GAME
from rules.dragondale.refusals import KINDS
from rules.dragondale.state import State
from tests.dragondale.positions import at_action, cmd, new_game, park, place, play, tribe, unit_id

V, C = 0, 1


def two() -> State:
    s = replace(park(park(new_game(["vikings", "celts"]), V), C), terr_tokens={}, dragon="yew")
    return at_action(s, V, 1)


def refused(s: State, c: Command) -> IllegalCommand:
    with pytest.raises(IllegalCommand) as err:
        play(s, c)
    return err.value


def test_the_game_lists_its_refusal_kinds_each_with_its_rule() -> None:
    assert GAME.refusal_kinds is KINDS
    assert all(code.islower() and rule.strip() for code, rule in KINDS.items())


def test_fog_valley_leaving_min_two_units_names_the_fog_valley() -> None:
    """Fog Valley: "LEAVING: Min. 2 units, only in different territories." One unit in fog1."""
    s = two()
    s = place(s, V, {unit_id(s, V, "warriors"): "fog1"})
    err = refused(s, cmd(V, "explore", dir="out", target="fog1", via=["thicket1"]))
    assert err.code == "fog_valley" and "at least 2" in err.message


def test_marshland_leaving_without_card_or_insight_names_the_marshland() -> None:
    """Marshland: "LEAVING: Discard 1 card OR pay 1 insight token. If you can do neither, you
    cannot leave.\""""
    s = two()
    s = tribe(place(s, V, {unit_id(s, V, "warriors"): "marsh1"}), V, hand=(), tokens=())
    err = refused(s, cmd(V, "explore", dir="out", target="marsh1", via=["mountain1"]))
    assert err.code == "marshland" and "you have neither" in err.message


def test_explore_as_the_second_action_names_the_turn_rule() -> None:
    """Step B: "EXPLORE can only be done as your 1st action.\""""
    s = two()
    s = at_action(place(s, V, {unit_id(s, V, "warriors"): "mountain1"}), V, 2)
    err = refused(s, cmd(V, "explore", dir="in", target="marsh1", via=["mountain1"]))
    assert (err.code, err.message) == ("explore_first", "explore in marsh1 from mountain1: Explore only as your 1st action")


def test_a_card_not_in_hand_names_the_special_action_rule_and_changes_nothing() -> None:
    s = tribe(two(), V, hand=("vik-h1",))
    before = s
    err = refused(s, cmd(V, "special", card="vik-named"))
    assert err.code == "not_in_hand" and s == before
