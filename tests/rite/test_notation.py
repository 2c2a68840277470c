"""The play-by-post notation: every command prints and reads back to itself, and its JSON shape parses."""

from __future__ import annotations

import orjson
import pytest

from rules.core import InvalidCommand
from rules.rite import GAME


@pytest.mark.parametrize(
    "text",
    [
        "summon knight c4",
        "move c4 d5 d6",
        "move c4 e6",
        "defeat d6 from e6",
        "defeat d6",
        "rock d6",
        "fly c4 e6",
        "fireball c4 d6",
        "pay x2 y3",
        "pay x2 y0 flames",
        "breathe d6",
        "breathe d6 flames",
        "presence",
        "power rally c4",
        "power sign col:c row:5 flames",
        "power frenzy",
        "choose rise:c4",
        "choose c4-d5",
        "place earth d4 r2",
        "place firefly3 c4",
        "place summon-humans a1",
        "end",
        "pass",
    ],
)
def test_notation_round_trips(text: str) -> None:
    c = GAME.parse_text(text, 1)
    assert GAME.format_text(c) == text
    assert GAME.parse_text(GAME.format_text(c), 1) == c
    assert GAME.parse_command(c.type, orjson.loads(orjson.dumps(dict(c.args))), 1) == c


@pytest.mark.parametrize(("text", "code", "says"), [
    ("summon knight", "bad_notation", "write summon <unit> <tile>, e.g. summon knight c4"),
    ("summon knight z9", "bad_args", "at must be a tile like 'c4', not 'z9'"),  # which word was wrong
    ("dance", "bad_notation", "no command 'dance' (one of act, breathe,"),
])
def test_a_misread_command_says_how_it_is_written(text: str, code: str, says: str) -> None:
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text(text, 0)
    assert e.value.code == code and says in e.value.message, e.value.message


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_command_says_what_to_write(text: str) -> None:
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text(text, 0)
    assert e.value.message == "the command is empty: write a move in notation, as the list of commands gives it"
