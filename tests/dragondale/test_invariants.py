"""Conservation and placement invariants checked after every event of random games."""

from __future__ import annotations

import random

import pytest

from rules.core import Rng, SeatInfo, fold
from rules.decider import decide
from rules.dragondale import GAME
from rules.dragondale.board import board_for
from rules.dragondale.content import CARDS
from rules.dragondale.state import State


def _tokens(s: State) -> int:
    return (sum(s.bag.values()) + sum(len(v) for v in s.terr_tokens.values()) + len(s.fury_tokens)
            + sum(len(t.tokens) + len(t.staked) for t in s.tribes))


def _check(s: State, total: int) -> None:
    b = board_for(s.n)
    assert _tokens(s) == total, "insight tokens are neither made nor lost"
    assert s.dragon is None or b.terr[s.dragon].dragon, "the Dragon stays in Dragon territories"
    for i, t in enumerate(s.tribes):
        dealt = len(CARDS[t.name]) - (1 if s.experienced and not t.newcomer else 0)
        assert len(t.hand) + len(t.library) + len(t.ideas) == dealt
        assert len(set(t.hand + t.library + t.ideas)) == dealt
        assert 2 <= t.fury <= 10
        for u in t.units:
            if u.loc is None or u.type == "ox":
                assert not u.hidden, "dispelled units and the Ox are never hidden"
            if u.loc is not None and b.terr[u.loc].kind == "camp":
                assert u.loc == t.camp, "only a tribe's own units enter its encampment"
        assert sorted(x for x in s.dominance if x >= 0) == list(range(s.n))
        assert i in s.dominance


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_invariants_hold_through_random_games(n: int, seed: int) -> None:
    tribes = random.Random(seed).sample(["vikings", "celts", "druids", "dark_faery"], n)
    rng = Rng(seed.to_bytes(8, "big"), b"", "inv")
    s = fold(GAME, GAME.setup({"tribes": tribes, "experienced": seed % 2 == 1, "newcomer": seed == 2},
                              [SeatInfo(i, t) for i, t in enumerate(tribes)], rng))
    total = _tokens(s)
    bot = random.Random(seed)
    while GAME.is_over(s) is None:
        assert s.prompt is not None
        seat = bot.choice(list(s.prompt.seats))
        for e in decide(GAME, s, bot.choice(list(GAME.legal_commands(s, seat))), rng).events:
            s = GAME.evolve(s, e)
            _check(s, total)
