"""Primal facts that need no decision machinery: jungle immunity, the three-tile Ultimatosaur's
geometry, units underneath, and the fold handlers of the Primal events.

Kept apart from `primals.py` and `primal_evolve.py` because `query` and `evolve` need these and
both of those build on `query` (and `primals` on the engine): the layers only import downwards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from .board import Geometry, geometry
from .content import FACTIONS, UNITS
from .state import BOARD, RESERVE, VOLCANO, State, revise, uids_of, with_unit

PRIMALS = "primals"
UNDER = "under"  # `Unit.where` of a defeated unit lying underneath a Primal unit
ULT = "ultimatosaur"
# The evolution ladder is the Primal unit list in content order (hatchling, raptor, rex, Ultimatosaur).
LADDER: tuple[str, ...] = tuple(u["kind"] for u in FACTIONS[PRIMALS]["units"])
CONSUMED_TARGET: int = FACTIONS[PRIMALS]["consumed_target"]
COMMANDER_VALUE = 10  # "A commander counts as a 10-cost unit" (Evolve, Faction energy)

Data = Mapping[str, Any]


def is_primal(s: State, uid: int) -> bool:
    """Owned by the Primal player (whoever controls it now)."""
    o = s.units[uid].owner
    return o >= 0 and s.factions[o] == PRIMALS


def value(kind: str) -> int:
    """What a defeated unit is worth to Evolve, faction energy and consumed points."""
    u = UNITS[kind]
    return COMMANDER_VALUE if u.commander else u.cost


def on_jungle(s: State, uid: int) -> bool:
    """A unit is on a jungle tile when any of its tiles is one (Ultimatosaur covers three)."""
    return any(s.kinds[t] == "jungle" for t in s.units[uid].tiles)


def jungle_immune(s: State, uid: int, by: int) -> bool:
    """Jungle tile: a Primal unit on it ignores the volcano and every enemy of its controller."""
    u = s.units[uid]
    return u.where == BOARD and is_primal(s, uid) and on_jungle(s, uid) and (by == VOLCANO or by != u.controller)


def around(s: State, uid: int) -> tuple[int, ...]:
    """Tiles next to a unit (not its own); for one tile, exactly the board's neighbour order."""
    tiles = s.units[uid].tiles
    nbr = s.geo.nbr
    if len(tiles) == 1:
        return nbr[tiles[0]]
    out: list[int] = []
    for t in tiles:
        for j in nbr[t]:
            if j not in tiles and j not in out:
                out.append(j)
    return tuple(out)


def adjacent_units(s: State, uid: int) -> list[int]:
    """Distinct units next to a unit (a three-tile unit counts once)."""
    out: list[int] = []
    for j in around(s, uid):
        v = s.occ[j]
        if v >= 0 and v != uid and v not in out:
            out.append(v)
    return out


def touching(s: State, a: int, b: int) -> bool:
    """Are two units adjacent (some tile of one next to some tile of the other)?"""
    tb = s.units[b].tiles
    return any(j in tb for j in around(s, a))


def underneath(s: State, host: int) -> list[int]:
    return [uid for uid, h in s.under if h == host]


def under_cost(s: State, host: int) -> int:
    return sum(value(s.units[uid].kind) for uid in underneath(s, host))


def grow(s: State, uid: int) -> int:
    """Grow: Ultimatosaur costs its consumed units points on top of the commander's 10."""
    return s.consumed if s.units[uid].kind == ULT else 0


def next_kind(kind: str) -> str | None:
    if kind in LADDER[:-1]:
        return LADDER[LADDER.index(kind) + 1]
    return None


def buries(s: State, victim: int, attacker: int) -> bool:
    """Evolve: a lower-cost enemy non-Primal unit goes underneath the attacking Primal unit, unless
    the combined cost underneath would reach the attacker's cost (then it evolves or, without the
    higher unit in reserve, the victim simply goes to its reserve: Primal notes)."""
    if attacker < 0 or next_kind(s.units[attacker].kind) is None:
        return False
    a, v = s.units[attacker], s.units[victim]
    if is_primal(s, victim) or v.controller == a.controller:
        return False
    own = UNITS[a.kind].cost
    worth = value(v.kind)
    return worth < own and under_cost(s, attacker) + worth < own


def lurking(s: State, seat: int) -> frozenset[int]:
    """Raptors of `seat` on a jungle tile as its turn starts (Surprise Attack)."""
    return frozenset(
        uid for uid, u in enumerate(s.units)
        if u.kind == "raptor" and u.where == BOARD and u.controller == seat and s.kinds[u.tiles[0]] == "jungle"
    )


def rite_of_power(s: State, seat: int) -> bool:
    """Eight friendly units next to a friendly Ultimatosaur."""
    for uid in uids_of(s, ULT):
        u = s.units[uid]
        if u.where == BOARD and u.controller == seat:
            return sum(1 for v in adjacent_units(s, uid) if s.units[v].controller == seat) >= 8
    return False


def victory(s: State) -> str:
    """The Primal objective, met: a reason; else ''."""
    if s.devoured:
        return "Ultimatosaur consumed a commander"
    if s.consumed >= CONSUMED_TARGET:
        return f"Ultimatosaur consumed {s.consumed} points of units"
    return ""


# --- Ultimatosaur geometry: triangles of three mutually adjacent tiles ---------------------------


class Triangles:
    """Every triangle of a board, the triangles through each tile and the rotations between them."""

    __slots__ = ("all", "by_tile", "index", "steps")

    def __init__(self, geo: Geometry) -> None:
        found: set[tuple[int, ...]] = set()
        for i in range(geo.size):
            for d in range(6):
                a, b = geo.step(i, d), geo.step(i, d + 1)
                if a is not None and b is not None:
                    found.add(tuple(sorted((i, a, b))))
        self.all: tuple[tuple[int, ...], ...] = tuple(sorted(found))
        self.index = {t: k for k, t in enumerate(self.all)}
        by: list[list[int]] = [[] for _ in range(geo.size)]
        for k, t in enumerate(self.all):
            for i in t:
                by[i].append(k)
        self.by_tile = tuple(tuple(x) for x in by)
        # One energy of movement: any other triangle keeping at least one tile (Primal notes).
        self.steps = tuple(
            tuple(sorted({m for i in t for m in self.by_tile[i]} - {k})) for k, t in enumerate(self.all)
        )


@lru_cache(maxsize=16)
def triangles(radius: int) -> Triangles:
    return Triangles(geometry(radius))


def tri_label(s: State, tri: tuple[int, ...]) -> str:
    lab = s.geo.labels
    return "+".join(lab[t] for t in sorted(tri))


def parse_tri(s: State, text: str) -> tuple[int, ...] | None:
    """`c4+d4+c5` (any order) as a sorted triangle of this board, or None."""
    parts = text.split("+")
    idx = s.geo.index
    if len(parts) != 3 or any(p not in idx for p in parts):
        return None
    tri = tuple(sorted(idx[p] for p in parts))
    return tri if tri in triangles(s.radius).index else None


# --- fold handlers ---------------------------------------------------------------------------------


def set_unit(s: State, uid: int, tiles: tuple[int, ...], where: str, controller: int) -> State:
    """Stand a unit on `tiles` (none: off the board, `where`) under `controller`."""
    units = list(s.units)
    u = units[uid]
    occ = list(s.occ)
    for t in u.tiles:
        if occ[t] == uid:
            occ[t] = -1
    for t in tiles:
        occ[t] = uid
    units[uid] = with_unit(u, tiles=tiles, where=where, controller=controller)
    return revise(s, units=tuple(units), occ=tuple(occ))


def _buried(s: State, d: Data) -> State:
    return revise(s, under=(*s.under, (d["uid"], d["host"])))


def _released(s: State, d: Data) -> State:
    uid = d["uid"]
    s = set_unit(s, uid, (), d["to"], s.units[uid].owner)
    return revise(s, under=tuple(p for p in s.under if p[0] != uid))


def _evolved(s: State, d: Data) -> State:
    old, new = d["uid"], d["into"]
    ctl = s.units[old].controller
    s = set_unit(s, old, (), RESERVE, s.units[old].owner)
    return set_unit(s, new, tuple(s.geo.index[x] for x in d["tiles"]), BOARD, ctl)


def _shifted(s: State, d: Data) -> State:
    u = s.units[d["uid"]]
    final = tuple(s.geo.index[x] for x in d["path"][-1].split("+"))
    return set_unit(s, d["uid"], final, BOARD, u.controller)


def _consumed(s: State, d: Data) -> State:
    return revise(s, consumed=s.consumed + d["n"], devoured=s.devoured or bool(d.get("commander")))


def _consumed_lost(s: State, d: Data) -> State:
    return revise(s, consumed=0)


def _turn_flag(s: State, d: Data) -> State:
    return revise(s, tpowers=s.tpowers | {d["flag"]})


HANDLERS: dict[str, Callable[[State, Data], State]] = {
    "rite.UnitBuried": _buried,
    "rite.UnitReleased": _released,
    "rite.UnitEvolved": _evolved,
    "rite.UnitShifted": _shifted,
    "rite.Consumed": _consumed,
    "rite.ConsumedLost": _consumed_lost,
    "rite.TurnFlagSet": _turn_flag,
}
