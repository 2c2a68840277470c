"""Random bots play complete games through the contract checks of tests.support.randomplay."""

from __future__ import annotations

import pytest

from rules.dragondale import GAME
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
def test_random_play_reaches_every_prompt_kind() -> None:
    import random

    from rules.core import Rng, SeatInfo, fold
    from rules.dragondale.engine import LEGAL

    seen: set[str] = set()
    for seed in range(150):
        n = 2 + seed % 3
        tribes = (TRIBES[seed % 4:] + TRIBES[: seed % 4])[:n]
        rng = Rng(seed.to_bytes(8, "big"))
        opts = {"tribes": tribes, "experienced": seed % 2 == 1, "newcomer": seed % 5 == 0}
        s = fold(GAME, GAME.setup(opts, [SeatInfo(i, t) for i, t in enumerate(tribes)], rng))
        bot = random.Random(seed)
        while GAME.is_over(s) is None:
            seen.add(s.prompt.kind)
            seat = bot.choice(list(s.prompt.seats))
            for e in GAME.decide(s, bot.choice(list(GAME.legal_commands(s, seat))), rng):
                s = GAME.evolve(s, e)
    assert set(LEGAL) <= seen
