"""Set-up options and seat counts that are refused."""

from __future__ import annotations

import pytest

from rules.core import InvalidCommand, Rng, SeatInfo
from rules.dragondale import GAME


@pytest.mark.parametrize("options", [
    {"tribes": ["vikings"]}, {"tribes": ["vikings", "vikings"]}, {"tribes": ["vikings", "orcs"]},
    {"tribes": ["vikings", "celts"], "experienced": "yes"}, {"colour": "red"},
    {"tribes": ["vikings", "celts"], "newcomer": ["druids"]},
])
def test_bad_options(options: dict) -> None:
    with pytest.raises(InvalidCommand) as err:
        GAME.setup(options, [SeatInfo(0, "a"), SeatInfo(1, "b")], Rng(b"x"))
    assert err.value.code == "bad_options"


def test_bad_seat_counts() -> None:
    for n in (1, 5):
        with pytest.raises(InvalidCommand):
            GAME.setup({}, [SeatInfo(i, "x") for i in range(n)], Rng(b"x"))
