"""Refusals say why (issue #16 item 6): blocked by whom, out of Movement, not a ranged unit, which
rank acts now. Each refusal also leaves the position as it was (decide returns nothing)."""

from __future__ import annotations

import re
from pathlib import Path

from rules.factions import GAME
from rules.factions import decide as decide_module
from rules.factions.board import parse_space
from tests.factions.helpers import only, position, refused, run


def test_illegal_step_says_who_blocks_the_space() -> None:
    """Movement: "Can Units move through each other? No." — the refusal names the blocker."""
    s = only(position([(0, "EG", "c2"), (1, "DW", "c3")]), 0)
    s, _ = run(s, "activate EG")
    e = refused(s, "step c3", 0)
    assert e.code == "illegal_step"
    assert e.message == "c3 is held by the Zermano Dwarf Warrior (DW): units cannot move through each other"


def test_illegal_step_says_the_unit_is_out_of_movement() -> None:
    """Movement: "When a Unit moves into an adjacent space, that will count as 1 Movement.\""""
    s = only(position([(0, "EG", "a1"), (1, "MI", "f6")]), 0)
    s, _ = run(s, "activate EG", "step a2", "step a3")
    e = refused(s, "step a4", 0)
    assert e.code == "illegal_step" and e.message == "EG has no Movement left (2 of 2 used)"


def test_illegal_step_says_a_diagonal_must_stay_on_home_tiles() -> None:
    """Movement: "your Units can only move adjacently onto your opponent's Terrain Tiles.\""""
    s = only(position([(0, "EG", "c4"), (1, "MI", "f6")]), 0)  # c4 and d5 are seat 1's tiles
    s, _ = run(s, "activate EG")
    e = refused(s, "step d5", 0)
    assert "diagonal off your Home Terrain Tiles" in e.message
    assert refused(s, "step c6", 0).message == "c6 is not next to c4: a step moves one space"


def test_illegal_step_says_where_a_bullrushed_unit_may_go() -> None:
    """Base Camp: enemy blockers are moved "to an adjacent space as though they had Bullrush"."""
    s = only(position([(0, "EG", "base"), (1, "MI", "c1"), (1, "AO", "d1")]), 0)
    s, _ = run(s, "activate EG")
    e = refused(s, "step c1", 0)
    assert e.message.startswith("c1 is held by the Zermano Militia (MI): name the open space to bullrush it to")
    assert refused(s, "step c1 aside d1", 0).message.endswith("d1 is not an open space next to c1 (open: b1, b2, c2, d2)")
    assert refused(s, "step e1", 0).message == "from Base Camp a unit enters on c1 or d1"


def test_shoot_by_a_melee_unit_says_it_is_not_ranged() -> None:
    """Range Attacks: "Ranged Units can use their attack attribute to make melee attacks, or ranged
    attacks from a distance" — only ranged units shoot; a melee unit is told so, not "out of range"."""
    s = only(position([(0, "EG", "c2"), (1, "DW", "c4")]), 0)
    s, _ = run(s, "activate EG")
    e = refused(s, "shoot c4", 0)
    assert e.code == "not_ranged"
    assert e.message == "EG (Elite Gladiator) is not a ranged unit (range 1): use 'attack' on an adjacent enemy"


def test_shoot_out_of_range_says_how_far_along_legal_lines() -> None:
    s = only(position([(0, "BO", "a1"), (1, "DW", "a4"), (1, "MI", "a2")]), 0)
    s, _ = run(s, "activate BO")
    e = refused(s, "shoot a4", 0)
    assert e.code == "illegal_target"
    assert e.message == ("the Zermano Dwarf Warrior (DW) is 3 spaces away along legal lines (diagonals only over your "
                         "Home Terrain Tiles); BO's range is 2")
    assert "is adjacent: a ranged attack reaches 2 or more spaces" in refused(s, "shoot a2", 0).message


def test_not_in_rank_order_says_which_rank_acts_now() -> None:
    """Step 1: "Units with the highest Rank number activate first.\""""
    s = position([(0, "EG", "c2"), (0, "MI", "a1"), (1, "SC", "c5")], p1=0)
    assert s.level == 4 and s.turn == 0
    e = refused(s, "activate MI", 0)
    assert e.code == "not_in_rank_order"
    assert e.message == "MI has rank 1; rank 4 acts now (your rank-4 units to activate: EG)"
    assert refused(s, "activate RS", 0).message.startswith("RS is not recruited")
    s, _ = run(s, "activate EG", "end")
    s, _ = run(s, "activate SC", "end")
    assert refused(s, "activate EG", 0).message == "EG has already activated this round"


def test_melee_on_a_flyer_says_only_flyers_reach_it() -> None:
    """Aerial Units in combat: "While flying, aerial Units can only attack and be attacked by other aerial Units.\""""
    s = only(position([(0, "EG", "c2"), (1, "MP", "c3")]), 0)
    s, _ = run(s, "activate EG")
    e = refused(s, "attack c3", 0)
    assert e.code == "illegal_target" and "is flying: only flying units melee it" in e.message


def test_a_refusal_changes_nothing() -> None:
    s = only(position([(0, "EG", "c2"), (1, "DW", "c3")]), 0)
    s, _ = run(s, "activate EG")
    before = (s.units, s.occ, s.moves_left, s.pk)
    refused(s, "step c3", 0)
    refused(s, "shoot c3", 0)
    assert (s.units, s.occ, s.moves_left, s.pk) == before
    assert s.geo is not None and s.occ[parse_space("c3", s.geo.width, s.geo.height) or 0] == "1:DW"


def test_a_refusal_names_units_as_your_own_or_by_their_faction_never_by_seat_number() -> None:
    """Issue #38 item 3: no sentence names a player as "seat <number>". The rules hear no seat
    names, so a refusal says "your" of the sender's units and names another seat's by its Faction
    (Spells: Mend "targets one of your own units" within its range)."""
    s = only(position([(0, "HE", "a1"), (0, "MI", "a5"), (1, "DW", "b2")], mana=[5, 5],
                      unit_kw={"0:MI": {"damage": 1}}), 0)
    s, _ = run(s, "activate HE")
    mine = refused(s, "use MD a5", 0)
    assert mine.code == "illegal_target"
    assert mine.message == "your Zyan Militia (MI) is 4 spaces away along legal lines; Mend's range is 2"
    theirs = refused(s, "use MD b2", 0)
    assert theirs.message == "Mend targets one of your own units; the Zermano Dwarf Warrior (DW) is an enemy"
    assert "seat" not in mine.message + theirs.message


def test_every_code_the_rules_raise_is_a_listed_refusal_kind() -> None:
    """Issue #38 item 4: a refused command names a reason from the game's list of refusal kinds
    (`refusal_kinds`), each with the rule it names; decide raises no code the list lacks."""
    raised = set(re.findall(r'IllegalCommand\(\s*"(\w+)"', Path(decide_module.__file__).read_text()))
    raised |= set(re.findall(r'_check\(c, [^,]+, "(\w+)"', Path(decide_module.__file__).read_text()))
    assert len(raised) >= 15 and raised <= set(GAME.refusal_kinds), raised - set(GAME.refusal_kinds)
    assert all(rule.strip() for rule in GAME.refusal_kinds.values())
