"""The powers of the Humans, Goblins and Undead: availability, effects and their prompts (the
Primal powers live in `primals`, reached from here; Chaos's in `chaos`, which hands the others
here)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from rules.core import Command, IllegalCommand

from . import primals
from .actions import cmd, faction, finish_move, flames_ok, tile, use_flames
from .content import FACTIONS, POWER_OWNER
from .emitter import RiteEmitter
from .engine import chose_done, defeat, place_unit, warrior_placed
from .query import COMMANDERS, defeatable, in_reserve, open_tile, path_from, reach_all
from .state import BOARD, CARD, RESERVE, State

FAR = 99  # power moves cost no energy: any distance


def slots_left(s: State, seat: int, card: int) -> int:
    """Uses left on power card `card` (0-3): one slot per unlocked level from the card's own."""
    p = s.players[seat]
    return max(0, p.level // 5 - card) - p.used[card]


def power_ready(s: State, seat: int, name: str) -> bool:
    fac, card = POWER_OWNER[name]
    return fac == faction(s, seat) and slots_left(s, seat, card) > 0 and name not in s.tpowers


def record_use(c: RiteEmitter, seat: int, name: str) -> None:
    """Mark a slot of the power's card used (and the power as used this turn, or this round)."""
    fac, card = POWER_OWNER[name]
    rnd = name in FACTIONS[fac]["round_powers"]
    c.emit("PowerUsed", {"seat": seat, "power": name, "card": card, "round": rnd}, seat)


def _friendly_tiles(s: State, seat: int) -> list[int]:
    return [u.tiles[0] for u in s.units if u.where == BOARD and u.controller == seat]


# --- option lists (shared by legal_commands and the checks) ---------------------------------------


def _power_args(s: State, seat: int, name: str) -> Iterator[list[str]]:
    lab = s.geo.labels
    if name == "rally":
        anchors = set(_friendly_tiles(s, seat)) | {i for i, k in enumerate(s.kinds) if k == "banner"}
        for t in sorted(anchors):
            yield [lab[t]]
    elif name == "pilgrimage":
        shrines = [i for i, k in enumerate(s.kinds) if k == "shrine"]
        goals = set(shrines)
        for t in shrines:
            goals.update(s.geo.nbr[t])
        for uid, u in enumerate(s.units):
            if u.kind == "lightbringer" and u.where == BOARD and u.controller == seat:
                best = reach_all(s, uid, FAR)
                for g in sorted(goals):
                    if g in best and open_tile(s, g):
                        yield [lab[u.tiles[0]], lab[g]]
    elif name in ("sacred", "frenzy"):
        if name not in s.rflags:
            yield []
    elif name == "ascent":
        if any(u.kind == "lightbringer" and u.where == BOARD and u.controller == seat for u in s.units) and (
            in_reserve(s, seat, "angel") >= 0
        ):
            yield []
    elif name == "reborn":
        if _card_options(s, seat, "firebringer") != ["done"]:
            yield []
    elif name == "sign":
        names = sorted(s.geo.lines)
        fl = [False, True] if flames_ok(s, seat) else [False]
        for a, b in combinations(names, 2):
            for f in fl:
                yield [a, b, "flames"] if f else [a, b]
    elif name == "runes":
        if in_reserve(s, seat, "warrior") >= 0 and any(
            k == "rune" and open_tile(s, i) for i, k in enumerate(s.kinds)
        ):
            yield []
    elif name == "undying":
        if _card_options(s, seat, "deathbringer") != ["done"]:
            yield []
    elif name == "rpower":
        if _rpower_options(s, seat) != ["done"]:
            yield []
    elif name == "ancestors":
        yield []
    else:
        yield from primals.power_args(s, seat, name)


def legal_powers(s: State, seat: int) -> Iterator[Command]:
    for name in FACTIONS[faction(s, seat)]["powers"]:
        if name == "flames" or not power_ready(s, seat, name):
            continue
        for args in _power_args(s, seat, name):
            yield cmd("power", seat, name=name, args=args)


def do_power(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    name, args = a["name"], list(a["args"])
    if name not in POWER_OWNER or POWER_OWNER[name][0] != faction(s, seat):
        raise IllegalCommand("bad_power", f"{name} is not one of your powers")
    if name == "flames":
        raise IllegalCommand("bad_power", "Lasting Flames is used with Fireball, Breathe Fire or Sign of the Dragon")
    if not power_ready(s, seat, name):
        raise IllegalCommand("power_unavailable", f"{name} is locked, spent, or used this turn")
    if name == "sign":
        _sign(c, seat, args)
        return
    if args not in list(_power_args(s, seat, name)):
        raise IllegalCommand("bad_power_args", f"{name} cannot be used that way now")
    record_use(c, seat, name)
    if name == "rally":
        c.mode("rally", [tile(s, args[0])])
        if _rally_options(c.s, seat) == ["done"]:
            c.mode("turn")
    elif name == "pilgrimage":
        uid = s.occ[tile(s, args[0])]
        best = reach_all(s, uid, FAR)
        finish_move(c, seat, uid, path_from(best, tile(s, args[1])))
    elif name == "ascent":
        for uid, u in enumerate(s.units):
            if u.kind == "lightbringer" and u.where == BOARD and u.controller == seat:
                angel = in_reserve(c.s, seat, "angel")
                if angel < 0:
                    break
                t = u.tiles[0]
                c.emit("UnitRemoved", {"uid": uid, "at": c.lab(t), "to": RESERVE}, seat)
                place_unit(c, angel, t, "ascent")
    elif name == "reborn":
        c.mode("card", ["firebringer"])
    elif name == "undying":
        c.mode("card", ["deathbringer"])
    elif name == "runes":
        for i, k in enumerate(s.kinds):
            if k == "rune" and open_tile(c.s, i):
                w = in_reserve(c.s, seat, "warrior")
                if w < 0:
                    break
                place_unit(c, w, i, "runes")
                warrior_placed(c, seat)
    elif name == "rpower":
        c.mode("rpower", [])
    elif name == "ancestors":
        c.mode("ancestors", [])
    else:
        primals.use_power(c, seat, name, args)


def _sign(c: RiteEmitter, seat: int, args: list[str]) -> None:
    s = c.s
    flames = len(args) == 3 and args[2] == "flames"
    lines = args[:2]
    if len(args) not in (2, 3) or (len(args) == 3 and not flames) or lines[0] == lines[1]:
        raise IllegalCommand("bad_power_args", "Sign of the Dragon takes two different lines")
    if any(x not in s.geo.lines for x in lines):
        raise IllegalCommand("bad_power_args", "lines are col:<letter>, row:<n> or diag:<n>")
    if flames and not flames_ok(s, seat):
        raise IllegalCommand("power_unavailable", "Lasting Flames is not available")
    record_use(c, seat, "sign")
    area = sorted(set(s.geo.lines[lines[0]]) | set(s.geo.lines[lines[1]]))
    if flames:
        use_flames(c, seat, area)
    s = c.s
    victims = [s.occ[j] for j in area if s.occ[j] >= 0 and defeatable(s, s.occ[j], seat, "sign")]
    if victims:
        defeat(c, victims, seat, "sign")


# --- power prompts -------------------------------------------------------------------------------


def _rally_options(s: State, seat: int) -> list[str]:
    anchor = s.mctx[0]
    moved = s.mctx[1:]
    lab = s.geo.labels
    out: list[str] = []
    if len(moved) < 2:
        goals = [j for j in s.geo.nbr[anchor] if open_tile(s, j)]
        for uid, u in enumerate(s.units):
            if (
                u.where == BOARD and u.controller == seat and u.kind not in COMMANDERS
                and uid not in moved and u.tiles[0] != anchor
            ):
                best = reach_all(s, uid, FAR)
                out += [f"{lab[u.tiles[0]]}-{lab[g]}" for g in goals if g in best]
    return [*out, "done"]


def _card_options(s: State, seat: int, kind: str) -> list[str]:
    lab = s.geo.labels
    if not any(u.owner == seat and u.kind == kind and u.where == CARD for u in s.units):
        return ["done"]
    if kind == "firebringer":
        tiles = [i for i, k in enumerate(s.kinds) if k == "beacon" and i in s.activated and open_tile(s, i)]
        tiles += [i for i in sorted(s.fire) if open_tile(s, i)]
    else:
        tiles = [i for i, k in enumerate(s.kinds) if k == "rune" and open_tile(s, i)]
    return [*(lab[t] for t in sorted(set(tiles))), "done"]


def _rpower_options(s: State, seat: int) -> list[str]:
    if len(s.mctx) >= 2 or in_reserve(s, seat, "necromancer") < 0:
        return ["done"]
    lab = s.geo.labels
    out = [
        lab[u.tiles[0]]
        for u in s.units
        if u.kind == "deathbringer" and u.where == BOARD and u.controller == seat and s.kinds[u.tiles[0]] == "rune"
    ]
    return [*out, "done"]


def _ancestor_options(s: State, seat: int) -> list[str]:
    lab = s.geo.labels
    out: list[str] = []
    tiles = [i for i in range(s.geo.size) if open_tile(s, i)]
    for u in FACTIONS[faction(s, seat)]["units"]:
        if not u.get("commander") and in_reserve(s, seat, u["kind"], card=u["kind"] == "deathbringer") >= 0:
            out += [f"{u['kind']}@{lab[t]}" for t in tiles]
    return [*out, "done"]


def prompt_options(s: State, seat: int) -> list[str]:
    m = s.mode
    if m == "rally":
        return _rally_options(s, seat)
    if m == "card":
        return _card_options(s, seat, s.mctx[0])
    if m == "rpower":
        return _rpower_options(s, seat)
    if m == "ancestors":
        return _ancestor_options(s, seat)
    return primals.prompt_options(s, seat)


def do_choose_power(c: RiteEmitter, seat: int, opt: str) -> None:
    s = c.s
    m = s.mode
    if m in ("ultimatosaur", "roar", "alpha"):
        primals.do_choose(c, seat, opt)
        return
    if chose_done(c, opt, prompt_options(s, seat)):
        return
    if m == "rally":
        a, b = (tile(s, x) for x in opt.split("-"))
        uid = s.occ[a]
        finish_move(c, seat, uid, path_from(reach_all(s, uid, FAR), b))
        c.mode("rally", [*s.mctx, uid])
    elif m == "card":
        t = tile(s, opt)
        kind = s.mctx[0]
        uid = next(i for i, u in enumerate(s.units) if u.owner == seat and u.kind == kind and u.where == CARD)
        if t in s.fire:
            # Reborn in Flames replaces the fire token: the Fire Bringer is not burned.
            c.emit("FireTokenRemoved", {"at": opt}, seat)
        place_unit(c, uid, t, "card")
    elif m == "rpower":
        t = tile(s, opt)
        db = s.occ[t]
        c.emit("UnitRemoved", {"uid": db, "at": opt, "to": RESERVE}, seat)
        place_unit(c, in_reserve(c.s, seat, "necromancer"), t, "rpower")
        c.mode("rpower", [*s.mctx, opt])
    elif m == "ancestors":
        kind, lab = opt.split("@")
        t = tile(s, lab)
        place_unit(c, in_reserve(s, seat, kind, card=kind == "deathbringer"), t, "ancestors")
        if kind == "warrior":
            warrior_placed(c, seat)
    if c.s.mode == m and prompt_options(c.s, seat) == ["done"]:
        c.mode("turn")
