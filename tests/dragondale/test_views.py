"""The board view: the generic board form, JSON, and what only its own seat is shown."""

from __future__ import annotations

import json

import pytest

from rules.dragondale import GAME
from tests.dragondale.positions import new_game


@pytest.mark.parametrize("seat", [0, 1, None])
def test_view_has_the_generic_board_and_is_json(seat: int | None) -> None:
    s = new_game(["vikings", "celts", "druids"])
    v = GAME.view(s, seat)
    assert json.loads(json.dumps(v)) == v
    board = v["board"]
    assert board["kind"] == "areas" and board["edges"]
    for cell in board["cells"]:
        assert {"id", "x", "y", "label", "fill", "pieces"} <= set(cell)
    own = [t for t in v["tribes"] if "hand" in t]
    assert [t["seat"] for t in own] == ([] if seat is None else [seat])
