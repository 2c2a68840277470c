"""Notation and JSON shapes: round trips and clear errors for bad input."""

from __future__ import annotations

import pytest

from rules.core import Command, InvalidCommand, Prompt, Rng
from rules.decider import decide
from rules.factions import GAME
from rules.factions.legal import ANSWERS
from tests.factions.helpers import position

SAMPLES = ["choose terrain", "tile 3 5 180", "center gold c3", "aside RS", "recruit EG", "done",
           "activate SC", "command EG MI", "step d4", "step c1 aside b1", "fly", "land", "attack d5",
           "shoot e6", "use LB c3", "end"]


@pytest.mark.parametrize("text", SAMPLES)
def test_text_round_trips(text: str) -> None:
    c = GAME.parse_text(text, 1)
    assert GAME.format_text(c) == text and c.seat == 1
    assert GAME.parse_command(c.type, dict(c.args), 1) == c
    assert c.type in GAME.command_types


def test_parse_normalises_case() -> None:
    assert GAME.parse_text("Use lb C3", 0) == Command("factions.use", {"power": "LB", "target": "c3"}, 0)


@pytest.mark.parametrize("type_,args", [
    ("factions.fly_away", {}),
    ("factions.step", {}),
    ("factions.step", {"to": 3}),
    ("factions.step", {"to": "z9"}),
    ("factions.tile", {"tile": "1", "spot": 2, "rot": 0}),
    ("factions.tile", {"tile": 1, "spot": 2, "rot": 90}),
    ("factions.tile", {"tile": True, "spot": 2, "rot": 0}),
    ("factions.center", {"kind": "silver", "space": "c3"}),
    ("factions.end", {"now": True}),
    ("factions.choose", {"advantage": "luck"}),
])
def test_malformed_commands_are_invalid(type_: str, args: dict[str, object]) -> None:
    with pytest.raises(InvalidCommand):
        GAME.parse_command(type_, args, 0)


@pytest.mark.parametrize("text", ["", "jump", "step", "step d4 e5", "tile 1 x 0", "use LB"])
def test_bad_text_is_invalid(text: str) -> None:
    with pytest.raises(InvalidCommand):
        GAME.parse_text(text, 0)


def test_decide_refuses_malformed_and_unknown_commands() -> None:
    s = position([(0, "EG", "c2"), (1, "SC", "c5")])
    with pytest.raises(InvalidCommand) as e:
        decide(GAME, s, Command("factions.activate", {}, 0), Rng(b""))
    assert e.value.code == "bad_args"
    with pytest.raises(InvalidCommand) as e:
        decide(GAME, s, Command("factions.teleport", {"to": "a1"}, 0), Rng(b""))
    assert e.value.code == "unknown_command"
    # The Decider normalises the JSON shape (unit codes upper case) before the rules look.
    d = decide(GAME, s, Command("factions.activate", {"unit": "eg"}, 0), Rng(b""))
    assert [e.data for e in d.events] == [{"seat": 0, "unit": "0:EG"}] and d.state.active == "0:EG"


def test_every_command_type_answers_a_prompt() -> None:
    assert frozenset().union(*ANSWERS.values()) == GAME.command_types
    assert GAME.answers(Prompt((0,), "activation")) == ANSWERS["activation"]
    assert GAME.answers(Prompt((0,), "no_such_prompt")) == frozenset()


def test_a_choice_is_read_in_any_case_and_a_wrong_one_names_the_choices() -> None:
    assert GAME.parse_text("CHOOSE Terrain", 0) == Command("factions.choose", {"advantage": "terrain"}, 0)
    assert GAME.parse_command("factions.center", {"kind": "Gold", "space": "c3"}, 0).args["kind"] == "gold"
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("choose terain", 0)
    assert e.value.message == ("advantage must be one of terrain, resource, tile_first, resources, recruit_last, "
                               "not 'terain'")


def test_wrong_number_of_words_shows_the_expected_form() -> None:
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("use c5", 0)
    assert e.value.code == "bad_text"
    assert e.value.message == "use takes 2 words after it: write use <spell or ability> <space>, e.g. 'use LB c5'"
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("fly away", 0)
    assert e.value.message == "fly takes no words after it: write 'fly' alone"
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("recruit", 0)
    assert e.value.message == "recruit takes 1 word after it: write recruit <unit>, e.g. 'recruit RS'"
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("shoot", 0)
    assert "e.g. 'shoot d5'" in e.value.message
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("march d4", 0)
    assert e.value.code == "unknown_command" and "activate" in e.value.message


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_command_says_what_to_write(text: str) -> None:
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text(text, 0)
    assert e.value.message == "the command is empty: write a move in notation, as the list of commands gives it"


def test_the_unknown_verb_refusal_lists_every_verb_step_among_them() -> None:
    """Issue #38 item 11: the refusal of an unknown verb names every verb the notation reads,
    `step` (the most common) included."""
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("jump d4", 0)
    assert e.value.code == "unknown_command"
    listed = e.value.message.split("the verbs are ", 1)[1].split(", ")
    assert listed == sorted(c.split(".", 1)[1] for c in GAME.command_types)
    assert "step" in listed
