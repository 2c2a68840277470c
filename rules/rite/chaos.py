"""The Chaos faction's commands: Just a Thought, Steal Identity, Join, the four powers, the
temporary-control prompt (`puppet`), Total Control (`proxy`), Change of Thought and the
Hive Mind's Rite of Summoning; each with its legal-command enumeration."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rules.core import Command, IllegalCommand

from . import actions as A
from . import primals as PR
from .chaos_control import chaos_seat, cot_thoughts, flippable, hive_tiles, rise_options
from .content import FACTIONS, POWER_OWNER, UNITS
from .emitter import Handler, RiteEmitter
from .engine import action_limit, defeat, need_action, offered, pay, place_unit
from .powers import do_power as other_power
from .powers import power_ready, record_use
from .query import COMMANDERS, budget, in_reserve, react_choices, taunters
from .state import BOARD, RESERVE, State, revise

MODES = ("puppet", "proxy", "cot", "hiverite", "crise", "simul")
POWERS = tuple(FACTIONS["chaos"]["powers"])  # puppet, corrupt, totalcontrol, puppets


def is_chaos(s: State, seat: int) -> bool:
    return 0 <= seat < len(s.factions) and s.factions[seat] == "chaos"


def _need_chaos(s: State, seat: int) -> None:
    if not is_chaos(s, seat):
        raise IllegalCommand("not_chaos", "only the Chaos player can do that")


def _flip(c: RiteEmitter, uid: int, seat: int, why: str) -> None:
    c.emit("UnitFlipped", {"uid": uid, "to": seat, "at": c.lab(c.s.units[uid].tiles[0]), "why": why}, seat)


def _target(s: State, seat: int, label: Any) -> int:
    t = A.tile(s, label)
    v = s.occ[t]
    if v < 0:
        raise IllegalCommand("no_unit", f"no unit on {label}")
    u = s.units[v]
    if u.controller == seat:
        raise IllegalCommand("own_unit", "that unit is already yours")
    if u.kind == "firefly":
        raise IllegalCommand("immune", "Fireflies cannot be affected by Chaos powers or abilities")
    if u.kind in COMMANDERS:
        raise IllegalCommand("commander", "commanders can never be controlled by Chaos")
    if not flippable(s, v, seat):
        raise IllegalCommand("immune", "that unit cannot be affected now (Sacred Grounds or jungle)")
    return v


def _untaunted(s: State, actor: int, t: int) -> None:
    """Taunt: a unit next to an enemy Knight may only use an ability to take control of that Knight."""
    tn = taunters(s, actor)
    if tn and t not in tn:
        raise IllegalCommand("taunted", "a unit next to an enemy Knight may only take control of that Knight")


# --- Just a Thought ------------------------------------------------------------------------------


def _thought_targets(s: State, seat: int, th: int) -> Iterator[int]:
    tn = taunters(s, th)
    for j in s.geo.nbr[s.units[th].tiles[0]]:
        v = s.occ[j]
        if v >= 0 and flippable(s, v, seat) and (not tn or j in tn):
            yield j


def do_thought(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    _need_chaos(s, seat)
    need_action(s)
    th = A.own_unit(s, seat, a["from"])
    if s.units[th].kind != "thought":
        raise IllegalCommand("bad_unit", "only a Thought can use Just a Thought")
    v = _target(s, seat, a["target"])
    t = s.units[v].tiles[0]
    if t not in s.geo.nbr[s.units[th].tiles[0]]:
        raise IllegalCommand("not_adjacent", "the Thought must be adjacent to its target")
    _untaunted(s, th, t)
    c.emit("UnitRemoved", {"uid": th, "at": a["from"], "to": RESERVE, "why": "thought"}, seat)
    _flip(c, v, seat, "thought")
    c.mode("puppet", [v])


# --- Steal Identity (free: it is not an ability that requires energy) -----------------------------


def _steal_targets(s: State, seat: int, dop: int) -> Iterator[int]:
    yield from _thought_targets(s, seat, dop)


def do_steal(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    _need_chaos(s, seat)
    dop = A.own_unit(s, seat, a["from"])
    if s.units[dop].kind != "doppelganger":
        raise IllegalCommand("bad_unit", "only a Doppelganger can Steal Identity")
    v = _target(s, seat, a["target"])
    t = s.units[v].tiles[0]
    home = s.units[dop].tiles[0]
    if t not in s.geo.nbr[home]:
        raise IllegalCommand("not_adjacent", "the Doppelganger must be adjacent to its target")
    _untaunted(s, dop, t)
    c.emit("UnitRemoved", {"uid": dop, "at": a["from"], "to": RESERVE, "why": "steal"}, seat)
    c.emit("UnitMoved", {"uid": v, "path": [c.lab(t), c.lab(home)], "steal": True}, seat)
    _flip(c, v, seat, "steal")


# --- Join ----------------------------------------------------------------------------------------


def _hive(s: State, seat: int) -> int:
    for uid, u in enumerate(s.units):
        if u.kind == "hivemind" and u.where == BOARD and u.controller == seat:
            return uid
    return -1


def _join_targets(s: State, seat: int) -> Iterator[int]:
    hm = _hive(s, seat)
    if hm < 0:
        return
    at = s.units[hm].tiles[0]
    tn = taunters(s, hm)
    have = budget(s, seat)
    d = s.geo.dist[at]
    for j in range(s.geo.size):
        v = s.occ[j]
        if (
            v >= 0 and 1 <= d[j] <= 3 and flippable(s, v, seat) and (not tn or j in tn)
            and UNITS[s.units[v].kind].cost <= have
        ):
            yield j


def do_join(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    _need_chaos(s, seat)
    need_action(s)
    hm = _hive(s, seat)
    if hm < 0:
        raise IllegalCommand("bad_unit", "Join needs your Hive Mind on the board")
    v = _target(s, seat, a["target"])
    t = s.units[v].tiles[0]
    if not 1 <= s.geo.dist[s.units[hm].tiles[0]][t] <= 3:
        raise IllegalCommand("out_of_range", "Join reaches units within range 3 of the Hive Mind")
    _untaunted(s, hm, t)
    cost = UNITS[s.units[v].kind].cost
    pay(c, seat, cost)
    A.take_action(c, seat)
    _flip(c, v, seat, "join")
    c.gain(seat, cost)  # energy spent on a unit of an enemy faction


# --- powers --------------------------------------------------------------------------------------


def _power_args(s: State, seat: int, name: str) -> Iterator[list[str]]:
    lab = s.geo.labels
    if name == "puppet":
        if s.actions < action_limit(s):
            for v, u in enumerate(s.units):
                if flippable(s, v, seat):
                    yield [lab[u.tiles[0]]]
    elif name == "corrupt":
        if in_reserve(s, seat, "chaosbringer") >= 0:
            for v, u in enumerate(s.units):
                if flippable(s, v, seat) and UNITS[u.kind].cost == 2:
                    yield [lab[u.tiles[0]]]
    elif name == "totalcontrol":
        if name not in s.rflags:
            yield []
    elif name == "puppets" and any(flippable(s, v, seat) for v in range(len(s.units))):
        yield []


def legal_powers(s: State, seat: int) -> Iterator[Command]:
    if not is_chaos(s, seat):
        return
    for name in POWERS:
        if power_ready(s, seat, name):
            for args in _power_args(s, seat, name):
                yield A.cmd("power", seat, name=name, args=args)


def do_power(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    name, args = a["name"], list(a["args"])
    if name not in POWERS:
        other_power(c, seat, a)
        return
    if POWER_OWNER[name][0] != s.factions[seat]:
        raise IllegalCommand("bad_power", f"{name} is not one of your powers")
    if not power_ready(s, seat, name):
        raise IllegalCommand("power_unavailable", f"{name} is locked, spent, or used this turn")
    if name == "puppet":
        need_action(s)  # Puppet is the one power that is an action (Turn: ACTION - Power)
    if name in ("puppet", "corrupt") and len(args) == 1:
        v = _target(s, seat, args[0])
        if name == "corrupt" and UNITS[s.units[v].kind].cost != 2:
            raise IllegalCommand("bad_power_args", "Corrupt replaces an enemy 2-cost unit")
    if args not in list(_power_args(s, seat, name)):
        raise IllegalCommand("bad_power_args", f"{name} cannot be used that way now")
    record_use(c, seat, name)
    if name == "puppet":
        _flip(c, s.occ[A.tile(s, args[0])], seat, "puppet")
        c.mode("puppet", [s.occ[A.tile(s, args[0])]])
    elif name == "corrupt":
        t = A.tile(s, args[0])
        v = s.occ[t]
        c.emit("UnitRemoved", {"uid": v, "at": args[0], "to": RESERVE, "why": "corrupt"}, seat)
        place_unit(c, in_reserve(c.s, seat, "chaosbringer"), t, "corrupt")
    elif name == "puppets":
        for v in range(len(s.units)):
            if flippable(c.s, v, seat):
                _flip(c, v, seat, "puppets")


# --- the puppet prompt: one action with a temporarily controlled unit ------------------------------


def _puppet_tile(s: State) -> str:
    return s.geo.labels[s.units[s.mctx[0]].tiles[0]]


def puppet_commands(s: State, seat: int) -> Iterator[Command]:
    lab = _puppet_tile(s)
    for c in A.legal_move(s, seat, free_only=False):
        if c.args["path"][0] == lab:
            yield c
    for c in A.legal_defeat(s, seat):
        if c.args.get("from") == lab:
            yield c
    v = s.mctx[0]
    if s.units[v].kind == "sorcerer":
        for t in A.fireball_targets(s, seat, v):
            yield A.cmd("fireball", seat, **{"from": lab, "target": s.geo.labels[t]})
    yield A.cmd("choose", seat, option="done")


_PUPPET_VERBS: dict[str, Handler] = {"move": A.do_move, "defeat": A.do_defeat, "fireball": A.do_fireball}


def _do_puppet(verb: str) -> Handler:
    def h(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
        s = c.s
        lab = _puppet_tile(s)
        actor = a["path"][0] if verb == "move" else a.get("from")
        if verb == "choose":
            if a["option"] != "done":
                raise IllegalCommand("bad_option", "answer with an action of the controlled unit, or `choose done`")
        elif actor != lab:
            raise IllegalCommand("not_your_unit", f"the action must be taken with the controlled unit on {lab}")
        else:
            _PUPPET_VERBS[verb](c, seat, a)
        # Just a Thought / Puppet is this turn's action even when it spends nothing (a Fireball
        # takes it when paid).
        if c.s.actions == s.actions and c.s.mode != "fireball":
            A.take_action(c, seat)
        if c.s.mode == "puppet":
            c.mode("turn")

    return h


# --- Total Control: Chaos plays as another player, with its own energy ------------------------------


def _proxy_actions(s: State, x: int, chaos: int) -> Iterator[Command]:
    acting = s.actions < action_limit(s)
    cmds: list[Iterator[Command]] = []
    if acting:
        cmds += [A.legal_summon(s, x), A.legal_move(s, x, free_only=False), A.legal_defeat(s, x)]
        cmds += [A.legal_rock(s, x), A.legal_fly(s, x), A.legal_fireball(s, x), A.legal_breathe(s, x)]
    else:
        cmds += [A.legal_move(s, x, free_only=True), A.legal_defeat(s, x, free_only=True)]
    cmds.append(PR.legal_turn(s, x, acting))  # Ultimatosaur's move, Charge, Roar
    for it in cmds:
        for c in it:
            yield Command(c.type, c.args, chaos)
    if A.presence_targets(s, x):
        yield A.cmd("presence", chaos)


def _as(s: State, x: int) -> State:
    return revise(s, proxy=x, mode="proxy", mctx=())


def act_options(s: State, seat: int) -> list[str]:
    if "totalcontrol" not in s.rflags or not is_chaos(s, seat) or s.active != seat:
        return []
    out = []
    for x, fac in enumerate(s.factions):
        if x != seat:
            for _ in _proxy_actions(_as(s, x), x, seat):
                out.append(fac)
                break
    return out


def do_act(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    _need_chaos(s, seat)
    fac = a["faction"]
    if fac not in act_options(s, seat):
        raise IllegalCommand("no_total_control", f"you cannot play as {fac} now (Total Control, something to do)")
    c.emit("ProxySet", {"seat": s.seat_of(fac)}, seat)
    c.mode("proxy")


_PROXY_VERBS: dict[str, Handler] = {
    "summon": A.do_summon, "move": A.do_move, "defeat": A.do_defeat, "rock": A.do_rock, "fly": A.do_fly,
    "fireball": A.do_fireball, "breathe": A.do_breathe, "presence": A.do_presence,
    "umove": PR.do_umove, "charge": PR.do_charge, "roar": PR.do_roar,
}


def _do_proxy(verb: str) -> Handler:
    def h(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
        x = c.s.proxy
        if verb == "choose":
            if a["option"] != "done":
                raise IllegalCommand("bad_option", "answer with an action of the player you play as, or `choose done`")
        else:
            _PROXY_VERBS[verb](c, x, a)
        if c.s.mode == "proxy":
            c.mode("turn")

    return h


def acting_seat(s: State, seat: int) -> int:
    """Under Total Control the prompts an impersonated action opens (Fireball's pay, Protecting
    Wings) are answered by Chaos as that player."""
    if s.proxy >= 0 and seat == s.active and s.mode in ("fireball", "wings", "ultimatosaur", "roar"):
        return s.proxy
    return seat


# --- Change of Thought and the Rite of Summoning prompts -------------------------------------------


def cot_options(s: State) -> list[str]:
    hive = s.mctx[2]
    return [f"thought:{s.geo.labels[t]}" for t in cot_thoughts(s, hive)] + ["defeat"]


def do_cot(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    opt = a["option"]
    offered(opt, cot_options(s))
    _, back, hive, by, cause, attacker = s.mctx
    if opt == "defeat":
        defeat(c, [hive], by, cause, attacker)
    else:
        t = opt.split(":")[1]
        c.emit("UnitRemoved", {"uid": s.occ[A.tile(s, t)], "at": t, "to": RESERVE, "why": "cot"}, seat)
    c.mode(back)


def hiverite_options(s: State) -> list[str]:
    return [s.geo.labels[t] for t in hive_tiles(s)]


def do_hiverite(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    opt = a["option"]
    if opt not in hiverite_options(s):
        raise IllegalCommand("bad_option", f"{opt} is not an accessible summoning tile")
    place_unit(c, in_reserve(s, seat, "hivemind"), A.tile(s, opt), "rite")
    c.mode(s.mctx[1])


def do_rise(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    """Rise Again with a Necromancer Chaos controls: the Warrior comes from the Undead reserve, flipped."""
    s = c.s
    opt = a["option"]
    offered(opt, rise_options(s))
    back, ctx = s.mctx[1], list(s.mctx[2])
    left: tuple[int, ...] = ()
    if opt != "done":
        t = A.tile(s, opt.split(":")[1])
        w = in_reserve(s, s.seat_of("undead"), "warrior")
        place_unit(c, w, t, "rise")
        if c.s.units[w].where == BOARD:
            _flip(c, w, seat, "rise")
        left = tuple(x for x in c.s.rises if x != t)
        if rise_options(c.s, left) == ["done"]:
            left = ()
    c.emit("RisesPending", {"tiles": [c.lab(x) for x in left]}, seat)
    if not left:
        c.mode(back, ctx)
        if back == "react" and react_choices(c.s) == ["done"]:
            # Put first (`do_simul`), Chaos took the tiles the waiting Undead reactions wanted.
            A.end_react(c)


SIMUL_OPTIONS = ("undead", "chaos")


def do_simul(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    """Order the two Rise Agains: the prompt of the one chosen is opened over the other's."""
    s = c.s
    opt = a["option"]
    offered(opt, SIMUL_OPTIONS)
    back, ctx = s.mctx[1], list(s.mctx[2])
    if opt == "undead":
        # The Chaos prompt waits underneath; settle opens the Undead's over it.
        c.mode("crise", [chaos_seat(s), back, ctx])
    else:
        # The Undead prompt waits underneath; open_rise opens Chaos's over it.
        c.mode("react", [False, *ctx], resume=back)


# --- the prompts' answers, for decide.py's table --------------------------------------------------

# One action with the temporarily controlled unit, or `choose done`.
PUPPET: dict[str, Handler] = {verb: _do_puppet(verb) for verb in (*_PUPPET_VERBS, "choose")}
# One action as the player Chaos plays under Total Control, or `choose done`.
PROXY: dict[str, Handler] = {verb: _do_proxy(verb) for verb in (*_PROXY_VERBS, "choose")}


def legal_turn(s: State, seat: int, acting: bool) -> Iterator[Command]:
    """Chaos's own turn commands beyond the common ones."""
    if not is_chaos(s, seat):
        return
    lab = s.geo.labels
    for uid in A.movers(s, seat):
        k = s.units[uid].kind
        at = lab[s.units[uid].tiles[0]]
        if k == "thought" and acting:
            for t in _thought_targets(s, seat, uid):
                yield A.cmd("thought", seat, **{"from": at, "target": lab[t]})
        elif k == "doppelganger":
            for t in _steal_targets(s, seat, uid):
                yield A.cmd("steal", seat, **{"from": at, "target": lab[t]})
    if acting:
        for t in _join_targets(s, seat):
            yield A.cmd("join", seat, target=lab[t])
    for fac in act_options(s, seat):
        yield A.cmd("act", seat, faction=fac)
    yield from legal_powers(s, seat)


def legal(s: State, seat: int) -> Iterator[Command]:
    m = s.mode
    if m == "puppet":
        yield from puppet_commands(s, seat)
    elif m == "proxy":
        yield from _proxy_actions(s, s.proxy, seat)
        yield A.cmd("choose", seat, option="done")
    elif m == "cot":
        for o in cot_options(s):
            yield A.cmd("choose", seat, option=o)
    elif m == "hiverite":
        for o in hiverite_options(s):
            yield A.cmd("choose", seat, option=o)
    elif m == "crise":
        for o in rise_options(s):
            yield A.cmd("choose", seat, option=o)
    elif m == "simul":
        for o in SIMUL_OPTIONS:
            yield A.cmd("choose", seat, option=o)


def has_free(s: State) -> bool:
    """Free Chaos options that keep the turn open: Steal Identity, powers, playing as another."""
    seat = s.active
    if not is_chaos(s, seat):
        return False
    acting = s.actions < action_limit(s)
    for _ in legal_turn(s, seat, acting):
        return True
    return False


def actor_faction(s: State, verb: str, a: dict[str, Any]) -> str:
    """The faction of the unit a command spends energy on (for Chaos's faction energy)."""
    lab = None
    if verb == "move":
        lab = a["path"][0]
    elif verb in ("defeat", "fly", "fireball"):
        lab = a.get("from")
    elif verb == "summon":
        return str(UNITS[a["unit"]].faction) if a["unit"] in UNITS else ""
    elif verb == "pay" and s.mode == "fireball":
        return _fac(s, s.mctx[0])
    elif verb in ("breathe", "umove"):
        kind = "wyrmling" if verb == "breathe" else "ultimatosaur"
        for uid, u in enumerate(s.units):
            if u.kind == kind and u.where == BOARD:
                return _fac(s, uid)
    if lab is None or lab not in s.geo.index:
        return ""
    v = s.occ[s.geo.index[lab]]
    return _fac(s, v) if v >= 0 else ""


def _fac(s: State, uid: int) -> str:
    o = s.units[uid].owner
    return s.factions[o] if o >= 0 else ""


def faction_energy(c: RiteEmitter, before: State, verb: str, a: dict[str, Any]) -> None:
    """Chaos gains one faction energy per energy it spends on units of enemy factions."""
    chaos = chaos_seat(before)
    if chaos < 0 or before.active != chaos or verb == "join":
        return
    spent = sum(
        e.data["round"] + e.data["reserve"] for e in c.events
        if e.type == "rite.EnergySpent" and e.data["seat"] == chaos
    )
    if spent > 0 and actor_faction(before, verb, a) not in ("", "chaos"):
        c.gain(chaos, spent)
