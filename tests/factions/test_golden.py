"""Golden playthrough of Factions (tests/golden/factions/*.txt, format in tests/support/golden.py).
Regenerate with BOARDLOG_REGOLD=1 (only when a change of events or views is intended)."""

from __future__ import annotations

import pytest

from rules.factions import GAME
from tests.support.golden import Case, check

CASES = [
    Case("playthrough", {"factions": ["zyan", "zermano"]}, ["ann", "bob"], b"golden", "golden-factions", 2026),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_playthrough(case: Case) -> None:
    check(GAME, case)
