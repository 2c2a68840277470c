"""Perft: exact legal_commands counts from known positions."""

from __future__ import annotations

from rules.core import Rng, SeatInfo, fold
from rules.factions import GAME
from tests.factions.helpers import position, run, texts


def test_perft_advantage_and_first_tile() -> None:
    s = fold(GAME, GAME.setup({}, [SeatInfo(0, "a"), SeatInfo(1, "b")], Rng(b"perft")))
    assert len(texts(s, s.ps[0])) == 2 and texts(s, 1 - s.ps[0]) == []
    s, _ = run(s, "choose terrain")
    assert len(texts(s, s.ps[0])) == 78


def test_perft_turn_and_activation() -> None:
    s = position([(0, "EG", "c2"), (1, "SC", "c5")])
    assert len(texts(s, 0)) == 15  # activate EG + 14 affordable recruits
    s, _ = run(s, "activate EG")
    assert sorted(texts(s, 0)) == sorted(
        ["step c3", "step d2", "step c1", "step b2", "step d1", "step b3", "step b1", "end"])


def test_perft_bullrush_cavalry() -> None:
    s = position([(0, "AC", "c2"), (0, "BO", "a1"), (1, "DW", "c3"), (1, "MP", "b3"), (1, "SC", "d2")], p1=1)
    s, _ = run(s, "activate SC", "end", "activate MP", "end", "activate AC")
    # Each bullrush may place its unit on any open space of the eight around it (Helpful Terms).
    assert len(texts(s, 0)) == 24
    assert "attack b3" not in texts(s, 0)  # the Manawing Parrot is flying
