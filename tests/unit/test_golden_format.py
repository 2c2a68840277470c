"""The golden playthrough format's comparison (tests/support/golden.py) names the first
divergent line and seq instead of printing the whole file."""

from __future__ import annotations

from rules.core import Event
from tests.support.golden import event_line, first_difference

LINES = [
    "# game race",
    '1 race.RaceSetUp {"charms":[3,5],"seats":2,"target":30}',
    "view setup - {\"turn\":0}",
    "> 0 roll",
    '2 race.DieRolled @0 {"bonus":0,"die":4}',
    "> 1 roll",
    '3 race.DieRolled @1 {"bonus":2,"die":5}',
    'outcome {"winners":[1]}',
]


def test_an_event_line_is_seq_type_seat_and_canonical_data() -> None:
    assert event_line(2, Event("race.DieRolled", {"die": 4, "bonus": 0}, 0)) == LINES[4]
    assert event_line(1, Event("race.RaceSetUp", {"target": 30, "seats": 2, "charms": [3, 5]})) == LINES[1]


def test_the_same_lines_have_no_difference() -> None:
    assert first_difference(LINES, list(LINES)) is None


def test_a_changed_event_is_named_by_its_seq_and_command() -> None:
    got = list(LINES)
    got[6] = '3 race.DieRolled @1 {"bonus":0,"die":5}'
    message = first_difference(LINES, got)
    assert message is not None
    assert message.startswith("first difference at line 7, seq 3 (of command 2)")
    assert LINES[6] in message and got[6] in message


def test_a_changed_command_and_a_changed_view_say_what_they_are() -> None:
    got = [*LINES[:5], "> 1 note hi", *LINES[6:]]
    assert "line 6, command 2 (after seq 2)" in (first_difference(LINES, got) or "")
    got = [*LINES[:2], "view setup - {\"turn\":1}", *LINES[3:]]
    assert "the view of seat - at checkpoint setup (after seq 1)" in (first_difference(LINES, got) or "")


def test_a_game_that_stops_early_or_goes_on_is_caught() -> None:
    assert "line 5, seq 2 (of command 1): only want goes on" in (first_difference(LINES, LINES[:4]) or "")
    assert "line 9, command 3 (after seq 3): only got goes on" in (
        first_difference(LINES, [*LINES, "> 0 roll"]) or ""
    )


def test_a_long_line_is_shown_around_its_first_difference() -> None:
    want = ["1 race.Big {\"x\":\"" + "a" * 5000 + "b" + "a" * 5000 + "\"}"]
    got = [want[0].replace("b", "c")]
    message = first_difference(want, got) or ""
    assert len(message) < 1000 and "ab" in message and "ac" in message
