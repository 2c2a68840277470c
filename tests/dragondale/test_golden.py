"""Golden playthrough of Dragon Dale (tests/golden/dragondale/*.txt, format in tests/support/golden.py).
Regenerate with BOARDLOG_REGOLD=1 (only when a change of events or views is intended)."""

from __future__ import annotations

import pytest

from rules.dragondale import GAME
from tests.support.golden import Case, check

SEED = 11
OPTIONS = {"tribes": ["celts", "dark_faery", "vikings"], "experienced": True}
CASES = [
    Case("playthrough", OPTIONS, ["p0", "p1", "p2"], SEED.to_bytes(8, "big"), "golden", SEED,
         checkpoints=(0, 1, 2, 3, 10, 25, 50)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_playthrough(case: Case) -> None:
    check(GAME, case)
