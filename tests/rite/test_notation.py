"""The play-by-post notation: every command prints and reads back to itself, and its JSON shape parses."""

from __future__ import annotations

import orjson
import pytest

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
