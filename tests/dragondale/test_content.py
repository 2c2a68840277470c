"""Boards and content load, are consistent, and the view has the generic board form."""

from __future__ import annotations

import json
from collections import deque

import pytest

from rules.dragondale import GAME
from rules.dragondale.board import board_for
from rules.dragondale.content import CARDS, FURY_CARDS, MOVEMENT_CARDS, STANCES, TRIBES
from tests.dragondale.positions import new_game


@pytest.mark.parametrize("n", [2, 3, 4])
def test_board_is_connected_and_has_every_territory_type(n: int) -> None:
    b = board_for(n)
    seen = {b.order[0]}
    todo = deque(seen)
    while todo:
        for nxt in b.adj[todo.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    assert seen == set(b.terr)
    kinds = {t.kind for t in b.terr.values()}
    assert {"marsh", "mountain", "thicket", "tunnel", "fog", "inner", "camp"} <= kinds
    assert len(b.camps) == n and len(b.tunnels) >= 2 and len(b.trees) == 5
    assert sum(t.kind == "inner" for t in b.terr.values()) == 3
    assert any(t.outer and not t.arrows for t in b.terr.values())
    assert any(t.rune_stone for t in b.terr.values()) and any(t.reward for t in b.terr.values())


def test_four_tribe_trees_stand_on_borders() -> None:
    b = board_for(4)
    for where in b.trees.values():
        assert len(where) == 2 and where[1] in b.adj[where[0]]


def test_content_counts() -> None:
    assert {t: sum(len(v) for v in TRIBES[t]["stances"].values()) for t in TRIBES} == {
        "vikings": 12, "celts": 10, "druids": 10, "dark_faery": 10}
    assert {t: len(v) for t, v in CARDS.items()} == {"vikings": 15, "celts": 15, "druids": 16, "dark_faery": 15}
    assert len(FURY_CARDS) == 9 and len(MOVEMENT_CARDS) == 14
    assert sum("stay" in m for m in MOVEMENT_CARDS.values()) == 2
    for name in ("swooping_attack", "magician", "great_hunt", "flying_paws", "alanis", "forest_guardian"):
        assert STANCES[name]["source"] == "draft"
    names = {c["name"] for lst in CARDS.values() for c in lst}
    assert {"Felling the Dragon Tree", "Reaching the Dragon Tree", "Master Hunters",
            "Druid's Dominance", "Experienced Commander"} <= names
    assert FURY_CARDS["banning"]["mod"] == 1 and FURY_CARDS["reflection"]["mod"] == -1


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
