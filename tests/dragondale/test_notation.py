"""The play-by-post notation and the JSON command shapes: round trips and malformed input."""

from __future__ import annotations

import pytest

from rules.core import InvalidCommand
from rules.dragondale import GAME


@pytest.mark.parametrize("text", [
    "announce", "skip", "plan", "return v3", "discard vik-2", "pay 0 3", "reveal 2",
    "explore in fog1 from camp_a thicket1", "explore out camp_a to thicket1", "take v1 v4",
    "special vik-named", "empower vik-1 fury_up", "poison tree2", "choose enc:oak:dragon:celts",
    "stance raven swooping_attack",
])
def test_notation_round_trips(text: str) -> None:
    c = GAME.parse_text(text, 0)
    assert GAME.format_text(c) == text
    assert GAME.parse_command(c.type, dict(c.args), 0) == c


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
