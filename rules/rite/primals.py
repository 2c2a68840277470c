"""The Primals: Evolve, the Ultimatosaur (its Rite of Summoning, moves, Rush and Charge), Roar,
Surprise Attack, Lonely Prey, Group Hunt and the Primal powers, with their prompts and legal lists."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator
from typing import Any

from rules.core import Command, IllegalCommand

from .board import ACCESSIBLE_KINDS
from .emitter import RiteEmitter
from .engine import action_limit, chose_done, defeat, enter, need_action, pass_through, pay
from .primal_base import (
    PRIMALS,
    ULT,
    adjacent_units,
    around,
    is_primal,
    jungle_immune,
    parse_tri,
    touching,
    tri_label,
    triangles,
)
from .primal_evolve import summon_options
from .query import (
    COMMANDERS,
    backup,
    budget,
    cmd,
    defeat_cost,
    fog_stops,
    in_reserve,
    open_tile,
    path_from,
    reach_all,
    sacred,
    taunt_tiles,
    tile,
)
from .state import BOARD, State, uids_of

FAR = 99  # moves made by abilities and powers cost nothing: any distance

Reach = dict[int, tuple[int, int]]  # triangle index -> (cost, parent triangle index)


def _tri(s: State, text: Any) -> int:
    """A triangle argument (`c4+d4+c5`) as its index."""
    tri = parse_tri(s, text) if isinstance(text, str) else None
    if tri is None:
        raise IllegalCommand("bad_tiles", f"{text!r} is not three mutually adjacent tiles")
    return triangles(s.radius).index[tri]


def _ult(s: State, seat: int) -> int:
    for uid in uids_of(s, ULT):
        u = s.units[uid]
        if u.where == BOARD and u.controller == seat:
            return uid
    return -1


# --- Rite of Summoning: the Rex becomes Ultimatosaur ---------------------------------------------


def do_summon_ult(c: RiteEmitter, seat: int, opt: str) -> None:
    s = c.s
    rex = s.mctx[0]
    tri = parse_tri(s, opt)  # the three tiles may be named in any order
    if tri is None or tri_label(s, tri) not in summon_options(s, rex):
        raise IllegalCommand("bad_option", f"{opt} is not a place for Ultimatosaur (three tiles, one the Rex's)")
    c.mode("turn")
    for j in tri:
        if j in c.s.rocks:
            c.emit("RockRemoved", {"at": c.lab(j)}, seat)
    victims = [c.s.occ[j] for j in tri if c.s.occ[j] >= 0 and c.s.occ[j] != rex]
    if victims:
        defeat(c, victims, seat, "ultimatosaur")
    for j in tri:
        if j in c.s.fire:
            c.emit("FireTokenRemoved", {"at": c.lab(j)}, seat)
    ult = in_reserve(c.s, seat, ULT)
    c.emit("UnitEvolved", {"uid": rex, "into": ult, "tiles": [c.lab(j) for j in tri]}, seat)


# --- Ultimatosaur movement -------------------------------------------------------------------------


def _stopped(s: State, tri: tuple[int, ...], stop: frozenset[int]) -> bool:
    """Taunt ends Ultimatosaur's move next to an enemy Knight, unless he stands on a jungle tile."""
    return any(j in stop for j in tri) and not any(s.kinds[j] == "jungle" for j in tri)


def _passable(s: State, uid: int, j: int) -> bool:
    """A tile Ultimatosaur may cover on the way: walkable (rocks break), no enemy unit."""
    if s.kinds[j] not in ACCESSIBLE_KINDS:
        return False
    v = s.occ[j]
    return v < 0 or v == uid or s.units[v].controller == s.units[uid].controller


def _ends_ok(s: State, uid: int, tri: tuple[int, ...]) -> bool:
    return all(s.occ[j] < 0 or s.occ[j] == uid for j in tri)


def ult_reach(s: State, uid: int, limit: int) -> Reach:
    """Positions Ultimatosaur can pass through within `limit` rotations: {triangle: (cost, parent)}."""
    tris = triangles(s.radius)
    start = tris.index[tuple(sorted(s.units[uid].tiles))]
    stop = taunt_tiles(s, s.units[uid].controller)
    best: Reach = {start: (0, -1)}
    if _stopped(s, tris.all[start], stop):
        return best
    dq: deque[int] = deque([start])
    while dq:
        cur = dq.popleft()
        cost = best[cur][0]
        if cost >= limit or (cur != start and _stopped(s, tris.all[cur], stop)):
            continue
        for k in tris.steps[cur]:
            if k in best or not all(_passable(s, uid, j) for j in tris.all[k]):
                continue
            best[k] = (cost + 1, cur)
            dq.append(k)
    return best


def _ends(s: State, uid: int, best: Reach) -> dict[int, int]:
    tris = triangles(s.radius)
    return {k: v[0] for k, v in best.items() if v[0] > 0 and _ends_ok(s, uid, tris.all[k])}


def shift(c: RiteEmitter, seat: int, uid: int, path: list[int], why: str) -> None:
    """Move Ultimatosaur along triangles: rocks he covers break, fire tokens where he ends go out."""
    tris = triangles(c.s.radius)
    for k in path[1:]:
        for j in tris.all[k]:
            if j in c.s.rocks:
                c.emit("RockRemoved", {"at": c.lab(j), "by": "ultimatosaur"}, seat)
    labels = [tri_label(c.s, tris.all[k]) for k in path]
    c.emit("UnitShifted", {"uid": uid, "path": labels, "how": why}, seat)
    # Version 3: every tile he covers on the way loses its fire token, as in `engine.pass_through`.
    covered = [j for k in path[1:] for j in tris.all[k]] if c.s.rules >= 3 else list(tris.all[path[-1]])
    for j in dict.fromkeys(covered):
        if j in c.s.fire:
            c.emit("FireTokenRemoved", {"at": c.lab(j)}, seat)


def do_umove(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    pts = [_tri(s, x) for x in a["path"]]
    tris = triangles(s.radius)
    uid = s.occ[tris.all[pts[0]][0]]
    if uid < 0 or s.units[uid].controller != seat or s.units[uid].kind != ULT:
        raise IllegalCommand("not_your_unit", f"no Ultimatosaur of yours on {a['path'][0]}")
    if tuple(sorted(s.units[uid].tiles)) != tris.all[pts[0]]:
        raise IllegalCommand("bad_tiles", "name the three tiles Ultimatosaur stands on first")
    limit = 0 if s.actions >= action_limit(s) else budget(s, seat)
    if len(pts) == 2:
        best = ult_reach(s, uid, FAR)
        ends = _ends(s, uid, best)
        if pts[1] not in ends:
            raise IllegalCommand("no_path", f"Ultimatosaur cannot get to {a['path'][1]}")
        path = path_from(best, pts[1])
    else:
        path = pts
        stop = taunt_tiles(s, seat)
        for i, (x, y) in enumerate(itertools.pairwise(path)):
            if y not in tris.steps[x] or not all(_passable(s, uid, j) for j in tris.all[y]):
                raise IllegalCommand("no_path", f"cannot turn from {a['path'][i]} to {a['path'][i + 1]}")
            if _stopped(s, tris.all[x], stop):
                raise IllegalCommand("no_path", "Taunt stops Ultimatosaur there")
        if not _ends_ok(s, uid, tris.all[path[-1]]):
            raise IllegalCommand("tile_blocked", f"{a['path'][-1]} is not free")
    cost = len(path) - 1
    need_action(s)
    if cost > limit:
        raise IllegalCommand("not_enough_energy", f"that move costs {cost} energy")
    pay(c, seat, cost)
    c.emit("ActionTaken", {"seat": seat}, seat)
    shift(c, seat, uid, path, "move")


def legal_umove(s: State, seat: int) -> Iterator[Command]:
    uid = _ult(s, seat)
    have = budget(s, seat)
    if uid < 0 or have < 1:
        return
    tris = triangles(s.radius)
    here = tri_label(s, tuple(sorted(s.units[uid].tiles)))
    for k in sorted(_ends(s, uid, ult_reach(s, uid, have))):
        yield cmd("umove", seat, path=[here, tri_label(s, tris.all[k])])


# --- Charge --------------------------------------------------------------------------------------


def charge_options(s: State, seat: int) -> dict[int, list[int]]:
    """Charge: Ultimatosaur's shortest moves to end next to the closest non-commander enemy unit
    (not a Human unit under Sacred Grounds, nor a unit he cannot affect); {end: path}."""
    uid = _ult(s, seat)
    if uid < 0 or "charge" in s.rflags:
        return {}
    near: set[int] = set()
    for v, w in enumerate(s.units):
        if (
            w.where == BOARD and w.controller != seat and w.kind not in COMMANDERS
            and not sacred(s, v) and not jungle_immune(s, v, seat)
        ):
            near.update(around(s, v))
    if not near:
        return {}
    tris = triangles(s.radius)
    best = ult_reach(s, uid, FAR)
    here = tris.index[tuple(sorted(s.units[uid].tiles))]
    if any(j in near for j in tris.all[here]):
        return {}  # already next to the closest one: nothing to charge
    found = {k: d for k, d in _ends(s, uid, best).items() if any(j in near for j in tris.all[k])}
    if not found:
        return {}
    d = min(found.values())
    return {k: path_from(best, k) for k, x in found.items() if x == d}


def do_charge(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    to = _tri(s, a["to"])
    opts = charge_options(s, seat)
    if to not in opts:
        raise IllegalCommand("bad_charge", "Charge is spent, or that is not a shortest way to the closest enemy unit")
    c.emit("FlagSet", {"flag": "charge"}, seat)
    shift(c, seat, _ult(s, seat), opts[to], "charge")


# --- Roar and Alpha: friendly units run next to a unit ------------------------------------------


def _approach_options(
    s: State, seat: int, target: int, moved: tuple[Any, ...], commanders: bool, first: bool = False
) -> list[str]:
    """`from-to` for each friendly unit that may run, by a shortest path, until next to `target`;
    with `first`, one `from-to` of the first unit that can, shortest or not (whether there is any
    is all such a caller needs)."""
    lab = s.geo.labels
    goals = [j for j in around(s, target) if open_tile(s, j)]
    out: list[str] = []
    if goals:
        for uid, u in enumerate(s.units):
            if (
                u.where != BOARD or u.controller != seat or uid == target or uid in moved or len(u.tiles) != 1
                or (u.kind in COMMANDERS and not commanders) or touching(s, uid, target)
            ):
                continue
            if first:
                best = reach_all(s, uid, FAR, frozenset(goals))
                reached = [g for g in goals if g in best]
                if reached:
                    out.append(f"{lab[u.tiles[0]]}-{lab[reached[0]]}")
                    break
                continue
            best = reach_all(s, uid, FAR)
            costs = {g: best[g][0] for g in goals if g in best}
            if costs:
                m = min(costs.values())
                out += [f"{lab[u.tiles[0]]}-{lab[g]}" for g, x in costs.items() if x == m]
    return [*out, "done"]


def _roar_pairs(s: State, seat: int) -> Iterator[tuple[int, int]]:
    if "roar" in s.tpowers:
        return
    for rex, u in enumerate(s.units):
        if u.kind == "rex" and u.where == BOARD and u.controller == seat:
            for v in adjacent_units(s, rex):
                if s.units[v].controller != seat and _approach_options(s, seat, v, (), False, first=True) != ["done"]:
                    yield rex, v


def do_roar(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    rex, v = s.occ[tile(s, a["from"])], s.occ[tile(s, a["target"])]
    if (rex, v) not in set(_roar_pairs(s, seat)):
        raise IllegalCommand("bad_roar", "Roar needs your Rex next to that enemy unit, once per turn, and a unit to move")
    c.emit("TurnFlagSet", {"flag": "roar"}, seat)
    c.mode("roar", [v])


def prompt_options(s: State, seat: int) -> list[str]:
    """Options of the Primal prompts: Ultimatosaur's place, Roar's and Alpha's runs."""
    if s.mode == "ultimatosaur":
        return summon_options(s, s.mctx[0])
    if s.mode == "roar":
        return _approach_options(s, seat, s.mctx[0], s.mctx[1:], False)
    if s.mode == "alpha":
        ult = _ult(s, seat)
        return _approach_options(s, seat, ult, s.mctx, True) if ult >= 0 else ["done"]
    return []


def do_choose(c: RiteEmitter, seat: int, opt: str) -> None:
    s = c.s
    m = s.mode
    if m == "ultimatosaur":
        do_summon_ult(c, seat, opt)
        return
    if chose_done(c, opt, prompt_options(s, seat)):
        return
    a, b = (tile(s, x) for x in opt.split("-"))
    uid = s.occ[a]
    path = path_from(reach_all(s, uid, FAR), b)
    c.emit("UnitMoved", {"uid": uid, "path": [c.lab(t) for t in path]}, seat)
    pass_through(c, path[1:-1])
    enter(c, uid, b)
    c.mode(m, [*s.mctx, uid])
    if prompt_options(c.s, seat) == ["done"]:
        c.mode("turn")


# --- free defeats: Lonely Prey, Surprise Attack, Group Hunt ---------------------------------------


def _surprise(s: State, attacker: int) -> bool:
    return attacker in s.lurking and f"surprise:{attacker}" not in s.tpowers and s.units[attacker].kind == "raptor"


def _hunting(s: State, seat: int) -> bool:
    return "grouphunt" in s.rflags and s.factions[seat] == PRIMALS


def free_defeat(s: State, uid: int, seat: int, attacker: int) -> bool:
    """Surprise Attack or Group Hunt: a defeat "without spending energy", which is therefore no
    action that requires energy (never of a commander, never of one's own unit)."""
    u = s.units[uid]
    if attacker < 0 or u.controller == seat or u.kind in COMMANDERS:
        return False
    if _surprise(s, attacker):
        return True
    return _hunting(s, seat) and sum(1 for v in adjacent_units(s, uid) if s.units[v].controller == seat) >= 2


def attack_cost(s: State, uid: int, seat: int, attacker: int) -> int:
    """The defeat action's cost with the Primal abilities: 0 when Surprise Attack or Group Hunt
    makes it free (`free_defeat`), 1 less by Lonely Prey (down to 0: "costs 1 less energy")."""
    if free_defeat(s, uid, seat, attacker):
        return 0
    cost = defeat_cost(s, uid, seat, attacker)
    if attacker < 0 or s.units[uid].controller == seat:
        return cost
    if s.units[attacker].kind == "hatchling" and backup(s, uid) == 0:
        return max(0, cost - 1)
    return cost


def free_defeat_used(c: RiteEmitter, seat: int, attacker: int) -> None:
    """Record a Raptor's Surprise Attack (its first defeat of the turn)."""
    if attacker >= 0 and _surprise(c.s, attacker):
        c.emit("TurnFlagSet", {"flag": f"surprise:{attacker}"}, seat)


def can_free_defeat(s: State, seat: int) -> bool:
    """Might this seat have a defeat costing nothing (a quick test before listing them)?"""
    return _hunting(s, seat) or any(f"surprise:{r}" not in s.tpowers for r in s.lurking)


# --- powers ----------------------------------------------------------------------------------------


def _rush_line(s: State, uid: int) -> Iterator[list[int]]:
    """Rush: every straight-line move of one tile-unit (as tile paths)."""
    u = s.units[uid]
    start = u.tiles[0]
    stop = taunt_tiles(s, u.controller)
    if is_primal(s, uid):
        stop = frozenset(t for t in stop if s.kinds[t] != "jungle")
    if start in stop:
        return
    if s.rules >= 3:
        # "When a non-Chaos, unflipped unit is on a fog tile at any moment, flip it": a Rush ends
        # on the first fog tile that would flip the unit, as a move does (RULINGS.md, Fog tile).
        stop |= fog_stops(s, uid)
    for d in range(6):
        path = [start]
        for j in s.geo.ray(start, d, FAR):
            if s.kinds[j] not in ACCESSIBLE_KINDS or j in s.rocks:
                break
            v = s.occ[j]
            if v >= 0 and s.units[v].controller != u.controller:
                break
            path.append(j)
            if v < 0:
                yield list(path)
            if j in stop or (j in s.fire and u.kind not in COMMANDERS):
                break


def _rush_tris(s: State, uid: int) -> Iterator[list[int]]:
    """Rush for Ultimatosaur: slide all three tiles along one direction, never off the line."""
    tris = triangles(s.radius)
    cur = tuple(sorted(s.units[uid].tiles))
    stop = taunt_tiles(s, s.units[uid].controller)
    if _stopped(s, cur, stop):
        return
    for d in range(6):
        path = [tris.index[cur]]
        pos = cur
        while True:
            nxt = [s.geo.step(j, d) for j in pos]
            if any(j is None for j in nxt):
                break
            pos = tuple(sorted(j for j in nxt if j is not None))
            if not all(_passable(s, uid, j) for j in pos):
                break
            path.append(tris.index[pos])
            if _ends_ok(s, uid, pos):
                yield list(path)
            if _stopped(s, pos, stop):
                break


def _rush_moves(s: State, seat: int) -> Iterator[tuple[list[str], int, list[int]]]:
    lab = s.geo.labels
    tris = triangles(s.radius)
    for uid, u in enumerate(s.units):
        if u.where != BOARD or u.controller != seat or u.kind == "firefly":
            continue
        if len(u.tiles) == 1:
            for p in _rush_line(s, uid):
                yield [lab[p[0]], lab[p[-1]]], uid, p
        else:
            for p in _rush_tris(s, uid):
                yield [tri_label(s, tris.all[p[0]]), tri_label(s, tris.all[p[-1]])], uid, p


def power_args(s: State, seat: int, name: str) -> Iterator[list[str]]:
    if name == "rush":
        for args, _, _ in _rush_moves(s, seat):
            yield args
    elif name == "alpha":
        ult = _ult(s, seat)
        if ult >= 0 and _approach_options(s, seat, ult, (), True, first=True) != ["done"]:
            yield []
    elif name in ("grouphunt", "jaws") and name not in s.rflags:
        yield []


def use_power(c: RiteEmitter, seat: int, name: str, args: list[str]) -> None:
    """The effect of a Primal power already checked and recorded as used."""
    if name == "rush":
        for a, uid, p in _rush_moves(c.s, seat):
            if a == args:
                if len(c.s.units[uid].tiles) == 1:
                    c.emit("UnitMoved", {"uid": uid, "path": [c.lab(t) for t in p], "rush": True}, seat)
                    pass_through(c, p[1:-1])
                    enter(c, uid, p[-1])
                else:
                    shift(c, seat, uid, p, "rush")
                return
    elif name == "alpha":
        c.mode("alpha", [])
    elif name == "jaws":
        c.emit("FlagSet", {"flag": "jaws"}, seat)


# --- the turn's Primal commands --------------------------------------------------------------------


def _commands_units(s: State, seat: int) -> bool:
    """Does the seat control a Rex or Ultimatosaur (whose abilities any controller may use)?"""
    units = s.units
    return any(
        units[uid].where == BOARD and units[uid].controller == seat for k in ("rex", ULT) for uid in uids_of(s, k)
    )


def legal_turn(s: State, seat: int, acting: bool) -> Iterator[Command]:
    if not _commands_units(s, seat):
        return
    if acting:
        yield from legal_umove(s, seat)
    tris = triangles(s.radius)
    for k in sorted(charge_options(s, seat)):
        yield cmd("charge", seat, to=tri_label(s, tris.all[k]))
    lab = s.geo.labels
    for rex, v in _roar_pairs(s, seat):
        yield cmd("roar", seat, **{"from": lab[s.units[rex].tiles[0]], "target": lab[s.units[v].tiles[0]]})


def has_free(s: State, seat: int) -> bool:
    """Charge or Roar still to use (free defeats are checked by the caller)."""
    if not _commands_units(s, seat):
        return False
    if charge_options(s, seat):
        return True
    return any(True for _ in _roar_pairs(s, seat))
