"""Rng: deterministic per (seed, entropy, game, index), counted, and fair enough."""

from __future__ import annotations

from collections import Counter

import pytest

from rules.core import Rng


def test_same_inputs_same_draws() -> None:
    a, b = Rng(b"s", b"e", "g"), Rng(b"s", b"e", "g")
    assert [a.randint(1, 6) for _ in range(50)] == [b.randint(1, 6) for _ in range(50)]


def test_each_input_changes_the_draws() -> None:
    base = [Rng(b"s", b"e", "g").randint(1, 10**9) for _ in range(1)]
    for rng in (Rng(b"t", b"e", "g"), Rng(b"s", b"f", "g"), Rng(b"s", b"e", "h")):
        assert [rng.randint(1, 10**9)] != base


def test_draws_are_counted_and_resumable() -> None:
    a = Rng(b"s", b"", "g")
    first = [a.randint(1, 6) for _ in range(10)]
    assert a.draws >= 10
    b = Rng(b"s", b"", "g", start=5)
    c = Rng(b"s", b"", "g")
    for _ in range(5):
        c._next64()
    assert [b.randint(1, 6) for _ in range(5)] == [c.randint(1, 6) for _ in range(5)]
    assert len(first) == 10


def test_d6_is_roughly_uniform() -> None:
    rng = Rng(b"fair", b"", "g")
    counts = Counter(rng.randint(1, 6) for _ in range(60_000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(9_400 < c < 10_600 for c in counts.values()), counts


def test_weighted_and_shuffle() -> None:
    rng = Rng(b"w", b"", "g")
    counts = Counter(rng.weighted([1, 3]) for _ in range(20_000))
    assert 0.22 < counts[0] / 20_000 < 0.28
    assert sorted(rng.shuffled(range(20))) == list(range(20))
    with pytest.raises(ValueError):
        rng.weighted([0, 0])
    with pytest.raises(ValueError):
        rng.below(0)
