"""Hidden information: Rite hides nothing in its events (power cards are named only when used)."""

from __future__ import annotations

from rules.decider import decide
from rules.rite import GAME

from .helpers import rng, started


def test_events_are_public() -> None:
    s = started({})
    c = next(iter(GAME.legal_commands(s, 0)))
    for e in decide(GAME, s, c, rng()).events:
        assert GAME.redact(e, 1) == e and GAME.redact(e, None) == e
    assert GAME.redact_command(c, None) == c
