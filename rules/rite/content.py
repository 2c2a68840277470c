"""Rite content (factions, units, powers, set-up counts, pre-made maps) loaded and checked at import."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .board import ACCESSIBLE_KINDS, BLOCKING_KINDS

_DIR = Path(__file__).parent / "content"


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
# The words for each kind, for the move descriptions (describe.py) and the board page (served as is).
TEXTS: dict[str, Any] = _load("texts.json")

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
CODE: dict[str, str] = {f: d["code"] for f, d in FACTIONS.items()}
BY_CODE: dict[str, str] = {c: f for f, c in CODE.items()}
# The factions that carry objective tiles (Set-Up step 2: at least two of them always play).
OBJECTIVE_FACTIONS: tuple[str, ...] = tuple(f for f in TURN_TRACK if FACTIONS[f]["objective"])
POWER_OWNER: dict[str, tuple[str, int]] = {
    p: (fac, i) for fac, d in FACTIONS.items() for i, p in enumerate(d["powers"])
}


def _lineups() -> dict[frozenset[str], str]:
    """Every allowed faction line-up and its set-up column (Set-Up: Pre-Made, under the table):
    "In the 2-player game, the 3-player game with Chaos or the 4-player game with Chaos, Humans
    or Goblins can be replaced with Undead. In the 3- or 4-player game with Chaos, Chaos can be
    replaced with Primals." Both substitutions may be made together (see RULINGS.md)."""
    out: dict[frozenset[str], str] = {}
    for key, col in COLUMNS.items():
        base = [BY_CODE[c] for c in col["lineup"]]
        n = len(base)
        undead_sub = n == 2 or (n in (3, 4) and "chaos" in base)
        primal_sub = n in (3, 4) and "chaos" in base
        variants = [base]
        if undead_sub:
            variants += [[("undead" if f == g else f) for f in base] for g in ("humans", "goblins")]
        if primal_sub:
            variants += [[("primals" if f == "chaos" else f) for f in v] for v in list(variants)]
        for v in variants:
            if len(set(v)) == n:
                out.setdefault(frozenset(v), key)
    return out


def roles(factions: Sequence[str], column: str) -> dict[str, str]:
    """Each faction's role in the column (the letter of the column's faction it stands for): a
    substitute takes the replaced faction's tile counts and pre-made tile positions. Roles go by
    turn-track slot, which always pairs a substitute with the faction it replaces."""
    ordered = sorted(factions, key=TURN_TRACK.index)
    return dict(zip(ordered, COLUMNS[column]["lineup"], strict=True))


def role_counts(counts: dict[str, int], role: str) -> dict[str, int]:
    """How many objective, summoning and special tiles one faction of `role` brings."""
    if role in ("C", "P"):
        return {"objective": 0, "summon": counts["summon"], "special": counts["fog" if role == "C" else "jungle"]}
    return {"objective": counts["objective"], "summon": counts["summon"], "special": counts["special"]}


def volcano_basics(column: str) -> int:
    """Set-Up: Player Made, step 6: basic tiles added to the volcano tiles before dividing them.
    "In a 3-player game with Chaos or Primals and in a 4-player game with Chaos and Primals, add two
    double-sided basic tiles ... In a 5-player game, add 3." (A substitute line-up plays its
    column, so HGP is "a 3-player game with Primals".)"""
    lineup = COLUMNS[column]["lineup"]
    n = len(lineup)
    if n == 5:
        return 3
    if (n == 3 and ("C" in lineup or "P" in lineup)) or (n == 4 and "C" in lineup and "P" in lineup):
        return 2
    return 0


def _validate() -> None:
    for fac, d in FACTIONS.items():
        assert len(d["powers"]) == 4, fac
        assert sum(1 for u in d["units"] if u.get("commander")) == 1, fac
        assert d["commander"] in UNITS and (d["bringer"] is None or d["bringer"] in UNITS), fac
        assert (d["objective"] is None) == (d["code"] in ("C", "P")), fac
    for key, col in COLUMNS.items():
        counts = {**col["printed"], **col["derived"]}
        assert not set(col["printed"]) & set(col["derived"]), f"column {key}: a number both printed and derived"
        lineup = col["lineup"]
        assert key == lineup.lower() and all(c in BY_CODE for c in lineup), key
        assert [BY_CODE[c] for c in lineup] == sorted((BY_CODE[c] for c in lineup), key=TURN_TRACK.index), key
        n = len(lineup)
        faction_tiles = [role_counts(counts, r) for r in lineup]
        volcano = counts["firefly"] + counts["earth"] + counts["fire"]
        total = counts["basic"] + counts["firelord"] + volcano + sum(sum(f.values()) for f in faction_tiles)
        rings = col["rings"]
        assert rings == min(n, 4) + 1, f"column {key}: Set-Up: Random makes min(players, 4) + 1 rings"
        assert total == 1 + 3 * rings * (rings + 1), f"column {key} does not fill {rings} rings"
        assert n * counts["summon"] <= 6 * rings, f"column {key}: summoning tiles overflow the last ring"
        assert (volcano + volcano_basics(key)) % n == 0, f"column {key}: volcano tiles do not divide equally"
        assert volcano_basics(key) <= counts["basic"], key
    assert set(COLUMNS) <= set(MAPS), "every set-up column needs its pre-made map"
    assert set(TEXTS["factions"]) == set(FACTIONS), "texts.json: a name for each faction"
    assert set(TEXTS["units"]) == set(UNITS), "texts.json: a name and ability for each unit kind"
    assert all(set(u) == {"name", "ability"} and all(u.values()) for u in TEXTS["units"].values()), "texts.json units"
    assert set(TEXTS["powers"]) == set(POWER_OWNER), "texts.json: a name for each power"
    assert set(TEXTS["tiles"]) == ACCESSIBLE_KINDS | BLOCKING_KINDS, "texts.json: words for each tile kind"
    assert all(set(t) == {"name", "phrase", "text"} and all(t.values()) for t in TEXTS["tiles"].values()), "texts.json tiles"
    for key, m in MAPS.items():
        if key.startswith("_"):
            continue
        col = COLUMNS[m["column"]]
        rings = col["rings"]
        assert len(m["tiles"]) == 1 + 3 * rings * (rings + 1), key
        counts = {**col["printed"], **col["derived"]}
        seen: dict[tuple[str, int], int] = {}
        for _lab, kind, slot, _num in m["tiles"]:
            seen[(kind, slot)] = seen.get((kind, slot), 0) + 1
        for slot, role in enumerate(col["lineup"]):
            for kind, want in role_counts(counts, role).items():
                assert seen.pop((kind, slot), 0) == want, f"map {key}: {kind} tiles of slot {slot}"
        for kind in ("basic", "firelord", "firefly", "earth", "fire"):
            assert seen.pop((kind, -1), 0) == counts[kind], f"map {key}: {kind} tiles"
        assert not seen, f"map {key}: unexpected tiles {seen}"


_validate()

LINEUPS: dict[frozenset[str], str] = _lineups()


def column_for(factions: Sequence[str]) -> str:
    """The set-up table column a faction line-up plays with (KeyError for a line-up not allowed)."""
    return LINEUPS[frozenset(factions)]


def counts_for(column: str) -> dict[str, int]:
    col = COLUMNS[column]
    return {**col["printed"], **col["derived"]}
