"""The rulebook's worked examples (images 9, 11, 12, 17, 21, 24), with its numbers."""

from __future__ import annotations

import pytest

from rules.core import IllegalCommand
from rules.rite.query import defeat_cost, reach

from .helpers import at, board, energy, legal, put, puts, run, unit_on

HGU = ("humans", "goblins", "undead")


def test_image_9_summon_spends_round_and_reserve_not_faction_energy() -> None:
    s = board(tiles={"a4": ("summon", "goblins", 0)})
    s = at(s, active=1)
    s = energy(s, 1, round_e=1, reserve_e=2, faction_e=5)
    s, _ = run(s, 1, "summon sorcerer a4")
    p = s.players[1]
    assert (p.round_e, p.reserve_e, p.faction_e) == (0, 0, 5)
    assert unit_on(s, "a4") == "sorcerer"


def test_image_9_faction_energy_converts_to_reserve_at_end_of_round() -> None:
    s = board(volcano=False)
    s = energy(s, 0, 0, 0)
    s = energy(s, 1, round_e=0, reserve_e=0, faction_e=5)
    s, _ = run(s, 0, "pass")
    s, _ = run(s, 1, "pass")
    assert s.round == 2
    assert (s.players[1].faction_e, s.players[1].reserve_e, s.players[1].round_e) == (0, 5, 2)


def test_image_12_sorcerer_defeats_knight_for_one() -> None:
    # Knight d4 with a Light Bringer behind it (backup) and a Fire Bringer beside it (surround).
    s = board()
    s, knight = put(s, 0, "knight", "d4")
    s = puts(s, 0, "lightbringer", "e4")
    s, sorc = put(s, 1, "sorcerer", "c4")
    s = puts(s, 1, "firebringer", "d5")
    assert defeat_cost(s, knight, 1, sorc) == 1 + 1 - 1
    s = at(s, active=1)
    s = energy(s, 1, round_e=1)
    s, _ = run(s, 1, "defeat d4 from c4")
    assert unit_on(s, "d4") == ""
    assert s.players[1].round_e == 0


def test_image_11_taunt_stops_movement_and_inaccessible_tiles_block() -> None:
    s = board(tiles={"d3": ("earth", "", 0)})
    s = puts(s, 0, "knight", "f3")
    s, fighter = put(s, 1, "firebringer", "b4")
    s = at(s, rocks=frozenset({s.geo.index["c4"]}))
    r = reach(s, fighter, 10)
    lab = s.geo.labels
    names = {lab[t] for t in r}
    assert "c4" not in names and "d3" not in names  # rock and Earth Elemental
    # e3 is next to the Knight: the move may end there.
    assert "e3" in names
    assert r[s.geo.index["e3"]][0] == 4  # b4-b5-c5-d4-e3 (c4 rock, d3 Elemental)
    # A unit starting at d4 cannot walk d4-e4-f4-g4 (e4 is next to the Knight): it goes round.
    s2 = board()
    s2 = puts(s2, 0, "knight", "f3")
    s2, mover = put(s2, 1, "firebringer", "d4")
    r2 = reach(s2, mover, 10)
    assert r2[s2.geo.index["e4"]][0] == 1
    assert r2[s2.geo.index["g4"]][0] == 4  # d5-e5-f5-g4


def test_image_17_angel_flies_for_two_and_carries_cleric_and_knight() -> None:
    s = board()
    s = puts(s, 0, "angel", "b4")
    s = puts(s, 0, "cleric", "b3")
    s = puts(s, 0, "knight", "a5")
    s = energy(s, 0, round_e=2)
    s, _ = run(s, 0, "fly b4 e4")  # distance 3 -> ceil(3/2) = 2 energy
    assert s.players[0].round_e == 0 and unit_on(s, "e4") == "angel"
    assert s.mode == "wings"
    s, _ = run(s, 0, "choose b3-e3")
    s, _ = run(s, 0, "choose a5-f4")
    assert unit_on(s, "e3") == "cleric" and unit_on(s, "f4") == "knight"
    assert s.mode != "wings"


def test_image_21_fireball_numbers() -> None:
    def position(y: int) -> tuple[set[str], bool]:
        s = board(HGU, radius=3, tiles={"d4": ("beacon", "goblins", 0)})
        s = puts(s, 0, "knight", "d4")
        s = puts(s, 0, "cleric", "e4")
        s = puts(s, 0, "lightbringer", "e3")
        s = puts(s, 2, "warrior", "d5")
        s = puts(s, 1, "firebringer", "c5")
        s = puts(s, 1, "sorcerer", "b4")
        s = at(s, active=1)
        s = energy(s, 1, round_e=10, reserve_e=0)
        s, _ = run(s, 1, "fireball b4 d4")
        s, _ = run(s, 1, f"pay x2 y{y}")
        left = {lab for lab in ("d4", "e4", "e3", "d5", "c5") if unit_on(s, lab)}
        return left, s.geo.index["d4"] in s.activated

    left, lit = position(3)  # 2 (range) + 3 = 5 energy
    assert left == {"e4", "e3"} and lit
    left, _ = position(4)  # 6 energy: the Light Bringer too
    assert left == {"e4"}
    left, _ = position(5)  # 7 energy: the Cleric too
    assert left == set()


def test_image_24_warrior_moves_free_next_to_necromancer() -> None:
    s = board(HGU)
    s = puts(s, 2, "necromancer", "d4")
    s = puts(s, 2, "warrior", "e4")
    s = at(s, active=2)
    s = energy(s, 2, 0, 0)
    assert legal(s, 2, "move e4 e3")
    assert legal(s, 2, "move e4 f3")  # one step out of the Necromancer's reach is still free
    assert not legal(s, 2, "move e4 g3")
    s, _ = run(s, 2, "move e4 e3")
    assert unit_on(s, "e3") == "warrior" and s.actions == 0


def test_fireball_y_may_be_zero() -> None:
    s = board()
    s = puts(s, 1, "sorcerer", "b4")
    s = at(s, active=1)
    s = energy(s, 1, round_e=2)
    s, _ = run(s, 1, "fireball b4 d4")
    assert legal(s, 1, "pay x2 y0")
    with pytest.raises(IllegalCommand):
        run(s, 1, "pay x1 y0")
