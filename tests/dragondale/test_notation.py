"""The play-by-post notation and the JSON command shapes: round trips and malformed input."""

from __future__ import annotations

import pytest

from rules.core import Command, InvalidCommand
from rules.dragondale import GAME
from rules.dragondale.notation import CHOICES


@pytest.mark.parametrize("text", [
    "announce", "skip", "plan", "return v3", "discard vik-2", "pay 0 3", "reveal 2",
    "explore in fog1 from camp_a thicket1", "explore out camp_a to thicket1", "take v1 v4",
    "special vik-named", "empower vik-1 fury_up", "poison tree2", "encounter dragon celts in oak",
    "stance raven swooping_attack", "act hunters", "dispel seers warriors", "move all to fog1",
    "move all to fog1 but raven to thicket1", "move v3 to fog1", "tunnel v2 to tunnel2", "hide v5",
    "exchange 1", "check tree3", "reveal 2 to boost", "reveal 0 to take idea", "reward boost",
    "reward insight", "reward dragon", "reward check tree1", "dragon to oak", "tree tree4",
    "option 1", "reveal fury", "stay dominance", "stay insight", "first celts", "chaos", "dreams",
])
def test_notation_round_trips(text: str) -> None:
    c = GAME.parse_text(text, 0)
    assert GAME.format_text(c) == text
    assert GAME.parse_command(c.type, dict(c.args), 0) == c


@pytest.mark.parametrize(("text", "written"), [
    ("Explore In Fog1 From Camp_A Thicket1", "explore in fog1 from camp_a thicket1"), ("TAKE V1 V4", "take v1 v4"),
    ("Special Vik-Named", "special vik-named"), ("special vik-a", "special vik-A"), ("Discard DRU-b", "discard dru-B"),
    ("Empower Vik-1 Fury_Up", "empower vik-1 fury_up"), ("Stance Raven Swooping_Attack", "stance raven swooping_attack"),
    ("First Celts", "first celts"),
])
def test_notation_is_read_in_any_case(text: str, written: str) -> None:
    """As Rite's and Factions' notations are: a card's id is found whatever its case."""
    assert GAME.format_text(GAME.parse_text(text, 0)) == written


@pytest.mark.parametrize("typ,args", [
    ("dragondale.fly", {}),
    ("dragondale.take", {"units": []}),
    ("dragondale.take", {"units": ["v1", "v1"]}),
    ("dragondale.pay", {"tokens": ["a"]}),
    ("dragondale.pay", {"tokens": [-1]}),
    ("dragondale.explore", {"dir": "up", "target": "fog1", "via": ["camp_a"]}),
    ("dragondale.explore", {"dir": "in", "target": "fog1", "via": ["a", "b", "c"]}),
    ("dragondale.choose", {}),
    ("dragondale.choose", {"option": "x", "extra": 1}),
    ("dragondale.stance", {"unit": "raven", "card": 3}),
])
def test_malformed_commands_are_invalid(typ: str, args: dict) -> None:
    with pytest.raises(InvalidCommand):
        GAME.parse_command(typ, args, 0)


@pytest.mark.parametrize("text", ["", "fly away", "explore sideways fog1 from a", "pay x", "return"])
def test_malformed_text_is_invalid(text: str) -> None:
    with pytest.raises(InvalidCommand):
        GAME.parse_text(text, 0)


@pytest.mark.parametrize(("text", "says"), [
    ("fly fog1", "unknown command 'fly'; the commands are announce, choose,"),
    # the first word of a choice: its forms (was "unknown command 'move'")
    ("move fog1", "move is a choice, written 'move all to <territory>' or 'move all to <territory> but <unit> to "
                  "<territory>' or 'move <unit> to <territory>'"),
    ("first", "first is a choice, written 'first <tribe>': the list of commands gives the ones open now"),
    ("explore fog1", "explore reads 'explore in <territory> from <territory> [<territory>]'"),
    ("stance raven", "stance reads 'stance <unit> <card>'"),
    ("plan now", "plan takes nothing after it"),
    ("take", "take reads 'take <unit> [<unit> ...]', e.g. 'take c3'"),  # was "units must be a non-empty list"
])
def test_a_misread_command_says_how_it_is_written(text: str, says: str) -> None:
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text(text, 0)
    assert e.value.code == "bad_text" and says in e.value.message


def test_choices_are_words_a_player_types_from_the_board() -> None:
    """Issue #16, Dragon Dale 11: a prompt's options print as words naming what the board shows
    (territories, tribes, unit types, trees, token places), never as the internal key, and the
    words read back to the same command; the old `choose <key>` form is still read."""
    samples = {"t": "oak", "a": "dragon", "b": "celts", "u": "warriors", "d": "fog1", "e": "thicket1",
               "i": "2", "s": "celts"}
    for key_pattern, _ in CHOICES:
        key = key_pattern.replace("{*u}", "seers+warriors")
        for name, value in samples.items():
            key = key.replace("{" + name + "}", value)
        c = Command("dragondale.choose", {"option": key}, 0)
        text = GAME.format_text(c)
        assert not text.startswith("choose") and ":" not in text and "+" not in text, text
        assert GAME.parse_text(text, 0) == c
        assert GAME.parse_text(f"choose {key}", 0) == c
        assert GAME.parse_text(f"choose {text}", 0) == c
    assert GAME.parse_text("Encounter Dragon Celts in oak", 0) == GAME.parse_text("choose enc:oak:dragon:celts", 0)
    odd = Command("dragondale.choose", {"option": "start:celts"}, 0)
    assert GAME.format_text(odd) == "choose start:celts"
    assert GAME.parse_text("choose start:celts", 0) == odd


def test_format_text_of_a_redacted_stance_command() -> None:
    """Issue #16, Dragon Dale 10d: another seat's copy of a `stance` command has no card, and
    printing it names the unit type only (it raised KeyError)."""
    c = GAME.parse_text("stance raven swooping_attack", 0)
    seen = GAME.redact_command(c, 1)
    assert seen is not None and "card" not in seen.args
    assert GAME.format_text(seen) == "stance raven"
    assert GAME.format_text(GAME.redact_command(c, 0) or c) == "stance raven swooping_attack"


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_command_says_what_to_write(text: str) -> None:
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text(text, 0)
    assert e.value.message == "the command is empty: write a move in notation, as the list of commands gives it"
