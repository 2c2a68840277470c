"""Random play through the contract harness: a fast subset by default, the full counts as slow."""

from __future__ import annotations

import itertools

import pytest

from rules.factions import GAME
from rules.factions.content import FACTION_IDS
from tests.support.randomplay import play_random

PAIRS = [list(p) for p in itertools.permutations(FACTION_IDS, 2)]


def _play(factions: list[str], seed: int) -> None:
    rec = play_random(GAME, {"factions": factions}, [f"p{i}" for i in range(len(factions))], seed,
                      max_commands=50_000)
    assert rec.outcome is not None and rec.outcome.winners
    for w in rec.outcome.winners:
        assert 0 <= w < len(factions)


@pytest.mark.parametrize("i", range(16))
def test_random_two_players_fast(i: int) -> None:
    _play(PAIRS[(i * 5) % len(PAIRS)], 500 + i)


@pytest.mark.parametrize("n", [3, 4])
def test_random_three_four_players_fast(n: int) -> None:
    for k in range(3):
        _play([FACTION_IDS[(k + 2 * j) % 9] for j in range(n)], 700 + 10 * n + k)


def test_random_four_center_reading() -> None:
    rec = play_random(GAME, {"factions": ["kragg", "primus"], "resource_centers": 4}, ["a", "b"], 91)
    assert rec.outcome is not None and rec.outcome.winners


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(8))
def test_random_two_players_all_pairs(chunk: int) -> None:
    # 216 games: every ordered pair of the nine factions three times.
    for i in range(chunk, 216, 8):
        _play(PAIRS[i % len(PAIRS)], 10_000 + i)


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("chunk", range(4))
def test_random_many_players(n: int, chunk: int) -> None:
    for i in range(chunk, 100, 4):
        _play([FACTION_IDS[(i + 2 * j) % 9] for j in range(n)], 20_000 * n + i)
