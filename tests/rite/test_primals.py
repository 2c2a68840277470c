"""The Primals: one test per rule, ability, power and note, from hand-built positions."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from rules.core import IllegalCommand
from rules.decider import decide
from rules.rite import GAME, engine
from rules.rite.emitter import RiteEmitter
from rules.rite.query import defeat_cost, defeatable
from rules.rite.state import BOARD, BOX, CARD, RESERVE, VOLCANO, State

from .helpers import at, board, energy, legal, put, put_ult, puts, rng, run, texts, turn, unit_on

HGP = ("humans", "goblins", "primals")
HUP = ("humans", "undead", "primals")
P = 2  # the Primal seat in these positions


def tri(s: State, *labels: str) -> str:
    """Three tiles as the notation prints them (reading order)."""
    return "+".join(sorted(labels, key=lambda x: s.geo.index[x]))


def where(s: State, uid: int) -> str:
    return s.units[uid].where


def primal_turn(s: State, round_e: int = 0, reserve_e: int = 0, **kw: int) -> State:
    return energy(turn(s, P), P, round_e, reserve_e, **kw)


def set_unit(s: State, uid: int, **kw: object) -> State:
    units = list(s.units)
    units[uid] = replace(units[uid], **kw)  # type: ignore[arg-type]
    return replace(s, units=tuple(units))


def refused(s: State, seat: int, text: str, code: str) -> None:
    """A bad command raises IllegalCommand with `code` (decide is pure: nothing changes)."""
    before = s
    with pytest.raises(IllegalCommand) as e:
        run(s, seat, text)
    assert e.value.code == code
    assert s == before


def all_accepted(s: State, seat: int) -> None:
    """Every listed command is accepted by decide (the legal_commands contract)."""
    for c in GAME.legal_commands(s, seat):
        decide(GAME, s, c, rng())


# --- summoning and Evolve -------------------------------------------------------------------------


def test_primals_summon_only_hatchlings() -> None:
    s = primal_turn(board(HGP, tiles={"a4": ("summon", "primals", 0)}), 3)
    assert [t for t in texts(s, P) if t.startswith("summon")] == ["summon hatchling a4"]
    refused(s, P, "summon raptor a4", "bad_unit")
    with pytest.raises(IllegalCommand, match=r"^you cannot summon 'raptor': the Primals summon hatchling$"):
        decide(GAME, s, GAME.parse_text("summon raptor a4", P), rng())
    s, _ = run(s, P, "summon hatchling a4")
    assert unit_on(s, "a4") == "hatchling"


def test_evolve_on_defeating_an_enemy_of_equal_or_higher_cost() -> None:
    s = primal_turn(board(HGP), 3)
    s, h = put(s, P, "hatchling", "d4")
    s, k = put(s, 0, "knight", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    assert unit_on(s, "d4") == "raptor" and unit_on(s, "e4") == ""
    assert where(s, h) == RESERVE and where(s, k) == RESERVE


def test_lower_cost_victims_go_underneath_until_their_cost_reaches_the_units() -> None:
    s = primal_turn(board(HGP), 5)
    s, r = put(s, P, "raptor", "d4")
    s, k1 = put(s, 0, "knight", "e4")
    s, k2 = put(s, 0, "knight", "c4")
    s, _ = run(s, P, "defeat e4 from d4")
    assert where(s, k1) == "under" and s.under == ((k1, r),) and unit_on(s, "d4") == "raptor"
    s = primal_turn(s, 5)
    s, _ = run(s, P, "defeat c4 from d4")
    assert unit_on(s, "d4") == "rex" and where(s, r) == RESERVE
    assert where(s, k1) == RESERVE and where(s, k2) == RESERVE and s.under == ()


def test_no_evolution_without_the_higher_unit_in_reserve_and_nothing_goes_underneath() -> None:
    s = primal_turn(board(HGP), 5)
    s = puts(s, P, "rex", "a7", "g1")  # both Rexes are out of the reserve
    s, r = put(s, P, "raptor", "d4")
    s, lb = put(s, 0, "lightbringer", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    assert unit_on(s, "d4") == "raptor" and where(s, lb) == RESERVE
    # Primal note: the cost underneath can never reach the unit's cost
    s = primal_turn(s, 5)
    s, k1 = put(s, 0, "knight", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    assert s.under == ((k1, r),)
    s = primal_turn(s, 5)
    s, k2 = put(s, 0, "knight", "c4")
    s, _ = run(s, P, "defeat c4 from d4")
    assert where(s, k2) == RESERVE and s.under == ((k1, r),) and unit_on(s, "d4") == "raptor"


def test_a_commander_counts_as_ten_for_evolve_and_faction_energy() -> None:
    s = primal_turn(board(HGP), 10, 10)
    s, _ = put(s, P, "hatchling", "d4")
    s, angel = put(s, 0, "angel", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    assert unit_on(s, "d4") == "raptor" and where(s, angel) == BOX
    assert s.players[P].faction_e == 10


def test_faction_energy_is_the_base_cost_of_the_defeated_enemy() -> None:
    s = primal_turn(board(HGP), 10)
    s, _ = put(s, P, "raptor", "d4")
    s = puts(s, 0, "cleric", "e4")
    s, _ = run(s, P, "defeat e4 from d4")  # 3 + Barrier 2 = 5 energy; 3 faction energy
    assert s.players[P].faction_e == 3 and s.players[P].round_e == 5


def test_a_rex_controlled_by_another_player_cannot_evolve_into_ultimatosaur() -> None:
    s = energy(board(HGP), 0, 5)
    s, rex = put(s, P, "rex", "d4")
    s = set_unit(s, rex, controller=0)  # (Chaos control, built elsewhere)
    s = puts(s, 1, "sorcerer", "e4")
    s, _ = run(s, 0, "defeat e4 from d4")
    assert unit_on(s, "d4") == "rex" and s.mode != "ultimatosaur"
    assert all(u.where == RESERVE for u in s.units if u.kind == "ultimatosaur")


# --- Rite of Summoning: Ultimatosaur -------------------------------------------------------------


def _rex_ready() -> tuple[State, int]:
    s = board(HGP, tiles={"c5": ("earth", "", 0)})
    s = primal_turn(s, 3)
    s, rex = put(s, P, "rex", "d4")
    s = puts(s, 1, "sorcerer", "e4")
    s = puts(s, 1, "fighter", "d3")
    s = puts(s, P, "hatchling", "d5")
    s = replace(s, rocks=frozenset({s.geo.index["e3"]}))
    return s, rex


def test_rite_of_summoning_rex_becomes_ultimatosaur_on_three_tiles_of_the_players_choice() -> None:
    s, rex = _rex_ready()
    s, _ = run(s, P, "defeat e4 from d4")
    assert s.mode == "ultimatosaur" and s.prompt is not None and s.prompt.seats == (P,)
    all_accepted(s, P)
    # mutually adjacent, one of them the Rex's; not over the Earth Elemental (c5) or a friendly unit (d5)
    assert sorted(texts(s, P)) == sorted(
        f"choose {tri(s, *t)}" for t in (("d4", "e4", "e3"), ("d4", "e3", "d3"), ("d4", "d3", "c4"))
    )
    refused(s, P, "choose d4+d5+e4", "bad_option")
    s, _ = run(s, P, "choose d4+e3+d3")  # any order
    assert {unit_on(s, x) for x in ("d4", "e3", "d3")} == {"ultimatosaur"}
    assert s.geo.index["e3"] not in s.rocks  # the rock is removed
    assert s.consumed == 1  # the Fighter under him is defeated and consumed
    assert where(s, rex) == RESERVE and s.mode == "turn"
    assert s.players[P].faction_e == 3 + 1


def test_a_rex_with_no_place_for_ultimatosaur_does_not_evolve() -> None:
    tiles = {x: ("earth", "", 0) for x in ("e4", "c4", "d5")}
    s = primal_turn(board(HGP, tiles=tiles), 3)
    s = puts(s, P, "rex", "d4")
    s = puts(s, P, "hatchling", "d3")
    s, sorc = put(s, 1, "sorcerer", "e3")
    s, _ = run(s, P, "defeat e3 from d4")
    assert s.mode == "turn" and unit_on(s, "d4") == "rex" and where(s, sorc) == RESERVE and s.under == ()


def test_ultimatosaur_cannot_be_placed_over_commanders() -> None:
    s, _ = _rex_ready()
    s = replace(s, rocks=frozenset())
    s = puts(s, 0, "angel", "e3")
    s, _ = run(s, P, "defeat e4 from d4")
    assert texts(s, P) == [f"choose {tri(s, 'd4', 'd3', 'c4')}"]


def test_ultimatosaur_defeated_returns_to_reserve_points_lost_and_a_rex_may_evolve_again() -> None:
    s = energy(board(HGP), 0, 10, 10)
    s, ult = put_ult(s, P, "d4", "e4", "e3")
    s = replace(s, consumed=5)
    s = puts(s, 0, "knight", "c4")
    assert defeat_cost(s, ult, 0, s.occ[s.geo.index["c4"]]) == 10 + 5  # Grow
    s, _ = run(s, 0, "defeat e3 from c4")
    assert where(s, ult) == RESERVE and s.consumed == 0
    s = primal_turn(s, 3)
    s = puts(s, P, "rex", "a4")
    s = puts(s, 1, "sorcerer", "b4")
    s, _ = run(s, P, "defeat b4 from a4")
    assert s.mode == "ultimatosaur"


def test_ultimatosaur_wins_with_twelve_consumed_points() -> None:
    s = primal_turn(board(HGP), 5)
    s, _ = put_ult(s, P, "d4", "e4", "e3")
    s = replace(s, consumed=10)
    s = puts(s, 0, "lightbringer", "c4")
    s, _ = run(s, P, "defeat c4 from d4")
    assert s.consumed == 12 and s.phase == "over" and s.winner == P
    assert GAME.is_over(s) is not None


def test_ultimatosaur_wins_by_consuming_a_commander() -> None:
    s = primal_turn(board(HGP), 10, 10)
    s, _ = put_ult(s, P, "d4", "e4", "e3")
    s = puts(s, 0, "angel", "c4")
    s, _ = run(s, P, "defeat c4 from d4")
    assert s.phase == "over" and s.winner == P and "commander" in s.reason


def test_rite_of_power_eight_friendly_units_next_to_ultimatosaur() -> None:
    s = primal_turn(board(HGP))
    s, _ = put_ult(s, P, "d4", "e4", "e3")
    s = puts(s, P, "hatchling", "c4", "d3", "c5", "d5", "f4", "f3", "e5")
    s, _ = run(s, P, "pass")
    assert s.players[P].level == 0
    s = primal_turn(s)
    s = replace(s, players=tuple(replace(p, passed=False) for p in s.players), passed=())
    s = puts(s, P, "raptor", "e2")
    s, _ = run(s, P, "pass")
    assert s.players[P].level == 20


# --- Ultimatosaur's moves ------------------------------------------------------------------------


def test_ultimatosaur_moves_by_rotation_keeping_one_of_its_tiles_per_energy() -> None:
    s = primal_turn(board(HGP), 2)
    s, ult = put_ult(s, P, "d4", "e4", "e3")
    here = tri(s, "d4", "e4", "e3")
    assert legal(s, P, f"umove {here} {tri(s, 'c4', 'd4', 'c5')}")  # keeps d4: 1 energy
    far = tri(s, "c5", "d5", "c6")
    with pytest.raises(IllegalCommand) as e:
        run(s, P, f"umove {here} {far} {tri(s, 'b6', 'c6', 'b7')}")
    assert e.value.code == "no_path"  # a step must keep one of the three tiles
    refused(s, P, "move d4 c4", "use_umove")
    s2, _ = run(s, P, f"umove {here} {far}")  # two rotations
    assert tuple(sorted(s2.units[ult].tiles)) == tuple(sorted(s.geo.index[x] for x in ("c5", "d5", "c6")))
    assert s2.players[P].round_e == 0


def test_breaker_of_rocks_ultimatosaur_moves_onto_rocks_removing_them() -> None:
    s = primal_turn(board(HGP), 1)
    s, _ = put_ult(s, P, "d4", "e4", "e3")
    s = replace(s, rocks=frozenset({s.geo.index["d5"]}))
    s, _ = run(s, P, f"umove {tri(s, 'd4', 'e4', 'e3')} {tri(s, 'd4', 'e4', 'd5')}")
    assert unit_on(s, "d5") == "ultimatosaur" and not s.rocks


def test_taunt_stops_ultimatosaur() -> None:
    s = primal_turn(board(HGP), 5)
    s, _ = put_ult(s, P, "d4", "e4", "e3")
    s = puts(s, 0, "knight", "c4")
    assert not [t for t in texts(s, P) if t.startswith("umove")]


def test_rush_moves_a_unit_in_a_straight_line_and_ultimatosaur_along_it() -> None:
    s = primal_turn(board(HGP), 0, 0, level=10)
    s = puts(s, P, "hatchling", "a4")
    s = put_ult(s, P, "e5", "f5", "f4")[0]
    assert legal(s, P, "power rush a4 d4") and not legal(s, P, "power rush a4 d5")
    here = tri(s, "e5", "f5", "f4")
    slid = tri(s, "c5", "d5", "d4")  # two tiles west, never off the line
    assert legal(s, P, f"power rush {here} {slid}")
    assert not legal(s, P, f"power rush {here} {tri(s, 'e5', 'f5', 'e6')}")  # a rotation, not a line
    s, _ = run(s, P, f"power rush {here} {slid}")
    assert unit_on(s, "d4") == "ultimatosaur" and s.actions == 0
    s2, _ = run(at(s, tpowers=frozenset()), P, "power rush a4 c4")
    assert unit_on(s2, "c4") == "hatchling"


def test_charge_moves_ultimatosaur_next_to_the_closest_enemy_once_per_round() -> None:
    s = primal_turn(board(HGP))
    s, ult = put_ult(s, P, "a4", "b4", "a5")
    s = puts(s, 1, "fighter", "e4")
    s = puts(s, 0, "angel", "b6")  # commanders are not Charge targets
    charges = [t for t in texts(s, P) if t.startswith("charge")]
    assert charges
    s, _ = run(s, P, charges[0])
    near = {j for t in s.units[ult].tiles for j in s.geo.nbr[t]}
    assert s.geo.index["e4"] in near and "charge" in s.rflags and s.actions == 0
    s2 = puts(s, 1, "fighter", "g1")
    assert not [t for t in texts(s2, P) if t.startswith("charge")]


def test_charge_does_not_target_humans_under_sacred_grounds() -> None:
    s = primal_turn(board(HGP, tiles={"a7": ("shrine", "humans", 0)}))
    s, ult = put_ult(s, P, "a4", "b4", "a5")
    s = puts(s, 0, "lightbringer", "a6")  # closest, but next to a shrine under Sacred Grounds
    s = puts(s, 1, "fighter", "f4")
    s = replace(s, rflags=frozenset({"sacred"}))
    before = s
    s, _ = run(s, P, next(t for t in texts(s, P) if t.startswith("charge")))
    near = {j for t in s.units[ult].tiles for j in s.geo.nbr[t]}
    assert s.geo.index["f4"] in near and s.units[ult].tiles != before.units[ult].tiles


# --- unit abilities ------------------------------------------------------------------------------


def test_lonely_prey_costs_one_less_without_backup() -> None:
    s = primal_turn(board(HGP), 5)
    s = puts(s, P, "hatchling", "d4")
    s = puts(s, 1, "sorcerer", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    assert s.players[P].round_e == 5 - 2
    s = primal_turn(board(HGP), 5)
    s = puts(s, P, "hatchling", "d4")
    s = puts(s, 1, "sorcerer", "e4")
    s = puts(s, 1, "fighter", "f4")  # backup: 3 + 1, no discount
    s, _ = run(s, P, "defeat e4 from d4")
    assert s.players[P].round_e == 5 - 4


def test_surprise_attack_first_defeat_free_for_a_raptor_that_started_on_jungle() -> None:
    s = board(HGP, tiles={"d4": ("jungle", "", 0)})
    s, r = put(s, P, "raptor", "d4")
    s = puts(s, 0, "knight", "e4", "f4", "c4")  # e4 has backup: 2 energy, but free
    s = puts(s, 0, "angel", "d5")
    s = primal_turn(s)
    assert r in s.lurking
    assert "defeat e4 from d4" in texts(s, P) and "defeat d5 from d4" not in texts(s, P)
    s, _ = run(s, P, "defeat e4 from d4")
    assert unit_on(s, "e4") == "" and s.actions == 0 and s.active == P
    assert not legal(s, P, "defeat c4 from d4")  # only the first defeat; no energy left
    # a Raptor that did not start the turn on jungle pays
    s2 = board(HGP)
    s2 = puts(s2, P, "raptor", "d4")
    s2 = puts(s2, 0, "knight", "e4")
    s2 = primal_turn(s2)
    assert not legal(s2, P, "defeat e4 from d4")


def test_roar_moves_friendly_units_next_to_the_enemy_by_shortest_path() -> None:
    s = primal_turn(board(HGP))
    s = puts(s, P, "rex", "d4")
    s = puts(s, P, "hatchling", "a4")
    s = puts(s, 1, "fighter", "e4")
    assert "roar d4 e4" in texts(s, P)
    s, _ = run(s, P, "roar d4 e4")
    assert s.mode == "roar" and sorted(texts(s, P)) == ["choose a4-d5", "choose a4-e3", "choose done"]
    all_accepted(s, P)
    s, _ = run(s, P, "choose a4-d5")
    assert unit_on(s, "d5") == "hatchling" and s.mode == "turn"
    assert "roar d4 e4" not in texts(s, P)  # once per turn


# --- powers ----------------------------------------------------------------------------------------


def test_alpha_moves_friendly_units_next_to_ultimatosaur() -> None:
    s = primal_turn(board(HGP), 0, 0, level=10)
    s, _ = put_ult(s, P, "d4", "e4", "e3")
    s = puts(s, P, "hatchling", "a4", "g1")
    s, _ = run(s, P, "power alpha")
    opts = texts(s, P)
    assert "choose a4-c4" in opts and "choose done" in opts
    all_accepted(s, P)
    s, _ = run(s, P, "choose a4-c4")
    s, _ = run(s, P, "choose done")
    assert unit_on(s, "c4") == "hatchling" and unit_on(s, "g1") == "hatchling" and s.mode == "turn"


def test_group_hunt_defeats_surrounded_non_commanders_for_free() -> None:
    from rules.rite.primals import free_defeat

    s = primal_turn(board(HGP), 0, 0, level=15)
    s = puts(s, P, "hatchling", "c4", "e4", "a7")
    s = puts(s, 0, "knight", "d4", "b7")
    s = puts(s, 0, "angel", "d5")
    assert not legal(s, P, "defeat d4 from c4")
    s, _ = run(s, P, "power grouphunt")
    assert "grouphunt" in s.rflags
    assert legal(s, P, "defeat d4 from c4")  # two Primal units next to it: surrounded
    # only one next to b7: no Group Hunt (Lonely Prey prices it 1 - 1 = 0, but as the turn's action)
    assert not free_defeat(s, s.occ[s.geo.index["b7"]], P, s.occ[s.geo.index["a7"]])
    assert not legal(s, P, "defeat d5 from e4")  # never a commander
    s, _ = run(s, P, "defeat d4 from c4")
    assert unit_on(s, "d4") == "" and s.actions == 0


def test_surprise_attack_and_group_hunt_do_not_reduce_a_commanders_cost() -> None:
    from rules.rite.primals import attack_cost

    s = board(HGP, tiles={"d4": ("jungle", "", 0)})
    s, r = put(s, P, "raptor", "d4")
    s = puts(s, P, "hatchling", "e5")
    s, angel = put(s, 0, "angel", "e4")
    s = replace(primal_turn(s), rflags=frozenset({"grouphunt"}))
    assert attack_cost(s, angel, P, r) == defeat_cost(s, angel, P, r) == 10 + 5 - 1


def test_inescapable_jaws_gives_turn_after_turn_until_the_primal_player_passes() -> None:
    s = primal_turn(board(HGP), 2, 0, level=20)
    s = puts(s, P, "hatchling", "d4")
    s, _ = run(s, P, "power jaws")
    s, _ = run(s, P, "move d4 c4")
    s, _ = run(s, P, "end")
    assert s.active == P and s.actions == 0 and s.mode == "turn"
    s, _ = run(s, P, "move c4 b4")
    s, _ = run(s, P, "end")
    assert s.active == P
    s, _ = run(s, P, "pass")
    assert s.active != P


# --- jungle, volcano, Fireflies --------------------------------------------------------------------


def test_jungle_primal_unit_immune_to_enemy_actions_taunt_and_volcano() -> None:
    s = energy(board(HGP, tiles={"d4": ("jungle", "", 0)}), 0, 5)
    s, h = put(s, P, "hatchling", "d4")
    s = puts(s, 0, "knight", "e4")
    refused(s, 0, "defeat d4 from e4", "cannot_be_defeated")
    assert not defeatable(s, h, VOLCANO, "volcano") and not defeatable(s, h, 0, "fireball")
    assert defeatable(s, h, P, "action")  # his own player still may
    s = primal_turn(s, 2)
    assert legal(s, P, "move d4 c4")  # Taunt does not hold him


def test_firefly_targets_primal_units_but_not_on_jungle() -> None:
    s = board(HGP, tiles={"a4": ("firefly", "", 3), "b4": ("jungle", "", 0)})
    s = puts(s, -1, "firefly", "a4")
    s, h = put(s, P, "hatchling", "b4")
    s, k = put(s, 0, "knight", "a6")
    c = RiteEmitter(at(s, die=3), rng())
    engine.firefly_step(c)
    assert where(c.s, h) == BOARD and where(c.s, k) == RESERVE
    s2 = board(HGP, tiles={"a4": ("firefly", "", 3)})
    s2 = puts(s2, -1, "firefly", "a4")
    s2, h2 = put(s2, P, "hatchling", "b4")
    s2 = puts(s2, 0, "knight", "a6")
    c2 = RiteEmitter(at(s2, die=3), rng())
    engine.firefly_step(c2)
    assert where(c2.s, h2) == RESERVE


# --- notes: Undying, Reborn in Flames, Rise Again, Soul Reaper -----------------------------------


def test_undying_death_bringer_underneath_goes_to_the_card_when_the_rex_evolves() -> None:
    s = board(HUP)
    s = energy(s, 1, 0, 0, level=10)
    s = primal_turn(s, 5)
    s = puts(s, P, "rex", "d4")
    s, db = put(s, 1, "deathbringer", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    assert where(s, db) == "under"
    s = primal_turn(s, 5)
    s, w = put(s, 1, "warrior", "c4")
    s, _ = run(s, P, "defeat c4 from d4")
    assert s.mode == "ultimatosaur" and where(s, db) == CARD and where(s, w) == RESERVE


def test_reborn_in_flames_fire_bringer_underneath_goes_to_the_card() -> None:
    s = board(HGP)
    s = energy(s, 1, 0, 0, level=10)
    s = primal_turn(s, 5)
    s = puts(s, P, "raptor", "d4")
    s, f = put(s, 1, "fighter", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    assert where(s, f) == "under"
    s = primal_turn(s, 5)
    s, fb = put(s, 1, "firebringer", "c4")
    s, _ = run(s, P, "defeat c4 from d4")
    assert unit_on(s, "d4") == "rex" and where(s, fb) == CARD and where(s, f) == RESERVE


def test_units_underneath_leave_with_their_defeated_primal_unit() -> None:
    s = primal_turn(board(HGP), 5)
    s, rap = put(s, P, "raptor", "d4")
    s, k = put(s, 0, "knight", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    s = energy(at(s, active=0, actions=0, mode="turn"), 0, 5)
    s = puts(s, 0, "knight", "c4")
    s, _ = run(s, 0, "defeat d4 from c4")
    assert where(s, rap) == RESERVE and where(s, k) == RESERVE and s.under == ()


def test_rise_again_when_a_primal_unit_defeats_a_unit() -> None:
    s = board(HUP)
    s = puts(s, 1, "necromancer", "a4")
    s = primal_turn(s, 3)
    s = puts(s, P, "hatchling", "c4")
    s = puts(s, 0, "knight", "d4")
    s, _ = run(s, P, "defeat d4 from c4")
    assert unit_on(s, "c4") == "raptor"  # Evolve happens at once; then the Undead react
    assert s.mode == "react" and texts(s, 1) == ["choose rise:d4", "choose done"]
    s, _ = run(s, 1, "choose rise:d4")
    assert unit_on(s, "d4") == "warrior"


def test_soul_reaper_after_ultimatosaur_is_placed() -> None:
    s = board(HUP)
    s = puts(s, 1, "death", "a7")
    s = primal_turn(s, 3)
    s = puts(s, P, "rex", "d4")
    s = puts(s, 0, "cleric", "e4")
    s = energy(s, P, 5)
    s, _ = run(s, P, "defeat e4 from d4")
    assert s.mode == "ultimatosaur"  # placed first: Evolve is immediate
    s, _ = run(s, P, f"choose {tri(s, 'd4', 'd5', 'c5')}")
    assert s.mode == "react" and texts(s, 1) == ["choose reap:e4"]
    s, _ = run(s, 1, "choose reap:e4")
    assert unit_on(s, "e4") == "death"


# --- three tiles everywhere: surround, view, notation, perft ------------------------------------


def test_ultimatosaur_counts_once_for_surround_and_backup() -> None:
    s = board(HGP)
    s, ult = put_ult(s, P, "d4", "e4", "d5")
    s, sorc = put(s, 1, "sorcerer", "c5")  # next to two of his tiles (d4, d5)
    s = puts(s, P, "hatchling", "e5")  # next to two of his tiles (e4, d5)
    assert defeat_cost(s, sorc, P, -1) == 3 - 1  # surround: the Ultimatosaur once, not twice
    assert defeat_cost(s, ult, 1, sorc) == 10 + 1  # backup: the Hatchling once


def test_view_shows_units_underneath_and_consumed_points() -> None:
    s = primal_turn(board(HGP), 5)
    s = puts(s, P, "raptor", "d4")
    s = puts(s, 0, "knight", "e4")
    s, _ = run(s, P, "defeat e4 from d4")
    s = replace(s, consumed=4)
    v = GAME.view(s, None)
    orjson.dumps(v)
    cell = next(c for c in v["board"]["cells"] if c["id"] == "d4")
    assert cell["pieces"][0] == {"label": "raptor", "owner": P, "under": ["knight"]}
    assert v["players"][P]["consumed"] == 4 and "consumed" not in v["players"][0]
    assert v["players"][P]["charge_used"] is False


@pytest.mark.parametrize(
    "text",
    ["umove c4+d4+c5 d4+c5+d5", "umove c4+d4+c5 d4+c5+d5 d5+c6+d6", "charge e3+d4+e4", "roar d4 e4",
     "power rush e3+d4+e4 d3+c4+d4", "choose d3+e3+d4", "power alpha", "power grouphunt", "power jaws"],
)
def test_primal_notation_round_trips(text: str) -> None:
    c = GAME.parse_text(text, P)
    assert GAME.format_text(c) == text
    assert GAME.parse_command(c.type, orjson.loads(orjson.dumps(dict(c.args))), P) == c


def test_every_legal_primal_command_is_accepted_and_perft_counts() -> None:
    s = board(HGP, tiles={"a4": ("summon", "primals", 0), "d4": ("jungle", "", 0)})
    s = puts(s, 0, "knight", "e4", "f4")
    s = puts(s, 1, "fighter", "b6")
    s = puts(s, P, "raptor", "d4")
    s = puts(s, P, "rex", "c6")
    s, _ = put_ult(s, P, "f2", "g2", "g1")
    s = primal_turn(s, 2, 0, level=5)
    cmds = list(GAME.legal_commands(s, P))
    by: dict[str, int] = {}
    for c in cmds:
        by[c.type[5:]] = by.get(c.type[5:], 0) + 1
    assert by == PERFT_PRIMAL, by
    for c in cmds:
        decide(GAME, s, c, rng())  # never raises
        assert GAME.parse_text(GAME.format_text(c), P) == c


# Checked by hand: the Raptor on jungle ignores the Knights' Taunt (10 moves) and defeats e4 free
# (Surprise Attack); the Rex moves (11), defeats the Fighter and may Roar at it; the Raptor may
# defeat itself; Ultimatosaur: 10 positions within 2 rotations, 4 shortest Charges next to e4/f4;
# Rush: 9 lines for the Raptor, 9 for the Rex, 5 slides for Ultimatosaur.
PERFT_PRIMAL = {"summon": 1, "move": 21, "defeat": 3, "umove": 10, "charge": 4, "roar": 1, "power": 23, "pass": 1}


def test_bad_primal_commands_are_refused_with_a_code() -> None:
    s = primal_turn(board(HGP), 2)
    s, _ = put_ult(s, P, "d4", "e4", "e3")
    s = puts(s, P, "hatchling", "a4")
    refused(s, P, "umove d4+e4+d5 c4+d4+c5", "bad_tiles")  # not where he stands
    refused(s, P, "umove a4+b4+a5 c4+d4+c5", "not_your_unit")
    refused(s, P, "umove e3+d4+e4 a1+b1+c1", "bad_tiles")
    refused(s, P, "charge c4+d4+c5", "bad_charge")
    refused(s, P, "roar a4 b4", "bad_roar")
    refused(s, P, "power rush a4 d4", "power_unavailable")
    refused(s, 0, "umove e3+d4+e4 c4+d4+c5", "not_your_turn")


def test_a_fire_token_on_a_jungle_tile_does_not_burn_a_primal_unit() -> None:
    s = primal_turn(board(HGP, tiles={"c4": ("jungle", "", 0)}), 1)
    s = puts(s, P, "hatchling", "d4")
    s = replace(s, fire=frozenset({s.geo.index["c4"]}))
    s, _ = run(s, P, "move d4 c4")
    assert unit_on(s, "c4") == "hatchling" and not s.fire


def test_fireball_reaches_ultimatosaur_on_any_tile_for_ten_plus_consumed() -> None:
    s = energy(at(board(HGP), active=1), 1, 10, 10)
    s, ult = put_ult(s, P, "c4", "c5", "b5")  # two of his tiles are in the area around b4
    s = replace(s, consumed=2)
    s = puts(s, 1, "sorcerer", "a6")
    s, _ = run(s, 1, "fireball a6 b4")
    s2, _ = run(s, 1, "pay x2 y11")
    assert where(s2, ult) == BOARD
    s3, _ = run(s, 1, "pay x2 y12")
    assert where(s3, ult) == RESERVE and s3.consumed == 0
