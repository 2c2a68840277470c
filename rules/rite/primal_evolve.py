"""Evolve: what a defeat means to the Primals (energy, consumed units points, units underneath)
and a Primal unit evolving, up to the Rex's Rite of Summoning that opens the Ultimatosaur prompt.

The engine's `defeat` calls `after_defeat` once per batch; the Primal commands (`primals`) build
on the engine, so this part, which the engine needs, is its own module below it.
"""

from __future__ import annotations

from typing import Any

from .board import ACCESSIBLE_KINDS
from .content import UNITS
from .emitter import RiteEmitter
from .primal_base import (
    PRIMALS,
    ULT,
    is_primal,
    next_kind,
    tri_label,
    triangles,
    under_cost,
    underneath,
    value,
)
from .query import COMMANDERS, defeatable, destination, in_reserve
from .state import BOARD, State


def after_defeat(c: RiteEmitter, done: list[tuple[int, Any]], by: int, cause: str, attacker: int) -> None:
    """Primal consequences of defeats just made (engine.defeat calls this once per batch)."""
    s = c.s
    primal_by = by >= 0 and s.factions[by] == PRIMALS
    att = s.units[attacker] if attacker >= 0 else None
    consuming = primal_by and (cause == "ultimatosaur" or (att is not None and att.kind == ULT))
    for uid, u in done:
        # A defeated Primal unit's units underneath leave with it (ruling: to where they would go).
        for x in underneath(c.s, uid):
            c.emit("UnitReleased", {"uid": x, "to": destination(c.s, x)}, u.owner)
        if u.kind == ULT and c.s.consumed:
            c.emit("ConsumedLost", {"seat": u.owner}, u.owner)
        if primal_by and u.controller != by:
            c.gain(by, value(u.kind))
            if consuming:
                c.emit("Consumed", {"seat": by, "n": value(u.kind), "commander": u.kind in COMMANDERS}, by)
    if att is None or next_kind(att.kind) is None or c.s.units[attacker].where != BOARD:
        return
    own = UNITS[att.kind].cost
    for uid, u in done:
        if (uid, attacker) in c.s.under or u.controller == att.controller or is_primal(c.s, uid):
            continue
        worth = value(u.kind)
        if worth >= own or under_cost(c.s, attacker) + worth >= own:
            evolve_unit(c, attacker)
            return


def can_evolve(s: State, uid: int) -> bool:
    """The higher unit is in the Primal reserve; a Rex also needs its own controller and room."""
    u = s.units[uid]
    nk = next_kind(u.kind)
    if nk is None or in_reserve(s, u.owner, nk) < 0:
        return False
    if nk == ULT:
        return u.controller == u.owner and bool(summon_options(s, uid))
    return True


def evolve_unit(c: RiteEmitter, uid: int) -> None:
    s = c.s
    u = s.units[uid]
    if not can_evolve(s, uid):
        return
    for x in underneath(s, uid):
        c.emit("UnitReleased", {"uid": x, "to": destination(c.s, x)}, u.owner)
    nk = next_kind(u.kind)
    if nk == ULT:
        c.mode("ultimatosaur", [uid])
        return
    assert nk is not None
    new = in_reserve(c.s, u.owner, nk)
    c.emit("UnitEvolved", {"uid": uid, "into": new, "tiles": [c.lab(t) for t in u.tiles]}, u.controller)


# --- Rite of Summoning: the Rex becomes Ultimatosaur ---------------------------------------------


def _trample_ok(s: State, j: int, seat: int) -> bool:
    """May Ultimatosaur be placed on tile j: open, a rock, or a defeatable non-commander enemy."""
    if s.kinds[j] not in ACCESSIBLE_KINDS:
        return False
    v = s.occ[j]
    if v < 0:
        return True
    w = s.units[v]
    return w.controller != seat and w.kind not in COMMANDERS and defeatable(s, v, seat, "ultimatosaur")


def summon_options(s: State, rex: int) -> list[str]:
    u = s.units[rex]
    t = u.tiles[0]
    tris = triangles(s.radius)
    out = []
    for k in tris.by_tile[t]:
        if all(j == t or _trample_ok(s, j, u.controller) for j in tris.all[k]):
            out.append(tri_label(s, tris.all[k]))
    return out
