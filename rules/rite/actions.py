"""Turn commands: the energy actions, the free ones, and the prompts they open; each with its
legal-command enumeration beside the check that accepts it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from rules.core import Command, IllegalCommand
from rules.words import listing

from . import primals
from .chaos_control import rise_options, think_tiles
from .content import FACTIONS, FIRES, UNITS
from .emitter import RiteEmitter
from .engine import (
    action_limit,
    chose_done,
    defeat,
    earth_next,
    earth_one,
    enter,
    fire_next,
    fire_one,
    firefly_strike,
    need_action,
    next_turn,
    offered,
    pass_through,
    pay,
    place_unit,
    rage_choices,
    warrior_placed,
)
from .primal_base import around, touching
from .query import (
    COMMANDERS,
    budget,
    cmd,
    defeat_cost,
    defeatable,
    fire_cost,
    in_reserve,
    open_tile,
    path_from,
    payer,
    reach,
    reach_all,
    react_choices,
    taunt_tiles,
    taunters,
    tile,
)
from .refusals import fly_refusal, rock_refusal, unreached
from .state import BOARD, State, revise, with_unit


def own_unit(s: State, seat: int, label: Any) -> int:
    i = tile(s, label)
    v = s.occ[i]
    if v < 0 or s.units[v].controller != seat:
        raise IllegalCommand("not_your_unit", f"no unit of yours on {label}")
    return v


def take_action(c: RiteEmitter, seat: int) -> None:
    c.emit("ActionTaken", {"seat": seat}, seat)


def faction(s: State, seat: int) -> str:
    return s.factions[seat]


# --- summon ------------------------------------------------------------------------------------


def _summon_kinds(s: State, seat: int) -> list[str]:
    d = FACTIONS[faction(s, seat)]
    if "summonable" in d:  # the Primal player may summon only Hatchlings
        return list(d["summonable"])
    return [u["kind"] for u in d["units"] if not u.get("commander")]


def _summon_tiles(s: State, seat: int, kind: str) -> list[int]:
    fac = faction(s, seat)
    out = [i for i, k in enumerate(s.kinds) if k == "summon" and s.tfac[i] == fac and open_tile(s, i)]
    if kind == "warrior":
        out += [i for i, k in enumerate(s.kinds) if k == "boneyard" and open_tile(s, i)]
    if kind == "thought":
        out += think_tiles(s, seat, out)
    return out


def _summon_source(s: State, seat: int, kind: str) -> int:
    fac = faction(s, seat)
    card = (fac == "goblins" and kind == "firebringer") or (fac == "undead" and kind == "deathbringer")
    return in_reserve(s, seat, kind, card=card)


def do_summon(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    need_action(s)
    kind = a["unit"]
    kinds = _summon_kinds(s, seat)
    if kind not in kinds:
        raise IllegalCommand("bad_unit", f"you cannot summon {str(kind)[:20]!r}: the {faction(s, seat).capitalize()} "
                                         f"summon {listing(kinds, joint='or')}")
    uid = _summon_source(s, seat, kind)
    if uid < 0:
        raise IllegalCommand("not_in_reserve", f"no {kind} in your reserve")
    t = tile(s, a["at"])
    if t not in _summon_tiles(s, seat, kind):
        raise IllegalCommand("bad_tile", f"{a['at']} is not an accessible summoning tile of yours")
    pay(c, seat, UNITS[kind].cost)
    take_action(c, seat)
    place_unit(c, uid, t, "summon")
    if kind == "warrior" and s.kinds[t] == "boneyard":
        warrior_placed(c, seat)


def legal_summon(s: State, seat: int) -> Iterator[Command]:
    have = budget(s, seat)
    for kind in _summon_kinds(s, seat):
        if UNITS[kind].cost > have or _summon_source(s, seat, kind) < 0:
            continue
        for t in _summon_tiles(s, seat, kind):
            yield cmd("summon", seat, unit=kind, at=s.geo.labels[t])


# --- move --------------------------------------------------------------------------------------


def movers(s: State, seat: int) -> list[int]:
    return [uid for uid, u in enumerate(s.units) if u.where == BOARD and u.controller == seat]


def move_path(s: State, uid: int, pts: list[int], limit: int) -> tuple[list[int], int]:
    """A move as `[from, to]` (the cheapest legal route) or as a full path of adjacent steps; (path, cost)."""
    end = pts[-1]
    if len(pts) < 2 or not open_tile(s, end):
        raise IllegalCommand("tile_blocked", f"{s.geo.labels[end]} is not accessible")
    if len(pts) == 2:
        # `end` is open (checked above), so reach_all holds it exactly when `reach` would.
        best = reach_all(s, uid, limit, target=end)
        if end == pts[0]:
            raise IllegalCommand("no_path", f"the unit already stands on {s.geo.labels[end]}")
        if end not in best:
            raise unreached(s, uid, end, limit)
        return path_from(best, end), best[end][0]
    # An explicit path: check every step as the search would.
    if taunters(s, uid) and pts[0] in taunt_tiles(s, s.units[uid].controller):
        raise unreached(s, uid, end, limit)
    cost = 0
    cur = s
    for a, b in itertools.pairwise(pts):
        best = reach_all(cur, uid, 1)
        if b not in best or best[b][1] != a:
            step = reach_all(cur, uid, limit - cost)
            if b not in step or step[b][1] != a or step[b][0] - step[a][0] > 1:
                raise IllegalCommand("no_path", f"cannot step from {s.geo.labels[a]} to {s.geo.labels[b]}")
            cost += step[b][0]
        else:
            cost += best[b][0]
        if cost > limit:
            if s.actions >= action_limit(s):
                raise IllegalCommand("action_taken", "that path costs energy and you have already taken your "
                                                     "action this turn (one action that requires energy a turn)")
            raise IllegalCommand("not_enough_energy", f"the path costs more than the {limit} energy you have")
        if b != end:
            if b in s.fire and s.units[uid].kind not in COMMANDERS and s.rules >= 3:
                # Lasting Flames: a non-commander entering a token is defeated there (version 3:
                # version 2 let a typed path walk on, as the search never does).
                raise IllegalCommand("no_path", f"a fire token on {s.geo.labels[b]} ends the move there")
            cur = _standing(cur, uid, b)
    return pts, cost


def _standing(s: State, uid: int, t: int) -> State:
    """The position with the unit notionally on `t` (to check the next step of a path)."""
    units = list(s.units)
    occ = list(s.occ)
    old = units[uid].tiles[0]
    if occ[old] == uid:
        occ[old] = -1
    units[uid] = with_unit(units[uid], tiles=(t,))
    if occ[t] < 0:
        occ[t] = uid
    return revise(s, units=tuple(units), occ=tuple(occ))


def do_move(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    pts = [tile(s, x) for x in a["path"]]
    uid = own_unit(s, seat, a["path"][0])
    if s.units[uid].kind == "firefly":
        raise IllegalCommand("not_your_unit", "Fireflies move only with the volcano")
    if len(s.units[uid].tiles) > 1:
        raise IllegalCommand("use_umove", "Ultimatosaur moves by its three tiles: umove c4+d4+c5 d4+c5+d5")
    free_only = s.actions >= action_limit(s)
    limit = 0 if free_only else budget(s, seat) + (s.players[payer(s, seat)].rage if s.units[uid].kind == "wyrmling" else 0)
    path, cost = move_path(s, uid, pts, limit)
    if cost > 0:
        need_action(s)
        if s.units[uid].kind == "wyrmling":
            if not wyrm_pay(c, seat, cost, "move", a):
                return
        else:
            pay(c, seat, cost)
        take_action(c, seat)
    finish_move(c, seat, uid, path)


def finish_move(c: RiteEmitter, seat: int, uid: int, path: list[int]) -> None:
    """Record a move, apply a fire token at its end, and offer Protecting Wings after an Angel's."""
    origin = path[0]
    c.emit("UnitMoved", {"uid": uid, "path": [c.lab(t) for t in path]}, seat)
    pass_through(c, path[1:-1])
    enter(c, uid, path[-1])
    if c.s.units[uid].kind == "angel" and c.s.units[uid].where == BOARD:
        open_wings(c, uid, origin)


def legal_move(s: State, seat: int, free_only: bool) -> Iterator[Command]:
    have = 0 if free_only else budget(s, seat)
    lab = s.geo.labels
    for uid in movers(s, seat):
        u = s.units[uid]
        if u.kind == "firefly" or len(u.tiles) > 1:
            continue
        lim = have + (s.players[payer(s, seat)].rage if u.kind == "wyrmling" and have >= 1 else 0)
        if u.kind != "warrior" and lim == 0:
            continue
        start = u.tiles[0]
        for t, (cst, _) in reach(s, uid, lim).items():
            if t != start and (cst == 0 or not free_only):
                yield cmd("move", seat, path=[lab[start], lab[t]])


# --- Protecting Wings --------------------------------------------------------------------------


def wing_options(s: State) -> list[str]:
    angel, origin, carried = s.mctx[0], s.mctx[1], s.mctx[2:]
    geo = s.geo
    seat = s.units[angel].controller
    dests = [j for j in geo.nbr[s.units[angel].tiles[0]] if open_tile(s, j)]
    out = []
    if len(carried) < 2 and dests:
        for j in geo.nbr[origin]:
            v = s.occ[j]
            if v >= 0 and v != angel and v not in carried and s.units[v].controller == seat:
                out += [f"{geo.labels[j]}-{geo.labels[d]}" for d in dests]
    return [*out, "done"]


def open_wings(c: RiteEmitter, angel: int, origin: int) -> None:
    c.mode("wings", [angel, origin])
    if wing_options(c.s) == ["done"]:
        c.mode("turn")


def do_wings(c: RiteEmitter, seat: int, opt: str) -> None:
    s = c.s
    if chose_done(c, opt, wing_options(s)):
        return
    a, b = (tile(s, x) for x in opt.split("-"))
    v = s.occ[a]
    c.emit("UnitMoved", {"uid": v, "path": [c.lab(a), c.lab(b)], "carried": True}, seat)
    enter(c, v, b)
    c.mode("wings", [*s.mctx, v])
    if wing_options(c.s) == ["done"]:
        c.mode("turn")


# --- defeat ------------------------------------------------------------------------------------


def do_defeat(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    t = tile(s, a["target"])
    v = s.occ[t]
    if v < 0:
        raise IllegalCommand("no_unit", f"no unit on {a['target']}")
    attacker = -1
    if s.units[v].controller != seat:
        if a.get("from") is None:
            raise IllegalCommand("no_attacker", "name the unit that defeats it: defeat X from Y")
        attacker = own_unit(s, seat, a["from"])
        if not touching(s, attacker, v):
            raise IllegalCommand("not_adjacent", "the attacking unit must be adjacent to the target")
        tn = taunters(s, attacker)
        if tn and t not in tn:
            raise IllegalCommand("taunted", "a unit next to an enemy Knight may only defeat that Knight")
        if s.units[attacker].kind == "firefly":
            raise IllegalCommand("not_your_unit", "Fireflies are the volcano's")
    elif a.get("from") is not None:
        raise IllegalCommand("own_unit", "defeating your own unit needs no attacker")
    if not defeatable(s, v, seat, "action"):
        raise IllegalCommand("cannot_be_defeated", "that unit cannot be defeated now")
    cost = primals.attack_cost(s, v, seat, attacker)
    if primals.free_defeat(s, v, seat, attacker):
        # Surprise Attack / Group Hunt: a defeat without spending energy is not an action (Turn).
        primals.free_defeat_used(c, seat, attacker)
    else:
        # Priced 0 by surround or Lonely Prey, it is still the Defeat action: the turn's one.
        need_action(s)
        if attacker >= 0 and s.units[attacker].kind == "wyrmling":
            if not wyrm_pay(c, seat, cost, "defeat", a):
                return
        else:
            pay(c, seat, cost)
        take_action(c, seat)
    defeat(c, [v], seat, "action", attacker)


def legal_defeat(s: State, seat: int, free_only: bool = False) -> Iterator[Command]:
    """Defeats within the seat's energy; with `free_only` only those made without spending
    energy (Surprise Attack, Group Hunt), which are no action."""
    p = s.players[payer(s, seat)]
    have = 0 if free_only else p.round_e + p.reserve_e
    if free_only and not primals.can_free_defeat(s, seat):
        return
    lab = s.geo.labels
    for uid, u in enumerate(s.units):
        if u.where != BOARD:
            continue
        t = u.tiles[0]
        if u.controller == seat:
            if have >= 1 and defeatable(s, uid, seat, "action") and defeat_cost(s, uid, seat, -1) <= have:
                yield cmd("defeat", seat, target=lab[t], **{"from": None})
            continue
        if not defeatable(s, uid, seat, "action"):
            continue
        seen: list[int] = []
        for j in around(s, uid):
            a = s.occ[j]
            if a < 0 or s.units[a].controller != seat or a in seen:
                continue
            seen.append(a)
            tn = taunters(s, a)
            if tn and not any(x in tn for x in u.tiles):
                continue
            if free_only:
                if primals.free_defeat(s, uid, seat, a):
                    yield cmd("defeat", seat, target=lab[t], **{"from": lab[s.units[a].tiles[0]]})
                continue
            extra = p.rage if s.units[a].kind == "wyrmling" and have >= 1 else 0
            cost = primals.attack_cost(s, uid, seat, a)
            if cost <= have + extra:
                yield cmd("defeat", seat, target=lab[t], **{"from": lab[s.units[a].tiles[0]]})


# --- remove a rock -----------------------------------------------------------------------------


def _rock_ok(s: State, seat: int, r: int) -> bool:
    for j in s.geo.nbr[r]:
        v = s.occ[j]
        if v >= 0 and s.units[v].controller == seat and not taunters(s, v):
            return True
    return False


def do_rock(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    need_action(s)
    r = tile(s, a["at"])
    if r not in s.rocks:
        raise IllegalCommand("no_rock", f"no rock on {a['at']}")
    if not _rock_ok(s, seat, r):
        raise rock_refusal(s, seat, r)
    pay(c, seat, 1)
    take_action(c, seat)
    c.emit("RockRemoved", {"at": c.lab(r)}, seat)


def legal_rock(s: State, seat: int) -> Iterator[Command]:
    if budget(s, seat) < 1:
        return
    for r in sorted(s.rocks):
        if _rock_ok(s, seat, r):
            yield cmd("rock", seat, at=s.geo.labels[r])


# --- Fly ---------------------------------------------------------------------------------------


def _fly_targets(s: State, seat: int, angel: int) -> Iterator[tuple[int, int]]:
    at = s.units[angel].tiles[0]
    if taunters(s, angel):
        return
    have = budget(s, seat)
    d = s.geo.dist[at]
    for j in range(s.geo.size):
        if j == at:
            continue
        cost = (d[j] + 1) // 2
        if cost > have:
            continue
        if open_tile(s, j) or (d[j] == 1 and s.occ[j] >= 0 and s.units[s.occ[j]].controller == seat):
            yield j, cost


def do_fly(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    need_action(s)
    angel = own_unit(s, seat, a["from"])
    if s.units[angel].kind != "angel":
        raise IllegalCommand("bad_unit", "only an Angel can Fly")
    to = tile(s, a["to"])
    options = dict(_fly_targets(s, seat, angel))
    if to not in options:
        raise fly_refusal(s, angel, str(a["to"]))
    pay(c, seat, options[to])
    take_action(c, seat)
    origin = s.units[angel].tiles[0]
    if s.occ[to] >= 0:
        c.emit("UnitsSwapped", {"a": angel, "b": s.occ[to]}, seat)
    else:
        c.emit("UnitMoved", {"uid": angel, "path": [c.lab(origin), c.lab(to)], "fly": True}, seat)
        enter(c, angel, to)
    if c.s.units[angel].where == BOARD:
        open_wings(c, angel, origin)


def legal_fly(s: State, seat: int) -> Iterator[Command]:
    lab = s.geo.labels
    for uid in movers(s, seat):
        if s.units[uid].kind == "angel":
            for j, _ in _fly_targets(s, seat, uid):
                yield cmd("fly", seat, **{"from": lab[s.units[uid].tiles[0]], "to": lab[j]})


# --- Rage: how much of a Wyrmling action it pays -------------------------------------------------


def wyrm_pay(c: RiteEmitter, seat: int, cost: int, verb: str, a: dict[str, Any]) -> bool:
    """Pay a Wyrmling action; when more than one split between rage and energy is possible the
    player chooses it first (Rage: "you may use this rage"): the `rage` prompt opens, the action
    waits in its context, and False is returned."""
    s = c.s
    if "rage" in a:
        g = a["rage"]
    else:
        choices = rage_choices(s, seat, cost)
        if len(choices) > 1:
            c.mode("rage", [cost, verb, dict(a)])
            return False
        g = choices[0] if choices else 0
    pay(c, seat, cost, rage_ok=True, rage=g)
    return True


def rage_options(s: State) -> list[str]:
    return [f"rage:{g}" for g in rage_choices(s, s.active, s.mctx[0])]


def do_rage(c: RiteEmitter, seat: int, opt: str) -> None:
    """The rage prompt's answer: the waiting Wyrmling action runs, paying that much rage."""
    s = c.s
    offered(opt, rage_options(s))
    _, verb, args = s.mctx
    c.mode("turn")
    act = {"move": do_move, "defeat": do_defeat, "breathe": do_breathe}[verb]
    act(c, seat, {**args, "rage": int(opt.split(":")[1])})


# --- Fireball ----------------------------------------------------------------------------------


def taunt_y(s: State, seat: int, sorc: int, t: int) -> int:
    """Taunt on a Sorcerer: the least Y with which a Fireball on `t` defeats a taunting Knight,
    the only Fireball it may cast (Knight: "other than actions or abilities that defeat the
    Knight"); 0 when no Knight taunts it, -1 when no Fireball on `t` can defeat one."""
    tn = taunters(s, sorc)
    if not tn:
        return 0
    area = (t, *s.geo.nbr[t])
    ys = [fire_cost(s, s.occ[k]) for k in tn if k in area and defeatable(s, s.occ[k], seat, "fireball")]
    return min(ys) if ys else -1


def fireball_targets(s: State, seat: int, sorc: int) -> Iterator[int]:
    at = s.units[sorc].tiles[0]
    have = budget(s, seat)
    d = s.geo.dist[at]
    taunted = bool(taunters(s, sorc))
    for j in range(s.geo.size):
        if 1 <= d[j] <= have:
            y = taunt_y(s, seat, sorc, j) if taunted else 0
            if y >= 0 and d[j] + y <= have:
                yield j


def do_fireball(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    need_action(s)
    sorc = own_unit(s, seat, a["from"])
    if s.units[sorc].kind != "sorcerer":
        raise IllegalCommand("bad_unit", "only a Sorcerer casts Fireball")
    t = tile(s, a["target"])
    if t not in set(fireball_targets(s, seat, sorc)):
        if taunt_y(s, seat, sorc, t) < 0:
            raise IllegalCommand(
                "taunted", f"a Sorcerer next to an enemy Knight may only cast a Fireball that defeats the Knight, "
                f"and no Fireball on {a['target']} can"
            )
        raise IllegalCommand("out_of_range", f"{a['target']} is out of range of your energy (X + Y)")
    c.mode("fireball", [sorc, t])


def legal_fireball(s: State, seat: int) -> Iterator[Command]:
    lab = s.geo.labels
    for uid in movers(s, seat):
        if s.units[uid].kind == "sorcerer":
            for t in fireball_targets(s, seat, uid):
                yield cmd("fireball", seat, **{"from": lab[s.units[uid].tiles[0]], "target": lab[t]})


def flames_ok(s: State, seat: int) -> bool:
    p = s.players[seat]
    # Under Total Control Chaos plays as the Goblins but never with their power cards.
    return (
        faction(s, seat) == "goblins" and p.level // 5 - p.used[0] > 0 and "flames" not in s.tpowers
        and s.proxy != seat
    )


def do_pay(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    sorc, t = s.mctx[0], s.mctx[1]
    x, y, flames = a["x"], a["y"], a["flames"]
    dist = s.geo.dist[s.units[sorc].tiles[0]][t]
    if x < max(1, dist) or y < 0 or x + y > budget(s, seat):
        raise IllegalCommand("bad_amount", f"X must reach the target ({dist}) and X+Y fit your energy")
    least = taunt_y(s, seat, sorc, t)
    if y < least:
        raise IllegalCommand("taunted", f"next to an enemy Knight the Fireball must defeat it: Y at least {least}")
    if flames and not flames_ok(s, seat):
        raise IllegalCommand("power_unavailable", "Lasting Flames is not available")
    pay(c, seat, x + y)
    take_action(c, seat)
    c.mode("turn")
    area = [t, *s.geo.nbr[t]]
    if flames:
        use_flames(c, seat, area)
    s = c.s
    victims = [
        s.occ[j] for j in area
        if s.occ[j] >= 0 and fire_cost(s, s.occ[j]) <= y and defeatable(s, s.occ[j], seat, "fireball")
    ]
    if victims:
        defeat(c, victims, seat, "fireball")


def legal_pay(s: State, seat: int) -> Iterator[Command]:
    sorc, t = s.mctx[0], s.mctx[1]
    dist = max(1, s.geo.dist[s.units[sorc].tiles[0]][t])
    have = budget(s, seat)
    least = max(0, taunt_y(s, seat, sorc, t))
    fl = [False, True] if flames_ok(s, seat) else [False]
    for x in range(dist, have + 1):
        for y in range(least, have - x + 1):
            for f in fl:
                yield cmd("pay", seat, x=x, y=y, flames=f)


def use_flames(c: RiteEmitter, seat: int, area: list[int]) -> None:
    """Lasting Flames: a fire token on each accessible tile of the targeted area."""
    c.emit("PowerUsed", {"seat": seat, "power": "flames", "card": 0}, seat)
    for j in area:
        if open_tile(c.s, j) and j not in c.s.fire and len(c.s.fire) < FIRES:
            c.emit("FireTokenPlaced", {"at": c.lab(j)}, seat)


# --- Breathe Fire ------------------------------------------------------------------------------


def _breathe_lines(s: State, seat: int, wy: int) -> Iterator[tuple[int, list[int]]]:
    at = s.units[wy].tiles[0]
    p = s.players[payer(s, seat)]
    have = p.round_e + p.reserve_e
    if have < 1:
        return
    top = have + p.rage
    tn = taunters(s, wy)
    for d in range(6):
        line = s.geo.ray(at, d, top)
        for k in range(1, len(line) + 1):
            seg = line[:k]
            # Taunt: only a breath that defeats a taunting Knight (not one Sacred Grounds keeps)
            if tn and not any(j in tn and defeatable(s, s.occ[j], seat, "breathe") for j in seg):
                continue
            yield seg[-1], seg


def do_breathe(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    need_action(s)
    wys = [u for u in movers(s, seat) if s.units[u].kind == "wyrmling"]
    if not wys:
        raise IllegalCommand("bad_unit", "you have no Red Dragon Wyrmling on the board")
    wy = wys[0]
    to = tile(s, a["to"])
    lines = dict(_breathe_lines(s, seat, wy))
    if to not in lines:
        raise IllegalCommand("bad_tile", f"{a['to']} is not in a straight line within reach")
    seg = lines[to]
    if a["flames"] and not flames_ok(s, seat):
        raise IllegalCommand("power_unavailable", "Lasting Flames is not available")
    if not wyrm_pay(c, seat, len(seg), "breathe", a):
        return
    take_action(c, seat)
    if a["flames"]:
        use_flames(c, seat, seg)
    s = c.s
    victims = [s.occ[j] for j in seg if s.occ[j] >= 0 and defeatable(s, s.occ[j], seat, "breathe")]
    if victims:
        defeat(c, victims, seat, "breathe", wy)


def legal_breathe(s: State, seat: int) -> Iterator[Command]:
    lab = s.geo.labels
    fl = [False, True] if flames_ok(s, seat) else [False]
    for wy in movers(s, seat):
        if s.units[wy].kind == "wyrmling":
            for to, _ in _breathe_lines(s, seat, wy):
                for f in fl:
                    yield cmd("breathe", seat, to=lab[to], flames=f)


# --- Death's Presence --------------------------------------------------------------------------


def presence_targets(s: State, seat: int) -> list[int]:
    if "presence" in s.rflags:
        return []
    for u in s.units:
        if u.kind == "death" and u.where == BOARD and u.controller == seat:
            out = []
            for j in s.geo.nbr[u.tiles[0]]:
                v = s.occ[j]
                if v >= 0:
                    w = s.units[v]
                    if (
                        w.controller != seat
                        and (w.owner < 0 or s.factions[w.owner] != "undead")
                        and w.kind not in COMMANDERS
                        and defeatable(s, v, seat, "presence")
                    ):
                        out.append(v)
            return out
    return []


def do_presence(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    victims = presence_targets(c.s, seat)
    if not victims:
        raise IllegalCommand("no_target", "Death's Presence has nothing to defeat (or was used this round)")
    c.emit("FlagSet", {"flag": "presence"}, seat)
    defeat(c, victims, seat, "presence")


# --- reactions, Firefly ties, end, pass ----------------------------------------------------------


def do_react(c: RiteEmitter, seat: int, opt: str) -> None:
    s = c.s
    offered(opt, react_choices(s))
    if opt == "done":
        end_react(c)
        return
    what, lab = opt.split(":")
    t = tile(s, lab)
    rest = [c.lab(x) for x in s.reacts if x != t]
    if what == "rise":
        place_unit(c, in_reserve(s, seat, "warrior"), t, "rise")
        warrior_placed(c, seat)
        reaped = bool(s.mctx[0])
    else:
        death = next(i for i, u in enumerate(s.units) if u.kind == "death" and u.where == BOARD)
        c.emit("UnitMoved", {"uid": death, "path": [c.lab(s.units[death].tiles[0]), lab], "reap": True}, seat)
        reaped = True
    c.emit("ReactionsPending", {"tiles": rest})
    c.mode("react", [reaped, *s.mctx[1:]], resume=s.resume)
    if react_choices(c.s) == ["done"]:
        end_react(c)


def end_react(c: RiteEmitter) -> None:
    c.emit("ReactionsPending", {"tiles": []})
    c.mode(c.s.resume or "turn", list(c.s.mctx[1:]))
    s = c.s
    if s.mode == "crise" and rise_options(s) == ["done"]:
        # Put first (`do_simul`), the Undead took the tiles Chaos's waiting Rise Again wanted.
        c.emit("RisesPending", {"tiles": []})
        c.mode(s.mctx[1], list(s.mctx[2]))


def rune_options(s: State) -> list[str]:
    return [f"rune:{lab}" for lab in s.labels(s.runes)]


def do_rune(c: RiteEmitter, seat: int, opt: str) -> None:
    """Which rune tile lights (Undead: Objective, "only one rune tile for every defeated enemy
    unit"); the prompt stays open until the defeats' activations are all placed."""
    s = c.s
    offered(opt, rune_options(s))
    t = tile(s, opt.split(":")[1])
    c.emit("TileActivated", {"at": opt.split(":")[1]}, seat)
    rest = [x for x in s.runes if x != t]
    due = s.runes_due - 1
    if 0 < due < len(rest):
        c.emit("RunesPending", {"tiles": s.labels(rest), "n": due}, seat)
        return
    for x in rest[:due]:
        c.emit("TileActivated", {"at": c.lab(x)}, seat)
    c.emit("RunesPending", {"tiles": [], "n": 0}, seat)
    c.mode(s.mctx[1], list(s.mctx[2]))


def firefly_options(s: State) -> list[str]:
    return [str(x) for x in s.mctx[2:]]


def do_firefly(c: RiteEmitter, seat: int, opt: str) -> None:
    s = c.s
    if opt not in firefly_options(s):
        raise IllegalCommand("bad_option", f"{opt} is not a closest target")
    ff = s.mctx[1]
    c.mode("flow")
    firefly_strike(c, ff, tile(s, opt))


def do_end(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    if c.s.actions < 1:
        raise IllegalCommand("must_act", "take an action that requires energy, or pass")
    next_turn(c)


def do_pass(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    if c.s.actions > 0:
        raise IllegalCommand("already_acted", "you took an action this turn: end it instead")
    c.emit("Passed", {"seat": seat}, seat)


def order_options(s: State) -> list[str]:
    return [str(x) for x in s.mctx[1:]]


def do_order(c: RiteEmitter, seat: int, opt: str) -> None:
    """Which of several simultaneous Earth (or Fire) Elementals resolves next."""
    s = c.s
    if opt not in order_options(s):
        raise IllegalCommand("bad_option", f"{opt} is not one of the pending effects")
    rest = [tile(s, x) for x in order_options(s) if x != opt]
    c.mode("flow")
    e = tile(s, opt)
    if s.kinds[e] == "earth":
        earth_one(c, e)
        earth_next(c, rest)
    else:
        fire_one(c, e)
        fire_next(c, rest)
