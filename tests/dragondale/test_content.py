"""Boards and content load and are consistent, and the rules cover every effect and event."""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path

import pytest

from rules.dragondale.board import board_for
from rules.dragondale.content import CARDS, FURY_CARDS, MOVEMENT_CARDS, STANCES, TRIBES
from rules.dragondale.content import EFFECTS as CONTENT_EFFECTS
from rules.dragondale.effects import EFFECTS
from rules.dragondale.evolve import HANDLERS


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


def test_every_effect_the_content_may_name_has_a_rule() -> None:
    assert set(EFFECTS) == CONTENT_EFFECTS


def test_every_event_the_rules_emit_has_a_fold_and_every_fold_an_event() -> None:
    emitted: set[str] = set()
    for path in (Path(__file__).resolve().parents[2] / "rules" / "dragondale").glob("*.py"):
        text = path.read_text()
        emitted |= {"dragondale." + e for e in re.findall(r'\.emit\(\s*"(\w+)"', text)}
        emitted |= set(re.findall(r'Event\(\s*"(dragondale\.\w+)"', text))
    assert emitted == set(HANDLERS)  # and no fold is left without an event
