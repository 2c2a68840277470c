"""One test per rule and ability, from hand-built positions."""

from __future__ import annotations

import pytest

from rules.core import Command, Game, IllegalCommand, InvalidCommand, Prompt
from rules.decider import decide
from rules.rite import GAME, engine
from rules.rite.decide import ANSWERS
from rules.rite.emitter import RiteEmitter
from rules.rite.query import defeat_cost, reach
from rules.rite.state import BOARD, CARD, RESERVE

from .helpers import at, board, energy, legal, put, puts, rng, run, started, texts, unit_on

HGU = ("humans", "goblins", "undead")


def idx(s, lab):  # type: ignore[no-untyped-def]
    return s.geo.index[lab]


# --- Turn and energy ----------------------------------------------------------------------------


def test_move_costs_one_energy_per_tile_round_energy_first() -> None:
    s = board()
    s = puts(s, 0, "knight", "a4")
    s = energy(s, 0, round_e=2, reserve_e=3)
    s, _ = run(s, 0, "move a4 d4")
    assert unit_on(s, "d4") == "knight"
    assert (s.players[0].round_e, s.players[0].reserve_e) == (0, 2)


def test_move_through_friendly_but_not_enemy_units() -> None:
    s = board(radius=3)
    s, k = put(s, 0, "knight", "a4")
    s = puts(s, 0, "knight", "b3", "b5", "a5")
    r = reach(s, k, 5)
    assert idx(s, "c4") in r  # through b4? b4 is free; check a wall of enemies instead
    s2 = board()
    s2, k2 = put(s2, 0, "knight", "a4")
    s2 = puts(s2, 1, "fighter", "b3", "b4", "b5")
    s2 = puts(s2, 0, "knight", "a5")
    r2 = reach(s2, k2, 6)
    assert idx(s2, "c4") not in r2 or r2[idx(s2, "c4")][0] > 2
    # passing through the friendly Knight on a5 is allowed
    assert idx(s2, "a6") in r2 and r2[idx(s2, "a6")][0] == 2


def test_one_energy_action_per_turn_then_end() -> None:
    s = board()
    s = puts(s, 0, "knight", "a4", "g4")
    s = puts(s, 1, "fighter", "d1")
    s = energy(s, 0, round_e=5)
    s, _ = run(s, 0, "move a4 b4")
    # nothing free left for the Humans: the turn passed to the Goblins by itself
    assert s.active == 1


def test_pass_then_round_ends_when_everyone_passed_and_order_follows_pass_track() -> None:
    s = board(volcano=False)
    s = energy(s, 0, 0, 0)
    s = energy(s, 1, 0, 0)
    s = puts(s, 1, "fighter", "d1")
    s = energy(s, 1, round_e=1)
    s, _ = run(s, 0, "pass")
    s, _ = run(s, 1, "move d1 e1")
    s, _ = run(s, 1, "pass")
    assert s.round == 2 and s.order == (0, 1) and s.active == 0
    assert all(p.round_e == 2 for p in s.players)


def test_energy_never_exceeds_ten_of_a_kind() -> None:
    s = board(volcano=False)
    s = energy(s, 0, 0, 9, faction_e=8)
    s = energy(s, 1, 0, 0)
    s, _ = run(s, 0, "pass")
    s, _ = run(s, 1, "pass")
    assert s.players[0].reserve_e == 10 and s.players[0].faction_e == 0


def test_round_marker_stops_at_ten() -> None:
    s = at(board(volcano=False), round=10)
    s = energy(s, 0, 0, 0)
    s = energy(s, 1, 0, 0)
    s, _ = run(s, 0, "pass")
    s, _ = run(s, 1, "pass")
    assert s.round == 10 and s.players[0].round_e == 10


def test_out_of_turn_is_refused_without_state_change() -> None:
    s = board()
    with pytest.raises(IllegalCommand) as e:
        run(s, 1, "pass")
    assert e.value.code == "not_your_turn"


# --- Summon -------------------------------------------------------------------------------------


def test_summon_only_on_own_accessible_summoning_tiles_and_from_reserve() -> None:
    s = board(tiles={"a4": ("summon", "humans", 0), "g4": ("summon", "goblins", 0)})
    s = energy(s, 0, round_e=10)
    assert legal(s, 0, "summon knight a4")
    assert not legal(s, 0, "summon knight g4")
    assert not legal(s, 0, "summon angel a4")
    s = puts(s, 0, "cleric", "b3", "c3")  # both Clerics on the board: none in reserve
    assert not legal(s, 0, "summon cleric a4")
    s = puts(s, 0, "knight", "a4")
    assert not legal(s, 0, "summon lightbringer a4")  # one unit per tile


def test_boneyard_summons_a_warrior_and_gives_faction_energy() -> None:
    s = at(board(HGU, tiles={"d4": ("boneyard", "undead", 0)}), active=2)
    s = energy(s, 2, round_e=1)
    s, _ = run(s, 2, "summon warrior d4")
    assert unit_on(s, "d4") == "warrior" and s.players[2].faction_e == 1


# --- Defeat -------------------------------------------------------------------------------------


def test_defeat_cost_backup_surround_and_attacker_excluded() -> None:
    s = board()
    s, t = put(s, 1, "firebringer", "d4")
    s = puts(s, 1, "fighter", "e4", "e3")  # backup 2
    s, a = put(s, 0, "knight", "c4")
    s = puts(s, 0, "knight", "d5")  # surround 1
    assert defeat_cost(s, t, 0, a) == 2 + 2 - 1


def test_defeat_cost_never_below_zero() -> None:
    """"spending an amount of energy equal to the enemy unit's cost + 1 energy for every unit of
    the same enemy adjacent to it ... - 1 energy for every unit of the active player's faction
    adjacent to it" (Turn: Defeat a unit): 1 + 0 - 3 is no energy, not a refund. (The turn's
    one action even so: tests/rite/test_fidelity.py.)"""
    s = board()
    s, t = put(s, 1, "fighter", "d4")
    s, a = put(s, 0, "knight", "c4")
    s = puts(s, 0, "knight", "d5", "e4", "e3")
    assert defeat_cost(s, t, 0, a) == 0


def test_defeat_own_unit_ignores_backup_and_surround() -> None:
    s = board()
    s, t = put(s, 0, "lightbringer", "d4")
    s = puts(s, 0, "knight", "e4", "e3")
    s = puts(s, 1, "fighter", "c4")
    assert defeat_cost(s, t, 0, -1) == 2
    s = energy(s, 0, round_e=2)
    s, _ = run(s, 0, "defeat d4")
    assert unit_on(s, "d4") == ""


def test_banner_gives_plus_one_backup() -> None:
    s = board(tiles={"e4": ("banner", "humans", 0)})
    s, t = put(s, 0, "knight", "d4")
    s, a = put(s, 1, "fighter", "c4")
    assert defeat_cost(s, t, 1, a) == 1 + 1


def test_barrier_plus_two_and_divine_shield_plus_five() -> None:
    s = board()
    s, knight = put(s, 0, "knight", "d4")
    s, _cleric = put(s, 0, "cleric", "e4")
    s, a = put(s, 1, "fighter", "c4")
    assert defeat_cost(s, knight, 1, a) == 1 + 1 + 2  # backup from the Cleric, Barrier
    s, _ = put(s, 0, "angel", "d5")
    assert defeat_cost(s, knight, 1, a) == 1 + 2 + 2 + 5


def test_commanders_cost_ten_and_death_cannot_be_defeated() -> None:
    s = board(HGU)
    s, _death = put(s, 2, "death", "d4")
    s = puts(s, 0, "knight", "c4")
    s = energy(s, 0, 10, 10)
    assert not legal(s, 0, "defeat d4 from c4")
    s2 = board()
    s2, angel = put(s2, 0, "angel", "d4")
    s2, a = put(s2, 1, "fighter", "c4")
    assert defeat_cost(s2, angel, 1, a) == 10 + 5


def test_intelligent_needs_three_non_adjacent_units_of_one_player() -> None:
    s = at(board(), active=0)
    s = puts(s, 1, "wyrmling", "d4")
    s = puts(s, 0, "knight", "e4", "d3")  # e4 and d3 are not adjacent
    s = energy(s, 0, 10, 10)
    assert not legal(s, 0, "defeat d4 from e4")
    s = puts(s, 0, "knight", "c5")  # e4, d3, c5: pairwise apart
    assert legal(s, 0, "defeat d4 from e4")


def test_taunt_only_the_knight_may_be_defeated_and_no_moves() -> None:
    s = at(board(), active=1)
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 0, "lightbringer", "c5")
    s = puts(s, 1, "fighter", "c4")  # next to both the Knight and the Light Bringer
    s = energy(s, 1, 10, 0)
    assert legal(s, 1, "defeat d4 from c4")
    assert not legal(s, 1, "defeat c5 from c4")
    assert not any(t.startswith("move c4") for t in texts(s, 1))


def test_two_knights_either_may_be_defeated() -> None:
    s = at(board(), active=1)
    s = puts(s, 0, "knight", "d4", "b5")
    s = puts(s, 1, "fighter", "c4")
    s = energy(s, 1, 10, 0)
    assert legal(s, 1, "defeat d4 from c4") and legal(s, 1, "defeat b5 from c4")


def test_remove_rock_costs_one_and_needs_a_friendly_unit_next_to_it() -> None:
    s = at(board(), rocks=frozenset({26}))
    lab = s.geo.labels[26]
    s = energy(s, 0, 1)
    assert not legal(s, 0, f"rock {lab}")
    s = puts(s, 0, "knight", s.geo.labels[s.geo.nbr[26][0]])
    s, _ = run(s, 0, f"rock {lab}")
    assert 26 not in s.rocks and s.players[0].round_e == 0


# --- Goblin abilities ---------------------------------------------------------------------------


def test_slippery_fighter_passes_inaccessible_tiles_but_ends_on_accessible() -> None:
    s = board(tiles={"c4": ("earth", "", 0)})
    s, f = put(s, 1, "fighter", "b4")
    s = puts(s, 0, "knight", "a3") if False else s
    r = reach(s, f, 2)
    assert idx(s, "d4") in r and r[idx(s, "d4")][0] == 2
    assert idx(s, "c4") not in r


def test_tunnels_are_adjacent_for_goblin_units_only() -> None:
    s = board(tiles={"a4": ("tunnel", "goblins", 0), "g4": ("tunnel", "goblins", 0)})
    s, f = put(s, 1, "firebringer", "a4")
    s, k = put(s, 0, "knight", "a7")
    s, _ = put(s, 0, "knight", "g1")
    assert idx(s, "g4") in reach(s, f, 1)
    s = at(s, kinds=tuple("tunnel" if i == idx(s, "a7") else k for i, k in enumerate(s.kinds)))
    assert idx(s, "g4") not in reach(s, k, 1)  # a Human unit on a tunnel gets no shortcut


def test_breathe_fire_defeats_non_commanders_in_line_and_gains_rage() -> None:
    s = at(board(), active=1)
    s = puts(s, 1, "wyrmling", "a4")
    s = puts(s, 0, "knight", "b4", "d4")
    s = puts(s, 0, "angel", "c4")
    s = energy(s, 1, 3, 0)
    s, _ = run(s, 1, "breathe d4")
    assert unit_on(s, "b4") == "" and unit_on(s, "d4") == "" and unit_on(s, "c4") == "angel"
    assert s.players[1].rage == 2 and s.players[1].round_e == 0


def test_rage_adds_energy_only_when_at_least_one_energy_is_spent() -> None:
    s = at(board(), active=1)
    s = puts(s, 1, "wyrmling", "a4")
    s = puts(s, 0, "knight", "d4")
    s = energy(s, 1, 0, 0, rage=5)
    assert not legal(s, 1, "breathe d4")
    s = energy(s, 1, 1, 0, rage=5)
    s, _ = run(s, 1, "breathe d4")
    assert s.players[1].rage == 5 - 2 + 1


def test_goblins_gain_faction_energy_per_defeat_two_for_own_unit() -> None:
    s = at(board(), active=1)
    s = puts(s, 1, "fighter", "d4")
    s = energy(s, 1, 2, 0)
    s, _ = run(s, 1, "defeat d4")
    assert s.players[1].faction_e == 2


def test_firebringer_on_reborn_card_when_defeated_and_summonable() -> None:
    s = at(board(tiles={"a4": ("summon", "goblins", 0)}), active=1)
    s = puts(s, 1, "firebringer", "d4")
    s = energy(s, 1, 4, 0, level=10)
    s, _ = run(s, 1, "defeat d4")
    assert sum(1 for u in s.units if u.kind == "firebringer" and u.where == CARD) == 1
    s = at(s, active=1, actions=0)
    s, _ = run(s, 1, "summon firebringer a4")
    assert unit_on(s, "a4") == "firebringer"


# --- Human abilities ----------------------------------------------------------------------------


def test_fly_can_swap_with_an_adjacent_friendly_unit() -> None:
    s = board()
    s = puts(s, 0, "angel", "d4")
    s = puts(s, 0, "knight", "e4")
    s = energy(s, 0, 1)
    s, _ = run(s, 0, "fly d4 e4")
    assert unit_on(s, "e4") == "angel" and unit_on(s, "d4") == "knight"


# --- Undead abilities ---------------------------------------------------------------------------


def test_rise_again_places_a_warrior_on_the_defeated_enemy_tile() -> None:
    s = at(board(HGU), active=1)
    s = puts(s, 2, "necromancer", "a4")
    s = puts(s, 0, "knight", "d4")
    s = energy(s, 1, 1, 0)
    s = puts(s, 1, "fighter", "c4")
    s, _ = run(s, 1, "defeat d4 from c4")
    assert s.mode == "react" and s.prompt is not None and s.prompt.seats == (2,)
    assert texts(s, 2) == ["choose rise:d4", "choose done"]
    s, _ = run(s, 2, "choose rise:d4")
    assert unit_on(s, "d4") == "warrior" and s.players[2].faction_e == 1


def test_soul_reaper_moves_death_and_is_not_optional() -> None:
    s = at(board(HGU), active=1)
    s = puts(s, 2, "death", "a4")
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 1, "fighter", "c4")
    s = energy(s, 1, 1, 0)
    s, _ = run(s, 1, "defeat d4 from c4")
    assert texts(s, 2) == ["choose reap:d4"]
    s, _ = run(s, 2, "choose reap:d4")
    assert unit_on(s, "d4") == "death" and s.mode == "turn" and s.active == 2


def test_death_presence_once_per_round() -> None:
    s = at(board(HGU), active=2)
    s = puts(s, 2, "death", "d4")
    s = puts(s, 0, "knight", "e4", "c4")
    s = puts(s, 0, "angel", "d5")
    s, _ = run(s, 2, "presence")
    s = at(s, mode="turn", reacts=())
    assert unit_on(s, "d5") == "angel" and unit_on(s, "e4") in ("", "death") and unit_on(s, "c4") in ("", "death")
    assert "presence" in s.rflags
    s = puts(s, 0, "knight", "d3")
    assert not legal(s, 2, "presence")


def test_runes_activated_when_undead_defeat_with_necromancer_on_rune() -> None:
    s = at(board(HGU, tiles={"a4": ("rune", "undead", 0), "g4": ("rune", "undead", 0)}), active=2)
    s = puts(s, 2, "necromancer", "a4")
    s = puts(s, 2, "warrior", "c4")
    s = puts(s, 0, "knight", "d4")
    s = energy(s, 2, 5, 0)
    s, _ = run(s, 2, "defeat d4 from c4")
    assert idx(s, "a4") in s.activated and idx(s, "g4") not in s.activated


def test_undead_win_when_all_runes_are_active() -> None:
    s = at(board(HGU, tiles={"a4": ("rune", "undead", 0)}), active=2)
    s = puts(s, 2, "necromancer", "a4")
    s = puts(s, 2, "warrior", "c4")
    s = puts(s, 0, "knight", "d4")
    s = energy(s, 2, 5, 0)
    s, _ = run(s, 2, "defeat d4 from c4")
    out = GAME.is_over(s)
    assert out is not None and out.winners == (2,)


def test_goblins_win_when_all_beacons_burn() -> None:
    s = at(board(tiles={"d4": ("beacon", "goblins", 0)}), active=1)
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 1, "sorcerer", "b4")
    s = energy(s, 1, 3, 0)
    s, _ = run(s, 1, "fireball b4 d4")
    s, _ = run(s, 1, "pay x2 y1")
    assert s.phase == "over" and s.winner == 1


def test_a_normal_defeat_on_a_beacon_does_not_light_it() -> None:
    s = at(board(tiles={"d4": ("beacon", "goblins", 0)}), active=1)
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 1, "sorcerer", "c4")
    s = energy(s, 1, 3, 0)
    s, _ = run(s, 1, "defeat d4 from c4")
    assert idx(s, "d4") not in s.activated


# --- End of round -------------------------------------------------------------------------------


def _end_round(s):  # type: ignore[no-untyped-def]
    s = energy(s, 0, 0, s.players[0].reserve_e, faction_e=s.players[0].faction_e)
    s = energy(s, 1, 0, s.players[1].reserve_e, faction_e=s.players[1].faction_e)
    s, _ = run(s, 0, "pass")
    s, _ = run(s, 1, "pass")
    return s


def test_shrine_activates_at_end_of_round_and_humans_win() -> None:
    s = board(tiles={"d4": ("shrine", "humans", 0)}, volcano=False)
    s = puts(s, 0, "cleric", "d4")
    s = puts(s, 0, "knight", "e4", "c4", "d5")
    s = _end_round(s)
    assert s.phase == "over" and s.winner == 0


def test_shrine_needs_three_adjacent_units() -> None:
    s = board(tiles={"d4": ("shrine", "humans", 0), "a4": ("shrine", "humans", 0)}, volcano=False)
    s = puts(s, 0, "cleric", "d4")
    s = puts(s, 0, "knight", "e4", "c4")
    s = _end_round(s)
    assert idx(s, "d4") not in s.activated


def test_bringers_and_activated_shrines_give_faction_energy() -> None:
    s = board(tiles={"d4": ("shrine", "humans", 0), "a4": ("shrine", "humans", 0)}, volcano=False)
    s = at(s, activated=frozenset({idx(s, "d4")}))
    s = puts(s, 0, "lightbringer", "e4", "g4")  # e4 next to the shrine: 1 + 1 + 1
    s = puts(s, 1, "firebringer", "a7")
    s = _end_round(s)
    assert s.players[0].reserve_e == 3 and s.players[1].reserve_e == 1


def test_powers_unlock_at_five_energy_and_slots_count() -> None:
    s = board(volcano=False)
    s = energy(s, 0, 0, 4)
    s = _end_round(s)  # round 2 + reserve 4 = 6
    assert s.players[0].level == 5
    from rules.rite.powers import slots_left

    assert slots_left(s, 0, 0) == 1 and slots_left(s, 0, 1) == 0


def test_rite_of_summoning_places_the_angel() -> None:
    s = board(tiles={"d4": ("shrine", "humans", 0)})
    s = at(s, activated=frozenset({idx(s, "d4")}))
    s = puts(s, 0, "lightbringer", "e4", "c4", "d5")
    s = puts(s, 0, "knight", "a4")
    s = puts(s, 1, "fighter", "g4")
    s = energy(s, 0, 3)
    s, _ = run(s, 0, "summon lightbringer d3") if False else (s, [])
    s = puts(s, 0, "lightbringer", "e3")
    s, _ = run(s, 0, "move a4 b4")
    assert unit_on(s, "d4") == "angel"


def test_rite_of_power_unlocks_all_powers() -> None:
    s = board(tiles={"d4": ("shrine", "humans", 0), "a4": ("shrine", "humans", 0)})
    s = puts(s, 0, "angel", "d4")
    s = puts(s, 0, "lightbringer", "a4")
    s = puts(s, 0, "knight", "g4")
    s = energy(s, 0, 1)
    s, _ = run(s, 0, "move g4 f4")
    assert s.players[0].level == 20


# --- Volcano (steps driven with a set die) ------------------------------------------------------


def _step(s, step, die):  # type: ignore[no-untyped-def]
    c = RiteEmitter(at(s, die=die), rng())
    getattr(engine, step)(c)
    return c.s


def test_firefly_tile_summons_then_moves_to_closest_enemy() -> None:
    s = board(tiles={"a4": ("firefly", "", 3)})
    s = _step(s, "firefly_step", 3)
    assert unit_on(s, "a4") == "firefly"
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 1, "fighter", "g4")
    s = _step(s, "firefly_step", 3)
    assert unit_on(s, "a4") == "" and unit_on(s, "d4") == ""
    assert unit_on(s, "g4") == "fighter"


def test_firefly_defeats_unit_standing_on_its_tile() -> None:
    s = board(tiles={"a4": ("firefly", "", 2)})
    s = puts(s, 0, "knight", "a4")
    s = _step(s, "firefly_step", 2)
    assert unit_on(s, "a4") == ""


def test_firefly_tie_first_in_turn_order_then_owner_chooses() -> None:
    s = board(tiles={"d4": ("firefly", "", 1)})
    s = puts(s, -1, "firefly", "d4")
    s = puts(s, 0, "knight", "b4", "f4")
    s = puts(s, 1, "fighter", "d2")
    s = _step(s, "firefly_step", 1)
    assert s.mode == "firefly" and s.prompt is not None and s.prompt.seats == (0,)


def test_fire_tokens_are_inaccessible_to_fireflies() -> None:
    s = board(tiles={"a4": ("firefly", "", 1)})
    s = puts(s, -1, "firefly", "a4")
    s = at(s, fire=frozenset({idx(s, "b4"), idx(s, "b3"), idx(s, "a5")}))
    s = puts(s, 0, "knight", "c4")
    s = _step(s, "firefly_step", 1)
    assert unit_on(s, "c4") == "knight"


def test_earth_elemental_defeats_then_places_rock_then_shatters() -> None:
    s = board(HGU, tiles={"d4": ("earth", "", 0)})
    s = puts(s, 2, "necromancer", "a4")
    s = puts(s, 0, "knight", "e4")  # side 1 with rotation 0 points east (e4)
    s = _step(s, "earth_step", 1)
    assert unit_on(s, "e4") == "" and idx(s, "e4") in s.rocks
    assert s.reacts == ()  # rock defeats do not trigger Rise Again
    s = puts(s, 0, "knight", "f4")
    s = _step(s, "earth_step", 1)
    assert idx(s, "e4") not in s.rocks and unit_on(s, "f4") == ""


def test_fire_elemental_line_range_is_the_round() -> None:
    s = at(board(tiles={"a4": ("fire", "", 0)}), round=2)
    s = puts(s, 0, "knight", "b4", "c4", "d4")
    s = _step(s, "fire_step", 1)
    assert unit_on(s, "b4") == "" and unit_on(s, "c4") == "" and unit_on(s, "d4") == "knight"


def test_firelord_range_is_half_the_die_and_commanders_are_immune() -> None:
    s = board(firelord=True)
    s = puts(s, 0, "knight", "e4", "f4", "g4")
    s = puts(s, 0, "angel", "c4")
    s = at(s, kinds=s.kinds)
    c = RiteEmitter(at(s, die=5), rng())
    engine.run_step(c, "v_firelord")
    s = c.s
    assert unit_on(s, "e4") == "" and unit_on(s, "f4") == "" and unit_on(s, "g4") == "knight"
    assert unit_on(s, "c4") == "angel"


def test_volcano_die_is_rolled_and_recorded() -> None:
    s = board()
    s = energy(s, 0, 0, 0)
    s = energy(s, 1, 0, 0)
    s, _ = run(s, 0, "pass")
    s, evs = run(s, 1, "pass")
    rolled = [e for e in evs if e.type == "rite.VolcanoRolled"]
    assert len(rolled) == 1 and 1 <= rolled[0].data["die"] <= 6 and s.history == (rolled[0].data["die"],)


# --- Powers -------------------------------------------------------------------------------------


def test_frenzy_gives_two_actions_this_round() -> None:
    s = at(board(), active=1)
    s = puts(s, 1, "fighter", "a4")
    s = energy(s, 1, 5, 0, level=15)
    s, _ = run(s, 1, "power frenzy")
    s, _ = run(s, 1, "move a4 b4")
    assert s.active == 1
    s, _ = run(s, 1, "move b4 c4")
    assert s.active == 0


def test_each_power_once_per_turn() -> None:
    s = at(board(HGU, tiles={"a4": ("rune", "undead", 0), "g4": ("rune", "undead", 0)}), active=2)
    s = energy(s, 2, 5, 0, level=20)
    s, _ = run(s, 2, "power runes")
    assert unit_on(s, "a4") == "warrior" and unit_on(s, "g4") == "warrior" and s.players[2].faction_e == 2
    assert not legal(s, 2, "power runes")


def test_sacred_grounds_protects_units_by_shrines_from_the_volcano() -> None:
    s = board(tiles={"d4": ("shrine", "humans", 0), "a4": ("fire", "", 0)})
    s = puts(s, 0, "knight", "c4", "b4")
    s = energy(s, 0, 1, 0, level=15)
    s, _ = run(s, 0, "power sacred")
    s = _step(at(s, round=3), "fire_step", 1)
    assert unit_on(s, "c4") == "knight" and unit_on(s, "b4") == ""


def test_ascent_replaces_light_bringers_with_angels() -> None:
    s = board()
    s = puts(s, 0, "lightbringer", "a4", "g4")
    s = energy(s, 0, 1, 0, level=20)
    s, _ = run(s, 0, "power ascent")
    assert unit_on(s, "a4") == "angel" and unit_on(s, "g4") == "angel"


def test_pilgrimage_moves_a_light_bringer_to_a_shrine() -> None:
    s = board(tiles={"g4": ("shrine", "humans", 0)})
    s = puts(s, 0, "lightbringer", "a4")
    s = energy(s, 0, 0, 0, level=10)
    s, _ = run(s, 0, "power pilgrimage a4 g4")
    assert unit_on(s, "g4") == "lightbringer"


def test_rally_moves_up_to_two_units_next_to_the_chosen_unit() -> None:
    s = board()
    s = puts(s, 0, "knight", "a4", "g4", "d1")
    s = energy(s, 0, 0, 0, level=5)
    s, _ = run(s, 0, "power rally d1")
    s, _ = run(s, 0, "choose a4-d2")
    s, _ = run(s, 0, "choose g4-e1")
    assert unit_on(s, "d2") == "knight" and unit_on(s, "e1") == "knight" and s.mode == "turn"


def test_sign_of_the_dragon_and_lasting_flames() -> None:
    s = at(board(), active=1)
    s = puts(s, 0, "knight", "a4", "d1")
    s = puts(s, 0, "angel", "g4")
    s = energy(s, 1, 0, 0, level=20)
    s, _ = run(s, 1, "power sign row:4 col:d flames")
    assert unit_on(s, "a4") == "" and unit_on(s, "d1") == "" and unit_on(s, "g4") == "angel"
    assert idx(s, "b4") in s.fire and idx(s, "d7") in s.fire


def test_undying_and_runes_of_power() -> None:
    s = at(board(HGU, tiles={"a4": ("rune", "undead", 0), "g4": ("rune", "undead", 0)}), active=2)
    s = puts(s, 2, "deathbringer", "a4")
    s = energy(s, 2, 2, 0, level=15)
    s, _ = run(s, 2, "defeat a4")
    assert sum(1 for u in s.units if u.kind == "deathbringer" and u.where == CARD) == 1
    s = at(s, active=2, actions=0, mode="turn")
    s, _ = run(s, 2, "power undying")
    s, _ = run(s, 2, "choose g4")
    assert unit_on(s, "g4") == "deathbringer"
    s, _ = run(s, 2, "power rpower")
    s, _ = run(s, 2, "choose g4")
    assert unit_on(s, "g4") == "necromancer"


def test_those_who_came_before_summons_anywhere_free() -> None:
    s = at(board(HGU), active=2)
    s = energy(s, 2, 0, 0, level=20)
    s, _ = run(s, 2, "power ancestors")
    s, _ = run(s, 2, "choose necromancer@d4")
    s, _ = run(s, 2, "choose warrior@e4")
    s, _ = run(s, 2, "choose done")
    assert unit_on(s, "d4") == "necromancer" and unit_on(s, "e4") == "warrior"
    assert s.players[2].faction_e == 1


def test_reborn_in_flames_places_fire_bringers_on_lit_beacons() -> None:
    s = at(board(tiles={"d4": ("beacon", "goblins", 0), "a4": ("beacon", "goblins", 0)}), active=1)
    s = at(s, activated=frozenset({idx(s, "d4")}))
    s, fb = put(s, 1, "firebringer", "g4")
    units = list(s.units)
    from dataclasses import replace

    units[fb] = replace(units[fb], tiles=(), where=CARD)
    occ = list(s.occ)
    occ[idx(s, "g4")] = -1
    s = at(s, units=tuple(units), occ=tuple(occ))
    s = energy(s, 1, 0, 0, level=10)
    s, _ = run(s, 1, "power reborn")
    assert [t for t in texts(s, 1)] == ["choose d4", "choose done"]
    s, _ = run(s, 1, "choose d4")
    assert unit_on(s, "d4") == "firebringer"


def test_fire_token_defeats_a_unit_that_enters_it() -> None:
    s = board()
    s = at(s, fire=frozenset({idx(s, "b4")}))
    s = puts(s, 0, "knight", "a4")
    s = energy(s, 0, 1)
    s, _ = run(s, 0, "move a4 b4")
    assert unit_on(s, "b4") == "" and idx(s, "b4") not in s.fire
    assert s.players[1].faction_e == 1  # defeated by the Goblins


def test_reserve_and_board_bookkeeping() -> None:
    s = board()
    n = sum(1 for u in s.units if u.owner == 0 and u.where == RESERVE)
    s = puts(s, 0, "knight", "a4")
    assert sum(1 for u in s.units if u.owner == 0 and u.where == RESERVE) == n - 1
    assert sum(1 for u in s.units if u.where == BOARD) == 1


def test_simultaneous_earth_elementals_are_ordered_by_the_first_player() -> None:
    # rules version 2 asks whatever the orders lead to (version 3: test_rulebook_third_pass.py)
    s = board(tiles={"c4": ("earth", "", 0), "e4": ("earth", "", 3)}, rules=2)  # both side 1 point at d4
    s = puts(s, 0, "knight", "d5")
    s = at(s, order=(1, 0))
    s = _step(s, "earth_step", 1)
    assert s.mode == "order" and s.prompt is not None and s.prompt.seats == (1,)
    assert texts(s, 1) == ["choose c4", "choose e4"]
    s = at(s, queue=("newround",))
    s, _ = run(s, 1, "choose c4")  # c4 drops a rock on d4, then e4 shatters it
    assert idx(s, "d4") not in s.rocks and unit_on(s, "d5") == ""


def test_bring_death_gives_the_undead_faction_energy() -> None:
    s = board(HGU, volcano=False)
    s = puts(s, 2, "deathbringer", "a4", "g4")
    for seat in range(3):
        s = energy(s, seat, 0, 0)
    for seat in range(3):
        s, _ = run(s, seat, "pass")
    assert s.players[2].reserve_e == 2


def test_rite_of_summoning_wyrmling_and_death() -> None:
    s = board(HGU, tiles={"e3": ("beacon", "goblins", 0), "b5": ("rune", "undead", 0)})
    s = at(s, activated=frozenset({idx(s, "e3"), idx(s, "b5")}), active=1)
    s = puts(s, 1, "firebringer", "f3", "f2", "e2", "d3")
    s = puts(s, 2, "deathbringer", "c5", "b4", "a5", "a6")
    s = puts(s, 1, "fighter", "g1")
    s = energy(s, 1, 1)
    s, _ = run(s, 1, "move g1 f1")
    assert unit_on(s, "e3") == "wyrmling" and unit_on(s, "b5") == "death"


def test_only_one_angel_through_the_rite_of_summoning() -> None:
    s = board(tiles={"d4": ("shrine", "humans", 0)})
    s = at(s, activated=frozenset({idx(s, "d4")}), rites=frozenset({"summon:humans"}))
    s = puts(s, 0, "lightbringer", "e4", "c4", "d5", "e3")
    s = puts(s, 0, "knight", "a4")
    s = energy(s, 0, 1)
    s, _ = run(s, 0, "move a4 b4")
    assert unit_on(s, "d4") == ""


def test_wyrmling_defeat_uses_rage_and_gains_rage() -> None:
    s = at(board(), active=1)
    s = puts(s, 1, "wyrmling", "c4")
    s = puts(s, 0, "cleric", "d4")
    s = energy(s, 1, 1, 0, rage=6)
    s, _ = run(s, 1, "defeat d4 from c4")  # 3 + 2 (Barrier) = 5: 1 energy + 4 rage
    assert unit_on(s, "d4") == "" and s.players[1].rage == 6 - 4 + 1


def test_deaths_presence_defeats_trigger_soul_reaper() -> None:
    s = at(board(HGU), active=2)
    s = puts(s, 2, "death", "d4")
    s = puts(s, 0, "knight", "e4")
    s, _ = run(s, 2, "presence")
    assert s.mode == "react" and texts(s, 2) == ["choose reap:e4"]
    s, _ = run(s, 2, "choose reap:e4")
    assert unit_on(s, "e4") == "death" and s.mode == "turn"


def test_explicit_move_path_must_be_possible_step_by_step() -> None:
    s = board()
    s = puts(s, 0, "knight", "a4", "b4")
    s = puts(s, 1, "fighter", "b5")
    s = energy(s, 0, 3)
    with pytest.raises(IllegalCommand):
        run(s, 0, "move a4 b5 c5")  # through an enemy unit
    with pytest.raises(IllegalCommand):
        run(s, 0, "move a4 c4 e4")  # steps must be adjacent
    s2, _ = run(s, 0, "move a4 b4 c4 d4")  # through the friendly Knight on b4
    assert unit_on(s2, "d4") == "knight" and s2.players[0].round_e == 0


def test_image_13_the_first_to_pass_goes_first_next_round() -> None:
    s = board(HGU, volcano=False)
    s = puts(s, 0, "knight", "a4")
    s = puts(s, 1, "fighter", "g4")
    s = energy(s, 0, 2, 0)
    s = energy(s, 1, 1, 0)
    s = energy(s, 2, 0, 0)
    s, _ = run(s, 0, "move a4 b4")
    s, _ = run(s, 1, "move g4 f4")
    s, _ = run(s, 2, "pass")  # the Undead pass first
    s, _ = run(s, 0, "pass")
    s, _ = run(s, 1, "pass")
    assert s.order == (2, 0, 1) and s.active == 2


def test_note_taunt_does_not_stop_rise_again() -> None:
    s = at(board(HGU), active=1)
    s = puts(s, 2, "necromancer", "c4")
    s = puts(s, 0, "knight", "d4")  # next to the Necromancer: Taunt
    s = puts(s, 0, "knight", "f4")
    s = puts(s, 1, "fighter", "g4")
    s = energy(s, 1, 1, 0)
    s, _ = run(s, 1, "defeat f4 from g4")
    assert "choose rise:f4" in texts(s, 2)


def test_note_firefly_strike_triggers_rise_again_and_soul_reaper() -> None:
    s = board(HGU, tiles={"a4": ("firefly", "", 1)})
    s = puts(s, -1, "firefly", "a4")
    s = puts(s, 0, "knight", "c4")
    s = puts(s, 2, "necromancer", "e4")
    s = puts(s, 2, "death", "g4")
    s = _step(s, "firefly_step", 1)
    assert unit_on(s, "c4") == "" and unit_on(s, "a4") == ""
    assert s.reacts == (idx(s, "c4"),)


def test_note_sacred_grounds_fire_token_by_a_shrine_is_removed_without_defeat() -> None:
    s = board(tiles={"d4": ("shrine", "humans", 0)})
    s = at(s, fire=frozenset({idx(s, "e4")}), rflags=frozenset({"sacred"}))
    s = puts(s, 0, "knight", "f4")
    s = energy(s, 0, 1)
    s, _ = run(s, 0, "move f4 e4")
    assert unit_on(s, "e4") == "knight" and idx(s, "e4") not in s.fire


def test_note_death_bringers_on_the_undying_card_can_be_summoned() -> None:
    s = at(board(HGU, tiles={"a4": ("summon", "undead", 0)}), active=2)
    s = puts(s, 2, "deathbringer", "d4", "e4", "f4", "g4")
    s = energy(s, 2, 4, 0, level=10)
    s, _ = run(s, 2, "defeat d4")
    assert sum(1 for u in s.units if u.kind == "deathbringer" and u.where == CARD) == 1
    s = at(s, active=2, actions=0, mode="turn")
    s, _ = run(s, 2, "summon deathbringer a4")
    assert unit_on(s, "a4") == "deathbringer"


# --- the contract and bad input ------------------------------------------------------------------


def test_game_satisfies_protocol() -> None:
    assert isinstance(GAME, Game)
    assert GAME.name == "rite" and GAME.min_seats == 2 and GAME.max_seats == 5
    assert "rite.move" in GAME.command_types


def test_bad_input_is_refused_and_changes_nothing() -> None:
    s = started({})
    before = s
    with pytest.raises(InvalidCommand):
        decide(GAME, s, Command("rite.fly", {"from": "zz"}, 0), rng())
    with pytest.raises(InvalidCommand):
        decide(GAME, s, Command("rite.teleport", {}, 0), rng())
    with pytest.raises(InvalidCommand):
        GAME.parse_command("rite.summon", {"unit": 3, "at": "c4"}, 0)
    with pytest.raises(InvalidCommand):
        GAME.parse_text("summon knight", 0)
    with pytest.raises(IllegalCommand) as e:
        decide(GAME, s, GAME.parse_text("pass", 1), rng())
    assert e.value.code == "not_your_turn"
    with pytest.raises(IllegalCommand) as e:
        decide(GAME, s, GAME.parse_text("summon angel a4", 0), rng())
    assert e.value.code == "bad_unit"
    assert e.value.message == "you cannot summon 'angel': the Humans summon knight, lightbringer or cleric"
    with pytest.raises(IllegalCommand) as e:
        decide(GAME, s, GAME.parse_text("pay x1 y1", 0), rng())
    assert e.value.code == "wrong_prompt"
    assert s == before


def test_not_enough_energy() -> None:
    s = board(tiles={"a4": ("summon", "humans", 0)})
    s = energy(s, 0, 1, 0)
    with pytest.raises(IllegalCommand) as e:
        run(s, 0, "summon cleric a4")
    assert e.value.code == "not_enough_energy"


def test_the_platform_refuses_what_the_rules_need_not_look_at() -> None:
    s = started({})
    with pytest.raises(IllegalCommand) as e:
        decide(GAME, s, Command("rite.pass", {}, None), rng())
    assert e.value.code == "seat_required"
    with pytest.raises(IllegalCommand) as e:
        decide(GAME, s, Command("rite.choose", {"option": "done"}, 0), rng())
    assert e.value.code == "wrong_prompt"
    over = at(s, phase="over", mode="over", winner=0, reason="test")
    with pytest.raises(IllegalCommand) as e:
        decide(GAME, over, Command("rite.pass", {}, 0), rng())
    assert e.value.code == "game_over"


def test_every_command_type_answers_some_prompt_and_an_unknown_prompt_takes_none() -> None:
    kinds = list(ANSWERS)
    assert set().union(*(GAME.answers(Prompt((0,), k)) for k in kinds)) == GAME.command_types
    assert GAME.answers(Prompt((0,), "turn")) >= {"rite.move", "rite.thought", "rite.umove", "rite.pass"}
    assert GAME.answers(Prompt((0,), "no_such_prompt")) == frozenset()
