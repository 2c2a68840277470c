"""Dragon Dale's position as compact text, for a turn mail: built from a seat's view alone, so
hidden units and insight read as the seat sees them ("a hidden unit" where it cannot know)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def text_board(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """Turn, dominance and the Dragon, each tribe's VP, fury and cards, then where every unit
    stands: "fog1: warriors (ann, hidden), a hidden unit (bob)"."""
    dragon = view.get("dragon") or {}
    out = [f"Turn {view.get('turn_no')}; dominance {' > '.join(view.get('dominance') or [])}; "
           f"the Dragon at {dragon.get('at')}, stone {dragon.get('stone')}"]
    places: dict[str, list[str]] = {}
    for t in view.get("tribes", []):
        seat = t.get("seat")
        name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else str(t.get("name"))
        out.append(f"{name} ({t.get('name')}): VP {t.get('vp', 0)}, fury {t.get('fury')}, "
                   f"{t.get('hand_count', 0)} cards in hand, camp {t.get('camp')}")
        for u in t.get("units", []):
            kind = u.get("type")
            said = f"{kind} ({name}{', hidden' if u.get('hidden') else ''})" if kind else f"a hidden unit ({name})"
            places.setdefault(str(u.get("at")), []).append(said)
    out.append("Units:")
    out += [f"  {at}: {', '.join(units)}" for at, units in sorted(places.items())]
    return "\n".join(out)
