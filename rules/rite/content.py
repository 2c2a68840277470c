"""Rite content (factions, units, powers, set-up counts, pre-made maps) loaded and checked at import."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_DIR = Path(__file__).parent / "content"

SUPPORTED = ("humans", "goblins", "undead")


@dataclass(frozen=True, slots=True)
class UnitSpec:
    kind: str
    faction: str
    cost: int
    amount: int
    commander: bool


def _load(name: str) -> Any:
    with open(_DIR / name, encoding="utf-8") as f:
        return json.load(f)


_F = _load("factions.json")
_S = _load("setup.json")
MAPS: dict[str, Any] = _load("maps.json")

TURN_TRACK: tuple[str, ...] = tuple(_F["order"])
FACTIONS: dict[str, Any] = _F["factions"]
UNITS: dict[str, UnitSpec] = {}
for _fac, _d in FACTIONS.items():
    for _u in _d["units"]:
        UNITS[_u["kind"]] = UnitSpec(_u["kind"], _fac, _u["cost"], _u["amount"], bool(_u.get("commander")))
UNITS["firefly"] = UnitSpec("firefly", "", _F["firefly"]["cost"], _F["firefly"]["amount"], False)
ROCKS: int = _F["supply"]["rock"]
FIRES: int = _F["supply"]["fire"]
COLUMNS: dict[str, Any] = _S["columns"]
POWER_OWNER: dict[str, tuple[str, int]] = {
    p: (fac, i) for fac, d in FACTIONS.items() for i, p in enumerate(d["powers"])
}


def _validate() -> None:
    for fac, d in FACTIONS.items():
        assert len(d["powers"]) == 4, fac
        assert sum(1 for u in d["units"] if u.get("commander")) == 1, fac
        assert d["commander"] in UNITS and (d["bringer"] is None or d["bringer"] in UNITS), fac
    for key, col in COLUMNS.items():
        counts = {**col["printed"], **col["derived"]}
        n = col["players"]
        total = (
            counts["basic"] + counts["firelord"] + counts["firefly"] + counts["earth"] + counts["fire"]
            + n * (counts["objective"] + counts["summon"] + counts["special"])
        )
        rings = col["rings"]
        assert total == 1 + 3 * rings * (rings + 1), f"column {key} does not fill {rings} rings"
        assert n * counts["summon"] <= 6 * rings, f"column {key}: summoning tiles overflow the last ring"
    for key, m in MAPS.items():
        if key.startswith("_"):
            continue
        assert m["column"] in COLUMNS, key
        rings = COLUMNS[m["column"]]["rings"]
        assert len(m["tiles"]) == 1 + 3 * rings * (rings + 1), key


_validate()


def column_for(factions: tuple[str, ...]) -> str:
    """The set-up table column a faction line-up plays with (Undead substitute in the 2-player game)."""
    return "hg" if len(factions) == 2 else "hgu"


def counts_for(column: str) -> dict[str, int]:
    col = COLUMNS[column]
    return {**col["printed"], **col["derived"]}
