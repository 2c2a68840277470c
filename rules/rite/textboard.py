"""Rite's position as compact text, for a turn mail: built from a seat's view alone (what
`view(state, seat)` holds), so it never tells more than that seat's board shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _who(owner: Any, names: Sequence[str]) -> str:
    if isinstance(owner, int) and 0 <= owner < len(names):
        return names[owner]
    return "the volcano" if owner is None else f"seat {owner}"


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items()) if n) or "none"


def text_board(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """Round and turn, each player's energy, rage, units off the board and power cards, then
    every occupied tile: "c3 (FEr5): knight (ann), fire"."""
    if view.get("phase") == "new":
        return "The game has not started."
    vol = view.get("volcano") or {}
    out = [f"Round {view.get('round')}, actions this turn {view.get('actions_taken', 0)}; "
           f"the volcano's last die: {vol.get('last_die') or 'none yet'}"]
    for p in view.get("players", []):
        name = _who(p.get("seat"), names)
        cards = "; ".join(f"{c['number']} {c.get('power') or 'face down'}" + (" (up)" if c.get("face_up") else "")
                          for c in p.get("powers", []))
        out.append(f"{name} ({p.get('faction')}){' passed' if p.get('passed') else ''}: energy "
                   f"{p.get('round_energy', 0)} round / {p.get('reserve_energy', 0)} reserve / "
                   f"{p.get('faction_energy', 0)} faction, rage {p.get('rage', 0)}; reserve {_counts(p.get('reserve', {}))}"
                   f"; on cards {_counts(p.get('on_cards', {}))}; powers {cards}")
    tiles = []
    for cell in (view.get("board") or {}).get("cells", []):
        pieces = cell.get("pieces") or []
        if not pieces:
            continue
        said = ", ".join(pc["label"] if pc.get("label") in ("rock", "fire") else f"{pc.get('label')} "
                         f"({_who(pc.get('owner'), names)})" for pc in pieces)
        label = str(cell.get("label", cell.get("id")))
        kind = label.partition(" ")[2]
        tiles.append(f"  {cell.get('id')}{f' ({kind})' if kind else ''}: {said}")
    out.append("Board:" if tiles else "Board: no unit on it yet")
    return "\n".join(out + tiles)
