"""Snapshots as data (events/records/snapshot.py): every state of every registered game, and any
tree of the supported kinds, reads back equal and of the same types; anything else is refused.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import random
import sys
import types
from collections.abc import Iterator
from typing import Any, NamedTuple

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.domain.match import Match
from events.records.snapshot import SnapshotError, decode, encode
from events.store.store import snapshot_classes
from rules import catalog
from rules.core import SeatInfo, fold, games
from tests.support.randomplay import play_random

catalog.load()
GAMES = dict(sorted(games().items()))
SEEDS = (3, 29)
COMMANDS = 400
CUTS = 6  # states of each game checked, at random points of its events


def same(a: Any, b: Any, where: str = "state") -> None:
    """Equal and of the same type at every node (== alone takes a set for a frozenset, a dict for
    a read-only mapping)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} came back as {type(b).__name__}"
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, tuple | list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict | types.MappingProxyType):
        assert list(a) == list(b), where
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b), where
    else:
        assert a == b, where


def states(name: str, seed: int) -> Iterator[Match]:
    game = GAMES[name]
    n = random.Random(seed).randint(game.min_seats, game.max_seats)
    seats = tuple(SeatInfo(i, f"p{i}") for i in range(n))
    rec = play_random(game, {}, [s.name for s in seats], seed, max_commands=COMMANDS, replay_checks=0,
                      check_notation=False, check_audit=False, require_end=False)
    cuts = sorted(random.Random(seed).sample(range(1, len(rec.events) + 1), min(CUTS, len(rec.events))))
    for k in (*cuts, len(rec.events)):
        yield Match(f"p01-snap{seed:08d}", name, seats, {"seed": seed}, "ab" * 32, "", k, fold(game, rec.events[:k]), k,
                    joined=frozenset(range(n)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(GAMES))
def test_every_state_of_every_game_reads_back_equal(name: str, seed: int) -> None:
    for match in states(name, seed):
        back = decode(encode(match), snapshot_classes)
        assert back == match
        same(match, back)


# -- any tree of the supported kinds ------------------------------------------------------------

class Colour(enum.Enum):
    RED = "red"
    BLUE = 2


class Spot(NamedTuple):
    x: int
    y: int


@dataclasses.dataclass(frozen=True, slots=True)
class Slotted:
    a: Any
    b: Any = None


@dataclasses.dataclass(frozen=True)
class Plain:
    a: Any
    later: Any = dataclasses.field(default=0, init=False)  # set by __post_init__, not by __init__

    def __post_init__(self) -> None:
        object.__setattr__(self, "later", ("made", self.a))


def here(module: str) -> bool:
    return module == __name__


scalars = (st.none() | st.booleans() | st.integers() | st.text(max_size=8)
           | st.floats(allow_nan=False) | st.binary(max_size=4) | st.sampled_from(Colour))
keys = st.none() | st.booleans() | st.integers(-50, 50) | st.text(max_size=4) | st.tuples(st.integers(), st.text(max_size=2))


def trees(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return (st.lists(children, max_size=4).map(tuple)
            | st.lists(children, max_size=4)
            | st.frozensets(keys, max_size=4)
            | st.sets(keys, max_size=4)
            | st.dictionaries(keys, children, max_size=4)
            | st.dictionaries(keys, children, max_size=4).map(types.MappingProxyType)
            | st.builds(Spot, st.integers(), st.integers())
            | st.builds(Slotted, children, children)
            | st.builds(Plain, children))


@settings(max_examples=300, deadline=None)
@given(st.recursive(scalars, trees, max_leaves=30))
def test_any_tree_of_the_supported_kinds_reads_back_equal(value: Any) -> None:
    same(value, decode(encode(value), here), "value")


def test_instances_are_rebuilt_without_their_init() -> None:
    p = Plain(1)
    object.__setattr__(p, "later", "changed after __init__")
    back = decode(encode(p), here)
    assert back.later == "changed after __init__"


def test_ints_beyond_64_bits_keep_their_value() -> None:
    value = (2**64, -(2**63) - 1, 2**63, [3**90], {2**70: 1})
    same(value, decode(encode(value), here), "value")


def test_infinities_and_nan_keep_their_value() -> None:
    back = decode(encode((math.inf, -math.inf, math.nan, 0.1)), here)
    assert back[:2] == (math.inf, -math.inf) and math.isnan(back[2]) and back[3] == 0.1


# -- refusals: a snapshot names classes, it never makes any other ---------------------------------

def test_a_class_outside_the_allowed_modules_is_refused() -> None:
    blob = encode(Slotted(1))
    with pytest.raises(SnapshotError, match="not one a snapshot may make"):
        decode(blob, snapshot_classes)  # a test module is neither the rules nor a game's


def test_a_snapshot_naming_a_function_or_an_unloaded_module_is_refused() -> None:
    doc = orjson.loads(encode(Slotted(1)))
    for name in ("os:system", "builtins:eval", f"{__name__}:here", "rules.nowhere:State"):
        doc["classes"][0][0] = name
        with pytest.raises(SnapshotError):
            decode(orjson.dumps(doc), lambda m: True)
    assert "rules.nowhere" not in sys.modules  # nothing was imported on the snapshot's word


def test_a_class_whose_fields_changed_since_the_snapshot_is_refused() -> None:
    doc = orjson.loads(encode(Slotted(1, 2)))
    doc["classes"][0][1] = ["a", "c"]
    with pytest.raises(SnapshotError, match="has fields"):
        decode(orjson.dumps(doc), here)


@pytest.mark.parametrize("blob", [b"", b"\x80\x04pickle", b"[1]", b'{"v": 1}', b'{"v": 2, "classes": [], "root": {"q": 1}}',
                                  b'{"v": 2, "classes": [], "root": {"o": [0]}}', b'{"v": 2, "classes": [], "root": {"d": [1]}}'])
def test_bytes_that_are_not_a_snapshot_are_refused(blob: bytes) -> None:
    with pytest.raises(SnapshotError):
        decode(blob, here)


@pytest.mark.parametrize("value", [object(), (1, {"a": lambda: 0}), {1: [Ellipsis]}])
def test_a_value_outside_the_supported_kinds_is_not_written(value: Any) -> None:
    with pytest.raises(SnapshotError):
        encode(value)
