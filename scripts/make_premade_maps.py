"""Regenerate the reference pre-made maps of `rules/rite/content/maps.json` (see RULINGS.md).

The rulebook's map images are not in its text, so each set-up column gets one map made by the
Random method from a fixed seed (`Rng(b"rite-premade", b"", "<column>-<k>")`, the first k whose
map keeps the three balance rules) for the column's own line-up, frozen into maps.json with its
faction tiles stored by turn-track slot. The HG and HGU maps predate this script and are kept
as shipped. Run `python -m scripts.make_premade_maps` to print the file; `test_setup.py`
checks that the frozen maps of the other columns are what this script makes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rules.core import Rng
from rules.rite.board import geometry
from rules.rite.content import BY_CODE, COLUMNS, FACTIONS, MAPS
from rules.rite.mapgen import map_valid, random_map

FROZEN_BEFORE = ("hg", "hgu")  # shipped with part 1; not regenerated
OPTS = (True, True, True, True)


def generate(column: str) -> dict[str, Any]:
    col = COLUMNS[column]
    facs = [BY_CODE[c] for c in col["lineup"]]
    geo = geometry(col["rings"])
    for k in range(100):
        tiles = random_map(facs, OPTS, Rng(b"rite-premade", b"", f"{column}-{k}"))
        kinds = [""] * geo.size
        for i, t in tiles:
            kinds[i] = t[0]
        if all(kinds) and map_valid(geo, kinds):
            break
    else:  # pragma: no cover
        raise AssertionError(f"no valid map for {column}")
    rows = []
    for i, (kind, fac, num) in sorted(tiles):
        slot = facs.index(fac) if fac else -1
        if fac and kind == FACTIONS[fac]["objective"]:
            kind = "objective"
        elif fac and kind == FACTIONS[fac]["special"]:
            kind = "special"
        rows.append([geo.labels[i], kind, slot, num])
    return {"column": column, "tiles": rows}


def dump(maps: dict[str, Any]) -> str:
    out = ["{", f' "_source": {json.dumps(maps["_source"])},']
    keys = [k for k in maps if not k.startswith("_")]
    for n, key in enumerate(keys):
        m = maps[key]
        out.append(f' "{key}": {{"column": "{m["column"]}", "tiles": [')
        out.append(",\n".join("  " + json.dumps(t) for t in m["tiles"]))
        out.append(" ]}" + ("," if n < len(keys) - 1 else ""))
    out.append("}")
    return "\n".join(out) + "\n"


def build() -> dict[str, Any]:
    maps: dict[str, Any] = {"_source": MAPS["_source"]}
    for column in COLUMNS:
        maps[column] = MAPS[column] if column in FROZEN_BEFORE else generate(column)
    return maps


if __name__ == "__main__":
    sys.stdout.write(dump(build()))
