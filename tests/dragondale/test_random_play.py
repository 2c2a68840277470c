"""Random bots play complete games through the contract checks of tests.support.randomplay."""

from __future__ import annotations

import random

import pytest

from rules.core import Rng, SeatInfo, fold
from rules.decider import decide
from rules.dragondale import GAME
from rules.dragondale.tasks import PROMPTS
from tests.support.randomplay import play_random

TRIBES = ["vikings", "celts", "druids", "dark_faery"]


def _options(n: int, seed: int) -> dict:
    order = TRIBES[seed % 4:] + TRIBES[: seed % 4]
    return {"tribes": order[:n], "experienced": seed % 2 == 1, "newcomer": seed % 3 == 0}


def _play(n: int, seed: int) -> int:
    rec = play_random(GAME, _options(n, seed), [f"p{i}" for i in range(n)], seed)
    assert rec.outcome is not None and len(rec.outcome.winners) == 1
    return len(rec.commands)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", range(8))
def test_random_games_fast(n: int, seed: int) -> None:
    _play(n, seed)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_200_each(n: int) -> None:
    lengths = [_play(n, 1000 + seed) for seed in range(200)]
    assert max(lengths) < 20_000


@pytest.mark.slow
def test_random_play_reaches_every_prompt_kind_and_each_takes_what_it_lists() -> None:
    """Every prompt kind comes up, and the command types `answers` names for a kind are exactly
    the types its legal answers were seen to take (so the platform's type check is neither
    looser nor stricter than the rules)."""
    seen: dict[str, set[str]] = {}
    # at least 150 games, and on until every kind came up (two tribes over a Fury edge in one
    # step E, the rarest, needs a few hundred games of uniform bots)
    for seed in range(1000):
        if seed >= 150 and set(seen) == set(PROMPTS):
            break
        n = 2 + seed % 3
        tribes = (TRIBES[seed % 4:] + TRIBES[: seed % 4])[:n]
        rng = Rng(seed.to_bytes(8, "big"))
        opts = {"tribes": tribes, "experienced": seed % 2 == 1, "newcomer": seed % 5 == 0}
        s = fold(GAME, GAME.setup(opts, [SeatInfo(i, t) for i, t in enumerate(tribes)], rng))
        bot = random.Random(seed)
        while GAME.is_over(s) is None:
            seat = bot.choice(list(s.prompt.seats))
            legal = list(GAME.legal_commands(s, seat))
            seen.setdefault(s.prompt.kind, set()).update(c.type for c in legal)
            s = decide(GAME, s, bot.choice(legal), rng).state
    assert set(seen) == set(PROMPTS)
    assert {k: a.types for k, a in PROMPTS.items()} == seen
