"""Rank order, tie-breakers, captains, movement, base camp and reinforcement (Steps 1-3, Movement)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.core import Command, IllegalCommand, Rng
from rules.decider import decide
from rules.factions import GAME
from rules.factions.schedule import schedule
from rules.factions.state import State
from tests.factions.helpers import (
    FixedRng,
    position,
    refusal,
    refused,
    run,
    texts,
    tiles_2p,
    unit_at,
)


def test_highest_rank_activates_first() -> None:
    s = position([(0, "MI", "a1"), (1, "IN", "c5")])  # Militia rank 1, Inkanyamba rank 5
    assert (s.level, s.turn) == (5, 1)


def test_rank_tie_printed_example_captain_wins() -> None:
    # Elite Gladiator (rank 4, Captain) against Storm Conjuror (rank 4): Player 1 starts.
    s = position([(0, "EG", "c2"), (1, "SC", "c5")], p1=0)
    assert (s.level, s.turn) == (4, 0)
    assert s.card(s.units["0:EG"]).rank == 4 and s.card(s.units["1:SC"]).rank == 4


def test_rank_tie_more_units_wins_when_captains_equal() -> None:
    s = position([(0, "CJ", "c2"), (0, "MI", "a1"), (1, "SC", "c5")], p1=1)
    assert s.turn == 0


def test_rank_tie_resource_advantage_wins_last() -> None:
    s = position([(0, "CJ", "c2"), (1, "SC", "c5")], p1=0)
    assert s.center_seat == 1 and s.turn == 1
    s = position([(0, "CJ", "c2"), (1, "SC", "c5")], p1=1)
    assert s.turn == 0


def test_units_alternate_within_a_rank() -> None:
    s = position([(0, "MI", "a1"), (0, "AO", "b1"), (1, "MI", "c5")], p1=1)
    order = []
    for _ in range(3):
        seat = s.turn
        code = next(t.split()[1] for t in texts(s, seat) if t.startswith("activate"))
        s, _ = run(s, f"activate {code}", "end")
        order.append(seat)
    assert order == [0, 1, 0]


def test_captain_commands_lower_rank_then_activates_last() -> None:
    s = position([(0, "EG", "c2"), (0, "MI", "a1"), (1, "SC", "c5")], p1=0)
    assert "command EG MI" in texts(s, 0)
    s, _ = run(s, "command EG MI")
    assert s.active == "0:MI" and s.units["0:EG"].commanding
    s, _ = run(s, "step a2", "end")
    assert s.turn == 1  # the Storm Conjuror takes the rank-4 turn
    s, _ = run(s, "activate SC", "end")
    assert s.stage == "captains" and s.turn == 0 and texts(s, 0) == ["activate EG"]
    s, _ = run(s, "activate EG", "end")
    assert s.stage == "reinforce"


def test_captain_in_base_camp_cannot_command() -> None:
    s = position([(0, "EG", "base"), (0, "MI", "a1"), (1, "SC", "c5")], p1=0)
    assert not [t for t in texts(s, 0) if t.startswith("command")]


def test_elite_gladiator_moves_one_of_two() -> None:
    s = position([(0, "EG", "c2"), (1, "MI", "f6")])
    s, _ = run(s, "activate EG", "step c3")
    assert s.moves_left == 1
    s, _ = run(s, "end")
    assert unit_at(s, "c3") is not None and s.units["0:EG"].done


def test_units_may_stay_put() -> None:
    s = position([(0, "EG", "c2"), (1, "MI", "f6")])
    s, _ = run(s, "activate EG", "end")
    assert unit_at(s, "c2") is not None


def test_diagonal_only_on_and_onto_home_tiles() -> None:
    s = position([(0, "RS", "b2"), (1, "MI", "f6")])  # b2 home; c3 is seat 1's tile
    s, _ = run(s, "activate RS")
    opts = texts(s, 0)
    assert "step a1" in opts and "step c1" in opts and "step a3" in opts  # diagonals among home tiles
    assert "step c3" not in opts  # diagonal onto an enemy tile


def test_only_orthogonal_on_enemy_tiles() -> None:
    s = position([(0, "RS", "d4"), (1, "MI", "f6")])
    s, _ = run(s, "activate RS")
    steps = sorted(t for t in texts(s, 0) if t.startswith("step"))
    assert steps == ["step c4", "step d3", "step d5", "step e4"]


def test_units_cannot_move_through_each_other() -> None:
    s = position([(0, "RS", "a1"), (0, "MI", "a2"), (1, "MI", "f6")])
    s, _ = run(s, "activate RS")
    assert "step a2" not in texts(s, 0)
    assert refusal(s, "step a2", 0) == "illegal_step"


def test_water_ends_activation_of_ground_units() -> None:
    tiles = tiles_2p(patterns=["PP/PP", "PP/PP", "PP/PP", "PP/WP", "PP/PP", "PP/PP", "PP/PP", "PP/PP", "PP/PP"])
    s = position([(0, "AC", "a2"), (1, "MI", "f6")], tiles=tiles)
    s, ev = run(s, "activate AC", "step a3")
    assert ev[-1].type == "factions.ActivationEnded" and s.active is None


def test_swiftwing_valkyrie_flies_four_over_water() -> None:
    tiles = tiles_2p(patterns=["PP/PP", "PP/PP", "PP/PP", "WW/WW", "PP/PP", "PP/PP", "WW/WW", "PP/PP", "PP/PP"])
    s = position([(0, "SV", "a2"), (1, "MI", "f6")], tiles=tiles)
    assert s.units["0:SV"].flying and s.card(s.units["0:SV"]).movement == 4
    s, _ = run(s, "activate SV", "step a3", "step a4", "step a5", "step a6")
    assert s.active == "0:SV" and s.moves_left == 0 and unit_at(s, "a6") is not None


def test_take_off_and_land_cost_no_movement() -> None:
    s = position([(0, "SV", "a2"), (1, "MI", "f6")])
    s, _ = run(s, "activate SV", "land")
    assert s.moves_left == 4 and not s.units["0:SV"].flying
    assert "fly" not in texts(s, 0)  # a landed unit stays landed until it activates again


def test_base_camp_unit_must_enter() -> None:
    s = position([(0, "EG", "base"), (1, "MI", "f6")])
    s, _ = run(s, "activate EG")
    assert sorted(texts(s, 0)) == ["step c1", "step d1"]


def test_base_camp_blocked_by_allies_stays() -> None:
    s = position([(0, "EG", "base"), (0, "MI", "c1"), (0, "AO", "d1"), (1, "MI", "f6")])
    s, _ = run(s, "activate EG")
    assert texts(s, 0) == ["end"]


def test_enemy_blocker_is_bullrushed_aside() -> None:
    s = position([(0, "EG", "base"), (0, "AO", "d1"), (1, "MI", "c1")])
    s, _ = run(s, "activate EG")
    assert sorted(texts(s, 0)) == ["step c1 aside b1", "step c1 aside b2", "step c1 aside c2", "step c1 aside d2"]
    s, _ = run(s, "step c1 aside b1")
    assert unit_at(s, "c1").code == "EG" and unit_at(s, "b1").key == "1:MI"  # type: ignore[union-attr]


def test_bullrush_may_place_on_a_diagonal_open_space() -> None:
    """Helpful Terms, BULLRUSH: "Units that are Bullrushed are placed on an adjacent open space."

    Adjacent includes the diagonals: here every orthogonal space around both entry spaces is
    held, and the only open spaces next to the enemy on c1 are diagonal (b2) — the entering unit
    can still come in, where an orthogonal-only reading would keep it in Base Camp (and count
    towards the two-empty-phases loss)."""
    s = position([(0, "EG", "base"), (0, "MI", "b1"), (0, "AO", "c2"), (0, "WA", "e1"), (0, "HE", "e2"),
                  (1, "MI", "c1"), (1, "AO", "d1"), (1, "DW", "d2")])
    s = replace(s, units={k: replace(u, done=k != "0:EG") for k, u in s.units.items()})
    s = schedule(replace(s, level=0, last=-1))
    s, _ = run(s, "activate EG")
    assert sorted(texts(s, 0)) == ["step c1 aside b2"]
    s, _ = run(s, "step c1 aside b2")
    assert unit_at(s, "c1").key == "0:EG" and unit_at(s, "b2").key == "1:MI"  # type: ignore[union-attr]


def test_bullrush_on_the_battleground_places_diagonally_across_any_tiles() -> None:
    """BULLRUSH: "this Unit can move through spaces occupied by other Units. Units that are
    Bullrushed are placed on an adjacent open space" — a placement, not a move of the
    bullrushed unit, so the diagonal need not be on its (or the mover's) Home Terrain Tiles."""
    # c4 is seat 1's tile; the Armored Cavalry bullrushes the Dwarf Warrior off c4.
    s = position([(0, "AC", "c3"), (1, "DW", "c4"), (1, "SC", "b4"), (1, "MP", "d4"), (1, "MI", "c5")], p1=0)
    s = schedule(replace(s, units={k: replace(u, done=u.seat == 1) for k, u in s.units.items()}, level=0, last=-1))
    s, _ = run(s, "activate AC")
    asides = sorted(t for t in texts(s, 0) if t.startswith("step c4 aside"))
    # c3 holds the Cavalry itself; b3 and d3 lie on seat 0's tiles, diagonal from seat 1's c4.
    assert asides == ["step c4 aside b3", "step c4 aside b5", "step c4 aside d3", "step c4 aside d5"]
    s, _ = run(s, "step c4 aside d3")
    assert unit_at(s, "d3").key == "1:DW" and unit_at(s, "c4").key == "0:AC"  # type: ignore[union-attr]


def test_base_camp_units_cannot_be_targeted() -> None:
    s = position([(0, "RS", "base"), (1, "SC", "c3")])
    s, _ = run(s, "activate SC")
    assert not [t for t in texts(s, 1) if t.startswith(("use", "attack", "shoot"))]


def test_recruit_before_activation_higher_rank_goes_first() -> None:
    # Step 3 example: a Rank 4 recruited while Rank 2 units are going activates first.
    s = position([(0, "BO", "a1"), (1, "AR", "f6")], gold=[10, 10], p1=1)
    assert s.level == 2 and s.turn == 0
    s, _ = run(s, "recruit EG")
    assert s.level == 4 and s.turn == 0 and texts(s, 0)[0] == "activate EG"
    assert s.gold[0] == 6


def test_rank_interrupted_by_a_recruit_resumes_alternating() -> None:
    """Step 3: "If you recruited a Unit with a Rank of 4, even if the Units with a Rank of 2 were
    going in the Rank Order, the Units with a Rank of 4 would activate first." Step 1: "Players will
    alternate activating their Units"; Rank Ties: "Tiebreakers only determine which Unit activates
    first. Units then alternate." So when Rank 2 resumes after the recruit's jump, it goes on
    alternating from the seat that activated last, instead of a fresh tie-break that would hand the
    recruiter (now with more Units) a second activation in a row."""
    s = position([(0, "BO", "a1"), (0, "WA", "b1"), (1, "AR", "f6"), (1, "DW", "e6")], p1=1)
    assert s.level == 2 and s.turn == 0  # the Resource Advantage (seat 0) breaks the tie
    s, _ = run(s, "activate BO", "end")
    assert s.turn == 1
    s, _ = run(s, "recruit SC")
    assert s.level == 4 and s.turn == 1
    s, _ = run(s, "activate SC", "step c6", "end")
    # Seat 1 now has more Units (tie-breaker #2), but Rank 2 goes on alternating: seat 0 acts.
    assert s.level == 2 and s.turn == 0
    s, _ = run(s, "activate WA", "end")
    assert s.turn == 1
    s, _ = run(s, "activate AR", "end")
    assert s.turn == 1  # seat 0 has no Rank-2 unit left: seat 1's remaining one follows
    s, _ = run(s, "activate DW", "end")
    assert s.stage == "reinforce"


def test_reinforcement_terrain_player_first_then_recruits_activate() -> None:
    s = position([(0, "MI", "a1"), (1, "MI", "f6")], p1=1, gold=[5, 5])
    while s.stage == "main":
        code = texts(s, s.turn)[0].split()[1]
        s, _ = run(s, f"activate {code}", "end")
    assert s.stage == "reinforce" and s.turn == 1
    s, _ = run(s, "recruit SW", "done")
    assert s.turn == 0
    s, _ = run(s, "done")
    assert s.stage == "fresh" and s.turn == 1 and texts(s, 1) == ["activate SW"]


def test_no_return_to_base_camp() -> None:
    s = position([(0, "EG", "c1"), (1, "MI", "f6")])
    s, _ = run(s, "activate EG")
    assert all("base" not in t for t in texts(s, 0))


def test_loss_after_two_empty_reinforcement_phases() -> None:
    s = position([(0, "MI", "a1")], gold=[0, 0])
    for _ in range(2):
        while s.phase == "play" and s.pk in ("turn", "activation"):
            s, _ = run(s, "activate MI" if s.pk == "turn" else "end")
        while s.phase == "play" and s.pk == "reinforce":
            s, _ = run(s, "done")
    out = GAME.is_over(s)
    assert out is not None and out.winners == (0,) and 1 in s.out


def test_out_of_turn_is_refused_without_change() -> None:
    s = position([(0, "EG", "c2"), (1, "SC", "c5")], p1=0)
    assert refusal(s, "activate SC", 1) == "not_your_turn"
    assert refusal(s, "step c3", 0) == "wrong_prompt"
    assert refusal(s, "activate RS", 0) == "not_in_rank_order"
    with pytest.raises(IllegalCommand) as e:
        decide(GAME, s, Command("factions.activate", {"unit": "EG"}, None), Rng(b""))
    assert e.value.code == "seat_required"
    assert s.turn == 0 and s.active is None


def _three_tied() -> State:
    # Equal Captains (none) and Units (3 each): every shared rank is a tie the die breaks.
    tiles = tuple((k % 3, "PP/PP") for k in range(12))
    return position([(0, "RS", "a1"), (0, "WA", "b1"), (0, "MI", "c1"),
                     (1, "DW", "h6"), (1, "MI", "g6"), (1, "AO", "f6"),
                     (2, "WA", "h1"), (2, "MI", "g1"), (2, "AO", "h2")],
                    factions=("zyan", "zermano", "kragg"), tiles=tiles)


def test_three_player_rank_tie_is_rolled_for_each_tie() -> None:
    """3 and 4 Player Game Setup: "For Rank Ties, if players have the same amount of Units and
    Captains, players roll a six-sided die. The highest numbered roll wins the tiebreaker." Each
    tie gets its own roll (re-rolling only the seats tied on the highest), recorded in
    `RankTieRolled`; then seats alternate clockwise."""
    s = _three_tied()
    assert s.level == 3 and s.turn == 0  # only seat 0 has a Rank 3: no tie
    s, ev = run(s, "activate RS", "end", rng=FixedRng([3, 5, 2]))
    rolled = [e.data for e in ev if e.type == "factions.RankTieRolled"]
    assert rolled == [{"rank": 2, "seats": [0, 1, 2], "rolls": [[3], [5], [2]], "winner": 1}]
    assert s.level == 2 and s.turn == 1
    s, _ = run(s, "activate DW", "end")
    assert s.turn == 2  # then clockwise
    s, _ = run(s, "activate WA", "end")
    assert s.turn == 0
    s, ev = run(s, "activate WA", "end", rng=FixedRng([6, 1, 6, 2, 4]))
    rolled = [e.data for e in ev if e.type == "factions.RankTieRolled"]
    assert rolled == [{"rank": 1, "seats": [0, 1, 2], "rolls": [[6, 2], [1], [6, 4]], "winner": 2}]
    assert s.level == 1 and s.turn == 2


def test_three_player_rank_tie_die_only_after_captains_and_units() -> None:
    """Rank Ties: Captains first, then Units; the die only for seats still equal on both."""
    tiles = tuple((k % 3, "PP/PP") for k in range(12))
    s = position([(0, "MI", "a1"), (0, "AO", "b1"), (1, "MI", "h6"), (1, "AO", "g6"), (2, "MI", "h1")],
                 factions=("zyan", "zermano", "kragg"), tiles=tiles)
    # Seat 2 has fewer Units: only seats 0 and 1 (2 Units each) roll; nobody acts before the die.
    assert s.rolloff == (0, 1) and s.pk == "" and not list(GAME.legal_commands(s, 0))
    s = _three_tied()
    s, ev = run(s, "activate RS", "end", rng=FixedRng([4, 4, 1, 3, 5]))
    rolled = [e.data for e in ev if e.type == "factions.RankTieRolled"]
    assert rolled == [{"rank": 2, "seats": [0, 1, 2], "rolls": [[4, 3], [4, 5], [1]], "winner": 1}]


def test_one_recruit_before_each_activation() -> None:
    """Step 3: "You may recruit a Unit before you activate one of your Units on the Battleground":
    one recruit, then an activation, then perhaps another recruit (issue #38 item 8)."""
    s = position([(0, "BO", "a1"), (0, "WA", "b1"), (1, "AR", "f6"), (1, "DW", "e6")], p1=1, gold=[10, 10])
    assert s.level == 2 and s.turn == 0 and "recruit MI" in texts(s, 0)
    s, _ = run(s, "recruit MI")
    assert s.turn == 0 and not [t for t in texts(s, 0) if t.startswith("recruit")]
    e = refused(s, "recruit AO", 0)
    assert e.code == "one_recruit" and "You may recruit a Unit before you activate one of your Units" in e.message
    assert "activate one of BO, WA first" in e.message
    s, _ = run(s, "activate BO", "end")
    s, _ = run(s, "recruit MI", "activate AR", "end")  # seat 1 recruits once too
    assert s.turn == 0 and "recruit AO" in texts(s, 0)  # seat 0 has activated since its recruit
    s, _ = run(s, "recruit AO")
    assert refusal(s, "recruit HE", 0) == "one_recruit"


def test_rules_version_1_recruits_any_number_before_an_activation() -> None:
    s = position([(0, "BO", "a1"), (1, "AR", "f6")], p1=1, gold=[10, 10], rules=1)
    s, _ = run(s, "recruit MI", "recruit AO")
    assert s.gold[0] == 8 and "recruit HE" in texts(s, 0)


def test_an_entering_unit_moves_an_enemy_aside_only_when_both_entry_spaces_are_blocked() -> None:
    """The Base Camp: "Units must enter the Battleground the same round they were recruited, unless
    other Units are blocking the 2 spaces they can enter. If the spaces are blocked by enemy Units,
    Units entering from the Base Camp can move them to an adjacent space as though they had
    Bullrush." With d1 open, the enemy on c1 stays where it is (issue #38 item 8)."""
    s = position([(0, "EG", "base"), (1, "MI", "c1")])
    s, _ = run(s, "activate EG")
    assert texts(s, 0) == ["step d1"]
    e = refused(s, "step c1 aside b1", 0)
    assert e.code == "illegal_step"
    assert "d1 is open" in e.message and "only when both entry spaces are blocked" in e.message
    assert unit_at(s, "c1").key == "1:MI"  # type: ignore[union-attr]
    # Both blocked (an ally on d1, the enemy on c1): the enemy is moved aside.
    s = position([(0, "EG", "base"), (0, "AO", "d1"), (1, "MI", "c1")])
    s, _ = run(s, "activate EG")
    assert all(t.startswith("step c1 aside") for t in texts(s, 0)) and texts(s, 0)


def test_rules_version_1_entering_unit_may_move_an_enemy_aside_beside_an_open_entry() -> None:
    s = position([(0, "EG", "base"), (1, "MI", "c1")], rules=1)
    s, _ = run(s, "activate EG")
    assert "step d1" in texts(s, 0) and "step c1 aside b1" in texts(s, 0)
