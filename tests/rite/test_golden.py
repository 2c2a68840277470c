"""Golden playthroughs of Rite (tests/golden/rite/*.txt, format in tests/support/golden.py).
Regenerate with BOARDLOG_REGOLD=1 (only when a change of events or views is intended)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rules.rite import GAME
from tests.support.golden import Case, check
from tests.support.randomplay import Policy

from .bot import seeking

FIVE = ["humans", "goblins", "undead", "chaos", "primals"]


def _case(name: str, factions: list[str], seed: int, policy: Callable[[], Policy] | None = None) -> Case:
    """The Rng and bot that play_random(GAME, options, names, seed) seeds."""
    names = ["ann", "bob", "cat", "dan", "eve"][: len(factions)]
    options = {"factions": factions, "map": "premade"}
    return Case(name, options, names, seed.to_bytes(8, "big"), f"test-{seed}", seed, policy=policy)


CASES = [
    # a short uniform game: seed 35's ended in 76 commands under rules version 2; under version 3
    # (no Elemental order prompt where the order changes nothing) it ran to a 90,000-line golden;
    # seed 212 ends in 112
    _case("playthrough", ["humans", "goblins"], 212),
    # all five factions, the objective-seeking bot (a uniform game runs to tens of thousands of commands)
    _case("playthrough-hgucp", FIVE, 8, policy=seeking),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_playthrough(case: Case) -> None:
    check(GAME, case)
