"""Factions' position as compact text, for a turn mail: built from a seat's view alone, so it
never tells more than that seat's board shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _who(owner: Any, names: Sequence[str]) -> str:
    if isinstance(owner, int) and 0 <= owner < len(names):
        return names[owner]
    return "nobody"


def text_board(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """Round, phase and target, each player's gold, mana and victory points, the Resource
    Centers and every unit on the board with where it stands."""
    out = [f"Round {view.get('round')}, phase {view.get('phase')}"
           + (f" ({view.get('stage')})" if view.get("stage") else "") + f"; {view.get('target')} VP wins"]
    for p in view.get("players", []):
        out.append(f"{_who(p.get('seat'), names)} ({p.get('name') or p.get('faction')}){' out' if p.get('out') else ''}: "
                   f"VP {p.get('vp', 0)}, gold {p.get('gold', 0)}, mana {p.get('mana', 0)}, "
                   f"warband {len(p.get('warband') or [])} cards")
    centers = [f"{c.get('space')} {c.get('kind')} ({_who(c.get('owner'), names)})" for c in view.get("centers") or []]
    if centers:
        out.append("Resource Centers: " + ", ".join(centers))
    units = []
    for u in view.get("units") or []:
        where = u.get("space") or u.get("at") or u.get("cell") or "?"
        what = u.get("name") or u.get("code") or u.get("kind") or "unit"
        extra = f", health {u['health']}" if isinstance(u.get("health"), int) else ""
        units.append(f"  {where}: {what} ({_who(u.get('owner', u.get('seat')), names)}{extra})")
    out.append("Units:" if units else "Units: none on the board yet")
    return "\n".join(out + units)
