"""Rite in words (issue #14): prompts, commands and events from hand-built positions, by the
rulebook's names, and the tiles a move touched."""

from __future__ import annotations

from rules.core import Command, Event
from rules.rite import GAME
from rules.rite.state import State

from .helpers import board, energy, put, puts, run

NAMES = ["ann", "bob"]


def _said(s: State, type: str, data: dict, seat: int | None = None):  # type: ignore[no-untyped-def, type-arg]
    return GAME.describe_event(s, Event(type, data, seat), None, NAMES)


def test_a_summon_names_the_unit_by_its_rulebook_name() -> None:
    s = board()
    c = Command("rite.summon", {"unit": "lightbringer", "at": "a4"}, 0)
    assert GAME.describe_command(s, c, 0, NAMES) == "ann summons a Light Bringer on a4."
    assert _said(s, "rite.UnitPlaced", {"uid": 8, "at": "a4", "how": "summon"}, 0).text == \
        "ann summons a Light Bringer on a4."


def test_a_move_names_the_unit_its_path_and_the_tiles_it_touched() -> None:
    s = energy(puts(board(), 0, "knight", "a4"), 0, round_e=2)
    c = Command("rite.move", {"path": ["a4", "b4", "c4"]}, 0)
    assert GAME.describe_command(s, c, 0, NAMES) == "ann moves their Knight on a4 to c4 (via b4)."
    _, events = run(s, 0, "move a4 b4 c4")
    assert GAME.touched(s, c, events) == ["a4", "b4", "c4"]
    moved = next(e for e in events if e.type == "rite.UnitMoved")
    assert GAME.describe_event(s, moved, 1, NAMES).text == "ann's Knight on a4 moves to c4 (via b4)."


def test_the_volcano_opens_its_own_heading_and_records_its_die() -> None:
    s = board()
    told = _said(s, "rite.FlowStepped", {"step": "v_roll"})
    assert told.heading == "The volcano" and told.quiet
    die = _said(s, "rite.VolcanoRolled", {"die": 4}, 0)
    assert die.text == "The volcano erupts: 4." and die.draw == "volcano die 4" and die.heading is None
    assert _said(s, "rite.RockPlaced", {"at": "c3"}).text == "A rock falls on c3."


def test_a_unit_the_volcano_defeats_is_named_with_its_owner_not_its_uid() -> None:
    s, uid = put(board(), 1, "fighter", "c3")
    text = _said(s, "rite.UnitDefeated", {"uid": uid, "at": "c3", "by": -1, "cause": "volcano", "to": "reserve"}).text
    assert text == "bob's Fighter on c3 is defeated by the volcano and goes to its reserve."
    assert "uid" not in text and str(uid) not in text


def test_a_firefly_is_the_volcanos_not_seat_minus_one() -> None:
    s = board()
    firefly = next(i for i, u in enumerate(s.units) if u.kind == "firefly")
    text = _said(s, "rite.UnitPlaced", {"uid": firefly, "at": "e2", "how": "volcano"}, -1).text
    assert text == "A Firefly appears on e2."


def test_the_end_of_a_round_is_a_heading_with_the_new_turn_order() -> None:
    s = board()
    told = _said(s, "rite.FlowQueued", {"steps": ["eor", "v_roll"]})
    assert told.heading == "End of round 1"
    order = _said(s, "rite.RoundEnded", {"round": 2, "order": [1, 0], "players": [[2, 0, 0, 0], [2, 0, 0, 0]]})
    assert order.text == "Round 1 ends; the turn order for round 2 is bob and ann."


def test_a_power_goes_by_its_card_name() -> None:
    s = board()
    c = Command("rite.power", {"name": "flames", "args": []}, 1)
    assert GAME.describe_command(s, c, 1, NAMES) == "bob uses Lasting Flames."
    assert _said(s, "rite.PowerUsed", {"seat": 0, "power": "sacred", "card": 2}, 0).text == "ann uses Sacred Grounds."


def test_the_turn_prompt_says_who_and_what() -> None:
    s = board()
    assert GAME.describe_prompt(s, None, NAMES) == "ann (Humans): take an action, use a power or pass (round 1)."


def test_the_rage_and_rune_choices_read_in_words() -> None:
    s = board()
    assert GAME.describe_command(s, Command("rite.choose", {"option": "rage:2"}, 1), 1, NAMES) == \
        "bob pays 2 rage towards the Wyrmling's action."
    assert GAME.describe_command(s, Command("rite.choose", {"option": "rune:c4"}, 0), 0, NAMES) == \
        "ann activates the rune tile c4."
    told = _said(s, "rite.RunesPending", {"tiles": ["c4", "d5"], "n": 1}, 0)
    assert told.text == "The Undead may activate 1 rune tile of c4 and d5." and told.quiet
