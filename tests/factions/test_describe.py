"""Factions: Battlegrounds in words (issue #14): commands and events by the names on the Faction
Unit Cards, from hand-built positions, and the spaces a move touched."""

from __future__ import annotations

from rules.core import Command, Event, Rng, SeatInfo, fold
from rules.factions import GAME

from .helpers import FixedRng, position, run

NAMES = ["ann", "bob"]


def test_a_recruit_names_the_unit_by_its_card() -> None:
    s = position()
    c = Command("factions.recruit", {"unit": "MI"}, 0)
    assert GAME.describe_command(s, c, 0, NAMES) == "ann recruits a Zyan Militia for 1 gold."
    told = GAME.describe_event(s, Event("factions.UnitRecruited", {"seat": 0, "unit": "MI", "cost": 1}, 0), 1, NAMES)
    assert told.text == "ann recruits a Zyan Militia for 1 gold."


def test_a_unit_is_named_with_its_owner_and_space_never_by_its_key() -> None:
    s = position([(0, "MI", "c3"), (1, "MI", "c4")])
    told = GAME.describe_event(s, Event("factions.UnitDamaged", {"unit": "1:MI", "amount": 1, "damage": 1}, 0),
                               None, NAMES)
    assert told.text == "bob's Zermano Militia on c4 takes 1 damage (1 in all)."
    assert "1:MI" not in told.text


def test_an_attack_records_its_evade_roll_as_a_draw() -> None:
    s = position([(0, "MI", "c3"), (1, "MI", "c4")])
    told = GAME.describe_event(s, Event("factions.AttackMade", {
        "seat": 0, "unit": "0:MI", "target": "1:MI", "kind": "melee", "power": None, "roll": 2, "hit": True}, 0),
        None, NAMES)
    assert told.text == "ann's Zyan Militia on c3 attacks bob's Zermano Militia on c4: the evade roll is 2, a hit."
    assert told.draw == "evade roll 2"


def test_a_terrain_tile_touches_the_four_spaces_of_its_spot() -> None:
    s = position()
    c = Command("factions.tile", {"tile": 2, "spot": 1, "rot": 180}, 0)
    assert GAME.describe_command(s, c, 0, NAMES).startswith("ann places their Terrain Tile 2 on spot 1 turned 180°")
    assert GAME.touched(s, c, []) == ["a1", "b1", "a2", "b2"]


def test_a_terrain_tile_choice_says_the_water_and_terrain_it_lays_space_by_space() -> None:
    """Issue #38 item 10: "Choosing 'tile 1, spot 1, 0 or 180' shows no terrain." Each choice says
    what it lays where: Zyan's tile 2 is 'IP/PP' (north row first), turned 180° 'PP/PI'; tile 5
    'PI/WW' on spot 9 (e5-f6) puts its water on the south row."""
    s = position()
    turned = Command("factions.tile", {"tile": 2, "spot": 1, "rot": 180}, 0)
    assert GAME.describe_command(s, turned, 0, NAMES) == (
        "ann places their Terrain Tile 2 on spot 1 turned 180°: Island on b1; Plains on a1, a2 and b2.")
    upright = Command("factions.tile", {"tile": 2, "spot": 1, "rot": 0}, 0)
    assert GAME.describe_command(s, upright, 0, NAMES) == (
        "ann places their Terrain Tile 2 on spot 1: Island on a2; Plains on a1, b1 and b2.")
    water = Command("factions.tile", {"tile": 5, "spot": 9, "rot": 0}, 0)
    assert GAME.describe_command(s, water, 0, NAMES) == (
        "ann places their Terrain Tile 5 on spot 9: Water on e5 and f5; Island on f6; Plains on e6.")


def test_a_move_in_play_touches_from_and_to() -> None:
    s = position([(0, "MI", "base")])
    s, events = run(s, "activate MI", "step c1", seat=0, rng=FixedRng())
    moved = [e for e in events if e.type == "factions.UnitMoved"]
    assert moved and GAME.describe_event(s, moved[0], None, NAMES).text.startswith("ann's Zyan Militia")
    assert "c1" in GAME.touched(s, Command("factions.step", {"to": "c1"}, 0), moved)


def test_the_upkeep_is_a_heading_with_each_seats_gains() -> None:
    s = position()
    told = GAME.describe_event(s, Event("factions.ResourcesCounted", {"gains": [[3, 0], [1, 2]], "empty": [0, 0]}),
                               None, NAMES)
    assert told.heading == "Upkeep"
    assert told.text == "Resources are counted: ann 3 gold and 0 mana; bob 1 gold and 2 mana."


def test_the_tile_prompt_names_the_tiles_left() -> None:
    s = fold(GAME, GAME.setup({}, [SeatInfo(0, "ann"), SeatInfo(1, "bob")], Rng(b"words")))
    while s.prompt is not None and s.prompt.kind != "tile":
        s = GAME.decide(s, next(iter(GAME.legal_commands(s, s.prompt.seats[0]))), Rng(b"w")).state
    assert s.prompt is not None
    text = GAME.describe_prompt(s, None, NAMES)
    assert text.endswith(": place one of Terrain Tiles 1, 2, 3, 4 and 5: choose a spot and a rotation."), text
