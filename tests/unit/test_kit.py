"""rules.kit: the emit-and-fold context and the fast copy every game uses."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from rules.core import Event, Rng
from rules.kit import Emitter, copier


@dataclass(frozen=True, slots=True)
class Slotted:
    a: int = 0
    b: tuple[int, ...] = ()


@dataclass(frozen=True)
class Plain:
    a: int = 0
    b: str = ""


def _count(s: Slotted, e: Event) -> Slotted:
    return Slotted(s.a + e.data["n"], (*s.b, e.data["n"]))


def test_emitter_folds_each_event_as_it_is_emitted() -> None:
    em = Emitter("g.", _count, Slotted(), Rng(b"seed"))
    em.emit("Added", {"n": 2}, 0)
    assert em.s == Slotted(2, (2,))  # a later check in the same decision sees the first event
    em.emit("Added", {"n": 3})
    d = em.decision()
    assert d.events == [Event("g.Added", {"n": 2}, 0), Event("g.Added", {"n": 3}, None)]
    assert d.state == Slotted(5, (2, 3))


@pytest.mark.parametrize("cls", [Slotted, Plain])
def test_copier_changes_only_the_named_fields(cls: type) -> None:
    copy = copier(cls)
    before = cls(1)
    after = copy(before, a=7)
    assert after == cls(7) and before == cls(1)
    assert type(after) is cls and after is not before
    assert copy(before) == before


@pytest.mark.parametrize("cls", [Slotted, Plain])
def test_copier_refuses_a_field_the_class_lacks(cls: type) -> None:
    with pytest.raises((AttributeError, TypeError), match="z"):
        copier(cls)(cls(), z=1)
