"""Public identities of hidden units: fresh ids whenever hidden units of a tribe mix.

Unit ids are public (commands name them), so an id kept for good would let anyone follow a unit
revealed once through every later hiding. On the table, hidden miniatures of a tribe standing
together cannot be told apart [Hidden Units: "the tribe symbol and not the unit illustration is
visible"]. So whenever a hidden unit joins others of its tribe in a territory, or a unit is hidden
among them, all of that tribe's hidden units there take fresh ids in an order drawn from the Rng:
the public record keeps only "these ids went, those came", and which is which stays with the tribe.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.core import Event, Rng
from rules.dragondale.state import State, Unit


def id_order(uid: str) -> tuple[int, int, str]:
    """Ids in numeric order (`v9` before `v10`), the Ox last."""
    digits = uid.lstrip("abcdefghijklmnopqrstuvwxyz_")
    return (0, int(digits), uid) if digits.isdigit() else (1, 0, uid)


def sort_units(units: Iterable[Unit]) -> tuple[Unit, ...]:
    """A tribe's units in id order: their place in the list says nothing about who they are."""
    return tuple(sorted(units, key=lambda u: id_order(u.id)))


def named_in(ctl: Any) -> set[str]:
    """Every word in the control record: ids a waiting task holds must not change under it."""
    if isinstance(ctl, str):
        return {ctl}
    if isinstance(ctl, Mapping):
        return set().union(*(named_in(v) for v in ctl.values())) if ctl else set()
    if isinstance(ctl, list | tuple):
        return set().union(*(named_in(v) for v in ctl)) if ctl else set()
    return set()


# the events that bring a unit somewhere or hide it, and where they list the unit ids
_ARRIVING = {"dragondale.UnitsMoved": "moves", "dragondale.UnitsHidden": "units", "dragondale.UnitsPlaced": "units"}


def touched(s: State, events: Iterable[Event]) -> list[tuple[int, str]]:
    """(seat, territory) pairs where, after these events, a hidden unit stands that moved there
    or was hidden during them: the places where units may have mixed."""
    ids: set[tuple[int, str]] = set()
    for e in events:
        key = _ARRIVING.get(e.type)
        if key is not None and e.seat is not None:
            ids |= {(e.seat, m[0] if key == "moves" else m) for m in e.data[key]}
    out = {(seat, u.loc) for seat, t in enumerate(s.tribes) for u in t.units
           if (seat, u.id) in ids and u.hidden and u.loc is not None}
    return sorted(out)


def mixing(s: State, seat: int, terr: str, held: set[str], rng: Rng) -> dict[str, Any] | None:
    """The `UnitsMixed` data for a tribe's hidden units in `terr`, or None with fewer than 2.

    Units whose id a waiting task holds (`held`) keep it: they are already on their way out.
    """
    tr = s.tribes[seat]
    group = sorted((u.id for u in tr.units if u.loc == terr and u.hidden and u.id not in held), key=id_order)
    if len(group) < 2:
        return None
    top = max(id_order(u.id)[1] for u in tr.units)
    prefix = group[0].rstrip("0123456789")
    fresh = [f"{prefix}{top + 1 + i}" for i in range(len(group))]
    drawn = rng.shuffled(fresh)
    return {"at": terr, "was": group, "now": fresh, "secret": {"ids": dict(zip(group, drawn, strict=True))}}
