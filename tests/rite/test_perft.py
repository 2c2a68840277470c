"""Perft for Rite: exact legal-command counts from known positions (set-up, hand-built, seeded)."""

from __future__ import annotations

from rules.core import fold
from rules.rite import GAME
from tests.support.randomplay import play_random

from .helpers import SEATS3, board, energy, puts, started

# rules version 3 (issue #38): seed 35's game takes another course from the first Elemental
# order no longer asked; version 2's counts were [100, 74, 56, 76]
PERFT_35 = [6, 26, 42, 40]


def test_perft_opening_counts() -> None:
    # Humans to move in round 1 with 1 round energy: summon a Knight on one of 4 tiles, or pass.
    s = started({})
    texts = sorted(GAME.format_text(c) for c in GAME.legal_commands(s, 0))
    assert len(texts) == 5 and texts[0] == "pass"
    s3 = started({}, SEATS3)
    assert len(list(GAME.legal_commands(s3, 0))) == 6 + 1
    assert list(GAME.legal_commands(s3, 1)) == []


def test_perft_hand_built_turn() -> None:
    s = board(tiles={"a4": ("summon", "humans", 0)})
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 1, "fighter", "e4")
    s = energy(s, 0, 2, 0)
    cmds = [GAME.format_text(c) for c in GAME.legal_commands(s, 0)]
    kinds = {t.split()[0] for t in cmds}
    assert kinds == {"summon", "move", "defeat", "pass"}
    assert sum(1 for t in cmds if t.startswith("summon")) == 2  # knight, light bringer on a4
    assert sum(1 for t in cmds if t.startswith("defeat")) == 2  # the Fighter (cost 1), own Knight (1)
    assert len(cmds) == 2 + 2 + 1 + sum(1 for t in cmds if t.startswith("move"))
    # 18 tiles within 2 of d4, less e4 (the Fighter) and f4 (only reachable through e4)
    assert sum(1 for t in cmds if t.startswith("move")) == 16


def test_perft_seeded_positions() -> None:
    """Exact legal-command counts at fixed points of a seeded game (regression guard)."""
    rec = play_random(GAME, {"factions": ["humans", "goblins"], "map": "premade"}, ["a", "b"], 35,
                      replay_checks=0, check_audit=False)
    counts = []
    for k in (18, 37, 38, 64):
        seq, cmd = rec.steps[k]
        s = fold(GAME, rec.events[:seq])
        assert cmd.seat is not None
        counts.append(len(list(GAME.legal_commands(s, cmd.seat))))
    assert counts == PERFT_35
