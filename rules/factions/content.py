"""Faction and layout data, loaded from `content/` and validated once at import; read-only."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

_DIR = Path(__file__).parent / "content"

FACTION_IDS: tuple[str, ...] = (
    "baazaria", "doom_sand", "moonshadow", "parada", "primus", "zermano", "ihalaban", "kragg", "zyan",
)
EFFECTS = frozenset({"damage", "heal", "boost_attack", "boost_health", "weaken", "push", "bullrush"})
TARGETS = frozenset({"enemy", "ally", "none"})
AREAS = frozenset({"row", "tile"})
TERRAIN = frozenset("WIP")


# Where a card's data comes from (Faction Unit Card; RULINGS.md, Content): the rulebook prints a
# few names and figures; everything else is the labelled reference set.
SOURCES = frozenset({"named", "reference"})  # named: the rulebook prints the unit's name
UNIT_FIELDS = ("name", "cost", "rank", "captain", "movement", "attack", "range", "health", "aerial", "evade",
               "type", "powers")
POWER_FIELDS = ("name", "mana", "range", "target", "effect", "amount", "area", "uses")
REFERENCE_LABEL = "reference stats"


@dataclass(frozen=True, slots=True)
class Printed:
    """One figure the rulebook prints for a unit or spell, and where; `at_most` when the text only
    bounds it (the Royal Swordsman falls to 3 damage: Health at most 3)."""

    field: str
    value: Any
    at_most: bool
    where: str


def _printed(d: dict, allowed: tuple[str, ...], actual: dict[str, Any], what: str) -> tuple[Printed, ...]:
    out = []
    for k, v in d.items():
        if k not in allowed:
            raise ValueError(f"{what}: printed field {k!r} is not one of {allowed}")
        bound = "at_most" in v
        value = v["at_most"] if bound else v["value"]
        have = actual[k]
        # The content must hold what the rulebook prints, so the figures cannot drift from the text.
        if (have > value) if bound else (have != value):
            raise ValueError(f"{what}: {k} is {have!r} but the rulebook prints {value!r}")
        out.append(Printed(k, value, bound, str(v["where"])))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Power:
    """A spell or ability: a small effect vocabulary with its mana cost, range and uses."""

    code: str
    name: str
    kind: str  # spell | ability | passive
    mana: int
    range: int
    target: str
    effect: str
    amount: int
    area: str | None
    uses: int | None
    printed: tuple[Printed, ...] = ()


@dataclass(frozen=True, slots=True)
class UnitCard:
    """One Faction Unit Card."""

    code: str
    name: str
    source: str
    cost: int
    rank: int
    captain: bool
    movement: int
    attack: int
    range: int
    health: int
    aerial: bool
    evade: int
    makes: str  # "gold" (Soldier) or "mana" (Wizard)
    powers: tuple[Power, ...]
    printed: tuple[Printed, ...] = ()

    @property
    def reference_fields(self) -> tuple[str, ...]:
        """The card's fields whose values are reference stats, not printed in the rulebook."""
        shown = {p.field for p in self.printed}
        return tuple(f for f in UNIT_FIELDS if f not in shown)

    @property
    def bullrush(self) -> bool:
        return any(p.effect == "bullrush" for p in self.powers)

    def power(self, code: str) -> Power | None:
        for p in self.powers:
            if p.code == code:
                return p
        return None


@dataclass(frozen=True, slots=True)
class Faction:
    id: str
    name: str
    units: Mapping[str, UnitCard]  # by code, in the order of factions.json
    tiles: tuple[str, ...]  # "NW NE / SW SE" as "ab/cd"


@dataclass(frozen=True, slots=True)
class Layout:
    seats: int
    width: int  # in spaces
    height: int
    target: int
    entries: tuple[tuple[str, str], ...]
    sides: tuple[str, ...]
    center_pairs: tuple[tuple[str, str], ...]


def _power(d: dict) -> Power:
    p = Power(d["code"], d["name"], d["kind"], int(d["mana"]), int(d["range"]), d["target"],
              d["effect"], int(d["amount"]), d["area"], d["uses"],
              _printed(d.get("printed", {}), POWER_FIELDS, d, f"power {d['code']}"))
    if p.kind not in ("spell", "ability", "passive") or p.effect not in EFFECTS:
        raise ValueError(f"bad power {d}")
    if p.target not in TARGETS or (p.area is not None and p.area not in AREAS):
        raise ValueError(f"bad power target/area {d}")
    return p


def _unit(d: dict) -> UnitCard:
    makes = {"soldier": "gold", "wizard": "mana"}[d["type"]]
    if d["source"] not in SOURCES:
        raise ValueError(f"{d['name']}: source must be one of {sorted(SOURCES)}")
    actual = {**d, "prowess": d["attack"] + d["health"]}
    printed = _printed(d["printed"], (*UNIT_FIELDS, "prowess"), actual, d["name"])
    if (d["source"] == "named") != any(p.field == "name" for p in printed):
        raise ValueError(f"{d['name']}: a 'named' unit is one whose printed name is cited, and only it")
    u = UnitCard(d["code"], d["name"], d["source"], int(d["cost"]), int(d["rank"]), bool(d["captain"]),
                 int(d["movement"]), int(d["attack"]), int(d["range"]), int(d["health"]),
                 bool(d["aerial"]), int(d["evade"]), makes, tuple(_power(p) for p in d["powers"]), printed)
    if not (1 <= u.rank <= 5 and u.cost >= 1 and u.health >= 1 and u.range >= 1):
        raise ValueError(f"bad unit {d['name']}")
    if len({p.code for p in u.powers}) != len(u.powers):
        raise ValueError(f"duplicate power code on {u.name}")
    return u


def _load_factions() -> dict[str, Faction]:
    raw = json.loads((_DIR / "factions.json").read_text())["factions"]
    out: dict[str, Faction] = {}
    for fid in FACTION_IDS:
        d = raw[fid]
        units = {u["code"]: _unit(u) for u in d["units"]}
        tiles = tuple(d["tiles"])
        if len(units) != 15 or len(d["units"]) != 15:
            raise ValueError(f"{fid} needs 15 distinct units")
        if len(tiles) != 5 or any(len(t) != 5 or t[2] != "/" or set(t) - TERRAIN - {"/"} for t in tiles):
            raise ValueError(f"{fid} needs 5 tiles like 'PP/PW'")
        if sum(1 for t in tiles if "W" not in t) < 2:
            raise ValueError(f"{fid} needs two water-free tiles for the base camp spots")
        # The Vanguard draft never dead-ends if, after 3 set aside and up to 4 picks, one unit costing <= 5 is left.
        if sum(1 for u in units.values() if u.cost <= 5) < 8:
            raise ValueError(f"{fid} needs at least 8 units costing 5 gold or less")
        out[fid] = Faction(fid, d["name"], MappingProxyType(units), tiles)
    if set(raw) != set(FACTION_IDS):
        raise ValueError("factions.json must hold exactly the nine factions")
    return out


def _load_layouts() -> dict[int, Layout]:
    raw = json.loads((_DIR / "layouts.json").read_text())["layouts"]
    out: dict[int, Layout] = {}
    for key, d in raw.items():
        n = int(key)
        lay = Layout(n, 2 * int(d["tiles_wide"]), 2 * int(d["tiles_high"]), int(d["target"]),
                     tuple((c["entry"][0], c["entry"][1]) for c in d["camps"]),
                     tuple(c["side"] for c in d["camps"]),
                     tuple((a, b) for a, b in d["center_pairs"]))
        if len(lay.entries) != n:
            raise ValueError(f"layout {n} needs {n} camps")
        out[n] = lay
    return out


FACTIONS: Mapping[str, Faction] = MappingProxyType(_load_factions())
LAYOUTS: Mapping[int, Layout] = MappingProxyType(_load_layouts())


def _terrain_names() -> Mapping[str, str]:
    """The words for each terrain, which the board page reads (served as is): every kind the
    layouts use has its name and text. The names also word a Terrain Tile's choice."""
    raw: dict[str, Any] = json.loads((_DIR / "terrain.json").read_text())
    assert set(raw["terrain"]) == TERRAIN, f"terrain.json: words for each of {sorted(TERRAIN)}"
    for what in (*raw["terrain"].values(), raw["empty"]):
        assert set(what) == {"name", "text"} and all(what.values()), f"terrain.json: {what}"
    return MappingProxyType({k: str(v["name"]) for k, v in raw["terrain"].items()})


TERRAIN_NAMES = _terrain_names()

# What this project invents, in the one sentence the lobby, the board page and the rules reference
# each show before a player chooses (issue #38 item 9), and where the rulings say which.
INVENTED = ("Invented by this project, since the rulebook prints no Faction Overview Sheets and no 3- or 4-player "
            "diagrams: the 15 unit stat lines all nine factions share, 6 of the 7 spells and abilities, the Terrain "
            "Tiles' patterns, and the 3- and 4-player boards with their Resource Center pairs")
INVENTED_LINK = {"href": "/rules/factions/rulings#what-is-invented", "text": "the rulings say which"}
