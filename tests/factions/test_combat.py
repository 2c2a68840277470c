"""Melee, range, spells, abilities, aerial combat, damage and victory (Melee, Range, Spell, Aerial)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.factions import GAME
from rules.factions.content import LAYOUTS
from rules.factions.schedule import schedule
from tests.factions.helpers import (
    FixedRng,
    only,
    position,
    power,
    refusal,
    run,
    texts,
    tiles_2p,
    unit_at,
    with_card,
)


def test_lightning_bolt_eliminates_royal_swordsman() -> None:
    # Printed example: Lightning Bolt has range 3, does 3 damage, costs 5 mana; the Royal Swordsman falls.
    s = position([(0, "RS", "c3"), (1, "SC", "c5")], mana=[10, 10])
    bolt = s.card(s.units["1:SC"]).power("LB")
    assert bolt is not None and (bolt.name, bolt.range, bolt.amount, bolt.mana) == ("Lightning Bolt", 3, 3, 5)
    s, ev = run(s, "activate SC", "use LB c3")
    assert "0:RS" not in s.units and s.mana[1] == 5 and s.vp[1] == 3
    assert [e.type for e in ev][-2:] == ["factions.UnitEliminated", "factions.ActivationEnded"]


def test_spell_needs_enough_mana() -> None:
    s = position([(0, "RS", "c3"), (1, "SC", "c5")], mana=[10, 4])
    s, _ = run(s, "activate SC")
    assert not [t for t in texts(s, 1) if t.startswith("use LB")]


def test_spell_range_is_counted_like_movement() -> None:
    s = position([(0, "RS", "c1"), (1, "SC", "c5")])  # 4 spaces away
    s, _ = run(s, "activate SC")
    assert "use LB c1" not in texts(s, 1)
    s, _ = run(s, "step c4")
    assert "use LB c1" in texts(s, 1)


def test_bowman_shoots_two_spaces_for_one_damage() -> None:
    s = position([(0, "BO", "a1"), (1, "DW", "a3")], p1=1)
    bow = s.card(s.units["0:BO"])
    assert (bow.range, bow.attack) == (2, 1)
    s, _ = run(s, "activate BO")
    assert "shoot a3" in texts(s, 0)
    s, _ = run(s, "shoot a3")
    assert s.units["1:DW"].damage == 1


def test_ranged_unit_melees_adjacent_and_cannot_shoot_adjacent() -> None:
    s = position([(0, "BO", "a2"), (1, "DW", "a3")], p1=1)
    s, _ = run(s, "activate BO")
    assert "attack a3" in texts(s, 0) and "shoot a3" not in texts(s, 0)


def test_shooting_direction_printed_example() -> None:
    # Option 1 (illegal): diagonal over the opponent's tiles. Option 2 (legal): straight over the
    # opponent's tile first, then diagonally over your Home Tile.
    s = position([(0, "BO", "c3"), (0, "AO", "f1"), (1, "DW", "e5"), (1, "MI", "a2")], p1=1)
    s, _ = run(s, "activate BO")
    opts = texts(s, 0)
    assert "shoot e5" not in opts  # c3-d4-e5 crosses seat 1's tiles diagonally
    assert "shoot a2" in opts  # c3-b3 straight, then b3-a2 diagonal on seat 0's tiles


def test_melee_damage_wounds_then_eliminates_for_gold_cost_points() -> None:
    s = position([(0, "EG", "c2"), (1, "DW", "c3")])
    s, _ = run(s, "activate EG", "attack c3")  # attack 3 against health 2
    assert "1:DW" not in s.units and s.vp[0] == 2


def test_wounded_unit_keeps_damage_token() -> None:
    s = position([(0, "MI", "c2"), (1, "SW", "c3")], p1=1)
    s, _ = run(s, "activate SW", "end", "activate MI", "attack c3")
    assert s.units["1:SW"].damage == 1


def test_flying_units_fight_only_flying_units() -> None:
    s = position([(0, "SV", "b2"), (1, "DW", "b3"), (1, "MP", "a2")])
    assert s.units["0:SV"].flying and s.units["1:MP"].flying
    s, _ = run(s, "activate MP", "end", "activate SV")
    opts = texts(s, 0)
    assert "attack a2" in opts and "attack b3" not in opts


def test_ground_melee_cannot_reach_flying_unit() -> None:
    s = position([(0, "SV", "b2"), (1, "CH", "b3")])
    s, _ = run(s, "activate CH")
    assert "attack b2" not in texts(s, 1)


def test_landing_lets_aerial_units_attack_ground_units() -> None:
    s = position([(0, "SV", "b2"), (1, "DW", "b3")])
    s, _ = run(s, "activate SV", "land")
    assert "attack b3" in texts(s, 0)


def test_ranged_attack_on_flying_unit_needs_four_to_six() -> None:
    s = position([(0, "SV", "a3"), (1, "AR", "a4")])
    s, _ = run(s, "activate SV", "end")  # rank 3 first; the bowman (rank 2) then shoots
    s1, ev = run(s, "activate AR", "shoot a3", rng=FixedRng([3]))
    assert s1.units["0:SV"].damage == 0 and ev[1].data["roll"] == 3 and not ev[1].data["hit"]
    s2, ev = run(s, "activate AR", "shoot a3", rng=FixedRng([4]))
    assert s2.units["0:SV"].damage == 1 and ev[1].data["hit"]


def test_evade_makes_non_melee_attacks_miss() -> None:
    s = position([(0, "BO", "a1"), (1, "AM", "a3")], p1=0)
    s = replace(s, units={**s.units, "1:AM": replace(s.units["1:AM"], done=True)})
    s = schedule(s)
    assert s.card(s.units["1:AM"]).evade == 1
    s1, _ = run(s, "activate BO", "shoot a3", rng=FixedRng([1]))
    assert s1.units["1:AM"].damage == 0
    s2, _ = run(s, "activate BO", "shoot a3", rng=FixedRng([2]))
    assert s2.units["1:AM"].damage == 1


def test_non_aerial_caster_cannot_target_flying_unit() -> None:
    s = position([(0, "FL", "c3"), (1, "SC", "c5")])
    s, _ = run(s, "activate SC")
    assert "use LB c3" not in texts(s, 1)


def test_flying_units_cast_spells_on_flying_units_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Aerial Units in combat: "When flying, aerial Units may not cast spells or use ranged attacks
    on non-flying Units." The whole sentence: a flying caster still casts, on flying units; once
    landed it may cast on anyone."""
    with_card(monkeypatch, "zermano", "MP", power("LB", "Lightning Bolt", "spell", "damage", mana=5, amount=3))
    s = only(position([(1, "MP", "c5"), (0, "SV", "c4"), (0, "RS", "d5"), (0, "MI", "a1")], p1=1), 1)
    assert s.units["1:MP"].flying and s.units["0:SV"].flying
    s, _ = run(s, "activate MP")
    uses = [t for t in texts(s, 1) if t.startswith("use")]
    assert uses == ["use LB c4"]  # the flying Valkyrie, not the Royal Swordsman on the ground
    assert refusal(s, "use LB d5", 1) == "illegal_target"
    landed, _ = run(s, "land")
    assert sorted(t for t in texts(landed, 1) if t.startswith("use")) == ["use LB c4", "use LB d5"]
    s, _ = run(s, "use LB c4")
    assert "0:SV" not in s.units and s.mana[1] == 5 and s.vp[1] == 4  # 3 damage fells the 3-Health Valkyrie


def test_flying_caster_area_spell_skips_units_on_the_ground(monkeypatch: pytest.MonkeyPatch) -> None:
    """"When flying, aerial Units may not cast spells ... on non-flying Units": a flyer's Firestorm
    on a row reaches the flying enemies in it and none on the ground."""
    with_card(monkeypatch, "zermano", "MP",
              power("FS", "Firestorm", "spell", "damage", mana=3, amount=1, area="row"))
    s = only(position([(1, "MP", "d5"), (0, "SV", "b3"), (0, "FL", "f3"), (0, "RS", "c3"), (0, "MI", "a1")]), 1)
    s, _ = run(s, "activate MP", "use FS b3")
    assert s.units["0:SV"].damage == 1 and s.units["0:FL"].damage == 1 and s.units["0:RS"].damage == 0


def test_non_aerial_caster_cannot_target_flying_ally() -> None:
    """Spells: "Non-Aerial Units cannot target Aerial Units with spells or abilities" — allies
    included: a ground Healer cannot mend a flying Skywing until it lands."""
    s = position([(0, "HE", "c2"), (0, "FL", "c3"), (1, "MI", "f6")], unit_kw={"0:FL": {"damage": 1}})
    s, _ = run(s, "activate FL", "end", "activate HE")
    assert not [t for t in texts(s, 0) if t.startswith("use")]
    s = position([(0, "HE", "c2"), (0, "FL", "c3"), (1, "MI", "f6")],
                 unit_kw={"0:FL": {"damage": 1, "flying": False}})
    s, _ = run(s, "activate FL", "end", "activate HE")
    assert "use MD c3" in texts(s, 0)


def test_no_friendly_fire_from_area_spells() -> None:
    # Firestorm hits every enemy on the target's row and none of the caster's allies.
    s = position([(0, "SO", "f1"), (0, "MI", "a3"), (0, "AO", "d3"), (1, "DW", "f3"), (1, "MI", "b3")], p1=1)
    s, _ = run(s, "activate SO", "use FS f3")
    assert s.units["1:DW"].damage == 1 and s.units["1:MI"].damage == 1
    assert s.units["0:MI"].damage == 0 and s.units["0:AO"].damage == 0


def test_area_tile_spell_hits_every_enemy_on_the_tile() -> None:
    s = position([(0, "AM", "c2"), (1, "DW", "c3"), (1, "MI", "d4"), (1, "AO", "e3")], mana=[10, 10])
    s, _ = run(s, "activate AM", "use QK c3")
    assert "1:DW" not in s.units and "1:MI" not in s.units and "1:AO" in s.units
    assert s.mana[0] == 6


def test_heal_removes_damage() -> None:
    s = position([(1, "IS", "c4"), (1, "DW", "c5"), (0, "MI", "a1")], unit_kw={"1:DW": {"damage": 1}})
    s, _ = run(s, "activate IS", "use MD c5", seat=1)
    assert s.units["1:DW"].damage == 0 and s.mana[1] == 8


def test_boost_heart_soaks_one_damage_and_goes() -> None:
    s = position([(0, "EG", "c2"), (1, "SW", "c3")], unit_kw={"1:SW": {"hp_boost": 1, "atk_boost": 1}})
    s, _ = run(s, "activate EG", "attack c3")  # 3 damage, one soaked by the Heart
    u = s.units["1:SW"]
    assert u.damage == 2 and u.hp_boost == 0 and u.atk_boost == 0


def test_boost_sword_adds_attack() -> None:
    s = position([(0, "SH", "a1"), (0, "MI", "b2"), (1, "SW", "b3")], p1=1)
    s, _ = run(s, "activate SW", "end", "activate SH", "use BH b2", "activate MI", "attack b3")
    assert s.units["1:SW"].damage == 2


def test_weakness_lasts_one_round() -> None:
    s = position([(0, "SH", "a2"), (1, "SW", "a3")], p1=1)
    s, _ = run(s, "activate SW", "end", "activate SH", "use HX a3")
    assert s.units["1:SW"].weak == 1
    while s.phase == "play" and s.round == 1:
        t = texts(s, s.ps[0])
        s, _ = run(s, "end" if "end" in t else ("done" if "done" in t else t[0]))
    assert s.units["1:SW"].weak == 0


def test_push_moves_target_one_space_away_and_exhausts() -> None:
    s = position([(0, "WL", "c2"), (1, "DW", "c3")])
    s, _ = run(s, "activate WL", "use PU c3")
    assert unit_at(s, "c4") is not None and unit_at(s, "c4").key == "1:DW"  # type: ignore[union-attr]
    s = replace(s, units={**s.units, "0:WL": replace(s.units["0:WL"], used=(("PU", 2),), done=False)})
    s = schedule(s)
    s, _ = run(s, "activate WL", "step c3")
    assert not [t for t in texts(s, 0) if t.startswith("use PU")]


def test_armored_cavalry_bullrushes_and_has_prowess_four() -> None:
    s = position([(0, "AC", "c2"), (1, "DW", "c3")])
    card = s.card(s.units["0:AC"])
    assert card.name == "Armored Cavalry" and card.attack + card.health == 4 and card.bullrush
    s, _ = run(s, "activate AC")
    # The bullrushed unit goes to an open space of the eight around c3: c2 still holds the Cavalry.
    assert sorted(t for t in texts(s, 0) if t.startswith("step c3")) == [
        "step c3 aside b2", "step c3 aside b3", "step c3 aside b4", "step c3 aside c4", "step c3 aside d2",
        "step c3 aside d3", "step c3 aside d4"]
    s, _ = run(s, "step c3 aside d3")
    assert unit_at(s, "c3").key == "0:AC" and unit_at(s, "d3").key == "1:DW"  # type: ignore[union-attr]


def test_reaching_25_points_wins_at_once() -> None:
    s = position([(0, "RS", "c3"), (0, "MI", "a1"), (1, "SC", "c5")])
    s = replace(s, vp=(0, 22))
    s, ev = run(s, "activate SC", "use LB c3")
    out = GAME.is_over(s)
    assert out is not None and out.winners == (1,) and out.scores == (0, 25)
    assert ev[-1].type == "factions.GameWon" and s.prompt is None
    assert refusal(s, "end", 1) == "game_over"


def test_targets_are_25_30_40() -> None:
    assert [LAYOUTS[n].target for n in (2, 3, 4)] == [25, 30, 40]


def test_ranged_units_shoot_across_water() -> None:
    tiles = tiles_2p(patterns=["WP/PP", "PP/PP", "PP/PP", "PP/PP", "PP/PP", "PP/PP", "PP/PP", "PP/PP", "PP/PP"])
    s = position([(0, "BO", "a1"), (0, "MI", "f1"), (1, "DW", "a3")], p1=1, tiles=tiles)  # a2 is water
    assert s.geo is not None and s.geo.terrain[6] == "W"
    s, _ = run(s, "activate BO", "shoot a3")
    assert s.units["1:DW"].damage == 1


def test_attacking_ends_the_activation_so_no_move_after() -> None:
    s = position([(0, "EG", "c2"), (0, "MI", "a1"), (1, "SW", "c3")])
    s, _ = run(s, "activate EG", "attack c3")
    assert s.active is None and s.units["0:EG"].done
    assert s.pk == "turn" and s.ps == (0,)  # the Swordsman fell: seat 0 goes on, with a new unit
    assert refusal(s, "step b2", 0) == "wrong_prompt"


def test_spells_only_by_the_active_unit_once_per_round() -> None:
    s = position([(0, "RS", "c3"), (0, "MI", "a1"), (1, "SC", "c5"), (1, "AO", "f6")], mana=[10, 20])
    assert refusal(s, "use LB c3", 1) == "wrong_prompt"  # no unit is active yet
    s, _ = run(s, "activate SC", "use LB c3")
    assert s.units["1:SC"].done and s.active is None
    assert "activate SC" not in texts(s, 1)  # its one activation (and spell) this round is spent


def test_step_five_removes_end_of_activation_and_command_tokens() -> None:
    s = position([(0, "EG", "c2"), (0, "MI", "a1"), (1, "SC", "c5")], gold=[0, 0])
    s, _ = run(s, "command EG MI", "end")
    while s.round == 1:
        t = texts(s, s.ps[0])
        s, _ = run(s, "end" if "end" in t else ("done" if "done" in t else t[0]))
    assert s.round == 2
    assert not any(u.done or u.commanding for u in s.units.values())


def test_aerial_units_have_an_automatic_evade_3_against_ranged_attacks_flying_or_landed() -> None:
    """Helpful Terms, EVADE: "Aerial Units have an automatic Evade 3 against ranged attacks." The
    sentence names the Aerial attribute, not the mode, so a landed Swiftwing Valkyrie rolls its
    Evade 3 against a shot as a flying one does (issue #38 item 7)."""
    landed = {"0:SV": {"flying": False, "done": True}}
    s = position([(0, "SV", "a3"), (1, "AR", "a5")], unit_kw=landed)
    assert s.turn == 1 and not s.units["0:SV"].flying
    s1, ev = run(s, "activate AR", "shoot a3", rng=FixedRng([3]))
    assert ev[1].data["roll"] == 3 and not ev[1].data["hit"] and s1.units["0:SV"].damage == 0
    s2, ev = run(s, "activate AR", "shoot a3", rng=FixedRng([4]))
    assert ev[1].data["roll"] == 4 and ev[1].data["hit"] and s2.units["0:SV"].damage == 1
    # Melee is not a ranged attack: no roll for it.
    s3 = position([(0, "SV", "a3"), (1, "DW", "a4")], unit_kw=landed)
    _, ev = run(s3, "activate DW", "attack a3")
    assert ev[1].data["roll"] is None and ev[1].data["hit"]


def test_rules_version_1_shoots_a_landed_aerial_unit_without_evade() -> None:
    """A record of rules version 1 plays on as it was played: no Evade roll for a landed flyer."""
    s = position([(0, "SV", "a3"), (1, "AR", "a5")], unit_kw={"0:SV": {"flying": False, "done": True}}, rules=1)
    s1, ev = run(s, "activate AR", "shoot a3", rng=FixedRng([1]))
    assert ev[1].data["roll"] is None and s1.units["0:SV"].damage == 1
