"""Commands to events: check against the legal lists, resolve combat, run the automatic steps.

The platform (rules.decider) has already checked that the game is not over, that the seat is
the prompted one, that the command type answers the prompt (legal.ANSWERS) and the command's
shape: the handlers here check only the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from rules.core import Command, Decision, IllegalCommand, Rng
from rules.factions import legal as L
from rules.factions import refusals as R
from rules.factions.board import parse_space, space_name
from rules.factions.content import Power
from rules.factions.evolve import evolve
from rules.factions.state import BASE, State, Unit
from rules.kit import Emitter

# The kit's context for one command: each event is folded into `log.s` as it is emitted, so later
# checks in the same command see its effect.
Log: TypeAlias = Emitter[State]


def decide(s: State, c: Command, rng: Rng) -> Decision:
    assert c.seat is not None  # the platform refuses a command without a seat
    log = Emitter("factions.", evolve, s, rng)
    _HANDLERS[c.type](log, c, c.seat)
    _advance(log)
    return log.decision()


def _over(log: Log) -> bool:
    return log.s.phase == "over"


def _check(c: Command, options: list[Command], code: str, message: str) -> None:
    if c not in options:
        raise IllegalCommand(code, message)


def _choose(log: Log, c: Command, seat: int) -> None:
    if c.args["advantage"] not in L.advantage_options(log.s):
        raise IllegalCommand("bad_advantage", f"{c.args['advantage']} is not on offer")
    log.emit("AdvantageChosen", {"seat": seat, "advantage": c.args["advantage"]}, seat)


def _tile(log: Log, c: Command, seat: int) -> None:
    if dict(c.args) not in L.tile_options(log.s, seat):
        raise IllegalCommand("illegal_tile", "that tile cannot go there (used, taken spot, or water on a base camp spot)")
    log.emit("TilePlaced", {"seat": seat, **c.args}, seat)


def _center(log: Log, c: Command, seat: int) -> None:
    placed = L.center_placements(log.s, c.args["kind"], c.args["space"])
    if placed is None:
        raise IllegalCommand("illegal_center", "that Resource Center placement breaks the placement rules")
    log.emit("CentersPlaced", {"seat": seat, "placed": [{"kind": k, "space": sp} for k, sp in placed]}, seat)


def _aside(log: Log, c: Command, seat: int) -> None:
    if c.args["unit"] not in log.s.pool[seat]:
        raise IllegalCommand("unknown_unit", f"{c.args['unit']} is not in your Warband")
    log.emit("UnitSetAside", {"seat": seat, "unit": c.args["unit"]}, seat)


def _recruit(log: Log, c: Command, seat: int) -> None:
    s = log.s
    code = c.args["unit"]
    if code not in s.pool[seat]:
        raise IllegalCommand("unknown_unit", f"{code} is not an unrecruited unit of your Warband")
    if s.card_of(seat, code).cost > s.gold[seat]:
        raise IllegalCommand("not_enough_gold", f"{code} costs more gold than you have")
    if s.pk == "turn" and s.stage != "main":
        raise IllegalCommand("not_now", "recruit before an activation only in Step 1")
    if s.pk == "turn" and L.one_recruit_made(s, seat):
        raise IllegalCommand("one_recruit", R.one_recruit(s, seat))
    log.emit("UnitRecruited", {"seat": seat, "unit": code, "cost": s.card_of(seat, code).cost}, seat)


def _done(log: Log, c: Command, seat: int) -> None:
    if log.s.pk == "draft" and log.s.spent[seat] < 5:
        raise IllegalCommand("vanguard_too_small", "spend at least 5 gold on your Vanguard")
    log.emit("RecruitingDone", {"seat": seat}, seat)


def _activate(log: Log, c: Command, seat: int) -> None:
    if c not in L.turn_options(log.s, seat):
        raise IllegalCommand("not_in_rank_order", R.not_activatable(log.s, seat, c.args["unit"]))
    log.emit("UnitActivated", {"seat": seat, "unit": f"{seat}:{c.args['unit']}"}, seat)


def _command(log: Log, c: Command, seat: int) -> None:
    if c not in L.turn_options(log.s, seat):
        raise IllegalCommand("illegal_command", R.not_commandable(log.s, seat, c.args["captain"], c.args["unit"]))
    log.emit("CaptainCommanded", {"seat": seat, "captain": f"{seat}:{c.args['captain']}",
                                 "unit": f"{seat}:{c.args['unit']}"}, seat)


def _active(log: Log) -> Unit:
    assert log.s.active is not None
    return log.s.units[log.s.active]


def _end(log: Log, u: Unit) -> None:
    if not _over(log):
        log.emit("ActivationEnded", {"seat": u.seat, "unit": u.key}, u.seat)


def _step(log: Log, c: Command, seat: int) -> None:
    s = log.s
    geo = s.geo
    assert geo is not None
    u = _active(log)
    opts = L.entry_steps(s, geo, u) if u.pos == BASE else (L.move_steps(s, geo, u) if s.moves_left > 0 else [])
    if dict(c.args) not in opts:
        raise IllegalCommand("illegal_step", R.bad_step(s, geo, u, c))
    frm = "base" if u.pos == BASE else space_name(u.pos, geo.width)
    log.emit("UnitMoved", {"seat": seat, "unit": u.key, "from": frm, **c.args}, seat)
    to = parse_space(c.args["to"], geo.width, geo.height)
    assert to is not None
    if not u.flying:
        _claim(log, seat, to)
        if geo.terrain[to] == "W":
            _end(log, u)  # water ends the activation of a unit on the ground


def _claim(log: Log, seat: int, pos: int) -> None:
    geo = log.s.geo
    assert geo is not None
    for p, _, owner in log.s.centers:
        if p == pos and owner != seat:
            # Capturing a claimed center pays +2 at once; a first claim pays at Step 4.
            bonus = 2 if owner >= 0 else 0
            log.emit("CenterClaimed", {"seat": seat, "space": space_name(pos, geo.width), "from": owner,
                                      "bonus": bonus}, seat)


def _fly(log: Log, c: Command, seat: int) -> None:
    _check(c, L.activation_options(log.s, seat), "cannot_fly", R.bad_mode(log.s, _active(log), "fly"))
    log.emit("TookOff", {"seat": seat, "unit": _active(log).key}, seat)


def _land(log: Log, c: Command, seat: int) -> None:
    _check(c, L.activation_options(log.s, seat), "cannot_land", R.bad_mode(log.s, _active(log), "land"))
    u = _active(log)
    log.emit("Landed", {"seat": seat, "unit": u.key}, seat)
    geo = log.s.geo
    assert geo is not None
    _claim(log, seat, u.pos)
    if geo.terrain[u.pos] == "W":
        _end(log, u)


def _target(log: Log, c: Command) -> Unit:
    geo = log.s.geo
    assert geo is not None
    pos = parse_space(c.args["target"], geo.width, geo.height)
    if pos is None or pos not in log.s.occ:
        raise IllegalCommand("no_target", f"no unit on {c.args['target']}")
    return log.s.units[log.s.occ[pos]]


def _attack(log: Log, c: Command, seat: int) -> None:
    s = log.s
    geo = s.geo
    assert geo is not None
    u = _active(log)
    t = _target(log, c)
    if t.pos not in L.melee_targets(s, geo, u):
        raise IllegalCommand("illegal_target", R.bad_attack(s, geo, u, t))
    _strike(log, u, t, _attack_value(s, u), "melee", None)
    _end(log, u)


def _shoot(log: Log, c: Command, seat: int) -> None:
    s = log.s
    geo = s.geo
    assert geo is not None
    u = _active(log)
    if s.card(u).range < 2:
        raise IllegalCommand("not_ranged", R.not_ranged(s, u))
    t = _target(log, c)
    if t.pos not in L.shoot_targets(s, geo, u):
        raise IllegalCommand("illegal_target", R.bad_shot(s, geo, u, t))
    _strike(log, u, t, _attack_value(s, u), "range", None)
    _end(log, u)


def _attack_value(s: State, u: Unit) -> int:
    return max(0, s.card(u).attack + u.atk_boost - u.weak)


def _evade(s: State, t: Unit, kind: str) -> int:
    """The die result at or under which a non-melee attack misses (Evade; Aerial: Evade 3 vs range)."""
    ev = s.card(t).evade
    # "Aerial Units have an automatic Evade 3 against ranged attacks" (Helpful Terms, EVADE): the
    # unit's attribute, flying or landed (rules version 2; version 1 read it only while flying).
    if kind == "range" and (t.flying or (s.rules >= 2 and s.card(t).aerial)):
        ev = max(ev, 3)
    return 0 if kind == "melee" else ev


def _strike(log: Log, u: Unit, t: Unit, amount: int, kind: str, power: str | None) -> bool:
    """One hit on one target; returns True when it landed."""
    s = log.s
    ev = _evade(s, t, kind)
    roll = log.rng.randint(1, 6) if ev > 0 else None
    hit = roll is None or roll > ev
    log.emit("AttackMade", {"seat": u.seat, "unit": u.key, "target": t.key, "kind": kind, "power": power,
                           "roll": roll, "hit": hit}, u.seat)
    if hit and amount > 0:
        _damage(log, u.seat, t, amount)
    return hit


def _damage(log: Log, by: int, t: Unit, amount: int) -> None:
    s = log.s
    card = s.card(t)
    if t.hp_boost:
        amount -= 1  # the Heart token soaks one point and goes
    total = t.damage + max(0, amount)
    if total >= card.health:
        log.emit("UnitEliminated", {"unit": t.key, "by": by, "vp": card.cost}, by)
        if log.s.vp[by] >= log.s.layout.target:
            log.emit("GameWon", {"winners": [by], "reason": f"reached {log.s.layout.target} victory points"})
    else:
        log.emit("UnitDamaged", {"unit": t.key, "amount": amount, "damage": total}, by)


def _use(log: Log, c: Command, seat: int) -> None:
    s = log.s
    geo = s.geo
    assert geo is not None
    u = _active(log)
    p = s.card(u).power(c.args["power"])
    if p is None:
        raise IllegalCommand("unknown_power", f"this unit has no spell or ability {c.args['power']}")
    if p.kind == "spell" and s.mana[seat] < p.mana:
        raise IllegalCommand("not_enough_mana", f"{p.name} needs {p.mana} mana")
    t = _target(log, c)
    if t.pos not in L.power_targets(s, geo, u, p):
        raise IllegalCommand("illegal_target", R.bad_power(s, geo, u, t, p))
    log.emit("PowerUsed", {"seat": seat, "unit": u.key, "power": p.code, "mana": p.mana if p.kind == "spell" else 0,
                          "target": c.args["target"]}, seat)
    _resolve(log, u, t, p)
    _end(log, u)


def _affected(log: Log, u: Unit, t: Unit, p: Power) -> list[Unit]:
    s = log.s
    geo = s.geo
    assert geo is not None
    if p.area is None:
        return [t]
    w = geo.width
    out = []
    for v in s.units.values():
        # No friendly fire: area effects skip allies, and units the power could not target.
        if v.pos < 0 or v.seat == u.seat or not L.reaches(s, u, v, p):
            continue
        if (p.area == "row" and v.pos // w == t.pos // w) or (p.area == "tile" and geo.spot[v.pos] == geo.spot[t.pos]):
            out.append(v)
    return sorted(out, key=lambda v: v.pos)


def _resolve(log: Log, u: Unit, t: Unit, p: Power) -> None:
    kind = p.kind
    if p.effect == "heal":
        log.emit("UnitHealed", {"unit": t.key, "amount": p.amount, "damage": max(0, t.damage - p.amount)}, u.seat)
        return
    if p.effect in ("boost_attack", "boost_health"):
        log.emit("UnitBoosted", {"unit": t.key, "stat": p.effect[6:]}, u.seat)
        return
    for v in _affected(log, u, t, p):
        if _over(log):
            return
        v2 = log.s.units.get(v.key)
        if v2 is None:
            continue
        amount = p.amount if p.effect == "damage" else 0
        hit = _strike(log, u, v2, amount, kind, p.code)
        if not hit:
            continue
        v3 = log.s.units.get(v.key)
        if v3 is None:
            continue
        if p.effect == "weaken":
            log.emit("UnitWeakened", {"unit": v3.key}, u.seat)
        elif p.effect == "push":
            _push(log, u, v3)


def _push(log: Log, u: Unit, t: Unit) -> None:
    geo = log.s.geo
    assert geo is not None
    w = geo.width
    ux, uy, tx, ty = u.pos % w, u.pos // w, t.pos % w, t.pos // w
    nx, ny = tx + (tx > ux) - (tx < ux), ty + (ty > uy) - (ty < uy)
    if 0 <= nx < w and 0 <= ny < geo.height and ny * w + nx not in log.s.occ:
        log.emit("UnitPushed", {"unit": t.key, "from": space_name(t.pos, w), "to": space_name(ny * w + nx, w)},
                u.seat)


def _end_cmd(log: Log, c: Command, seat: int) -> None:
    _check(c, L.activation_options(log.s, seat), "must_enter", R.must_enter(log.s, _active(log)))
    _end(log, _active(log))


def _advance(log: Log) -> None:
    """Run the steps nobody chooses: round start, resource counting, the two-empty-phases loss."""
    while not _over(log):
        s = log.s
        if s.phase == "draft" and not s.pk:
            log.emit("RoundStarted", {"round": 1})
        elif s.phase == "play" and s.rolloff:
            log.emit("RankTieRolled", _roll_off(s, log.rng))
        elif s.phase == "play" and s.stage == "upkeep":
            _upkeep(log)
        else:
            return


def _roll_off(s: State, rng: Rng) -> dict[str, Any]:
    """Rank Ties (3-4 players): "players roll a six-sided die. The highest numbered roll wins the
    tiebreaker"; seats that tie on the highest roll again, each roll recorded."""
    seats = list(s.rolloff)
    rolls: dict[int, list[int]] = {seat: [] for seat in seats}
    while len(seats) > 1:
        for seat in seats:
            rolls[seat].append(rng.randint(1, 6))
        top = max(rolls[seat][-1] for seat in seats)
        seats = [seat for seat in seats if rolls[seat][-1] == top]
    return {"rank": s.level, "seats": list(s.rolloff), "rolls": [rolls[seat] for seat in s.rolloff],
            "winner": seats[0]}


def _upkeep(log: Log) -> None:
    s = log.s
    gains = []
    empty = []
    for seat in range(s.n):
        if seat in s.out:
            gains.append([0, 0])
            empty.append(s.empty_phases[seat])
            continue
        gold, mana = 1, 0  # +1 gold as the General
        for k in s.home_start:
            u = s.units.get(k)
            if u is not None and u.seat == seat:
                if s.card(u).makes == "gold":
                    gold += 1
                else:
                    mana += 1
        for _, kind, owner in s.centers:
            if owner == seat:
                if kind == "gold":
                    gold += 2
                else:
                    mana += 2
        gains.append([gold, mana])
        on_board = any(u.seat == seat and u.pos >= 0 for u in s.units.values())
        empty.append(0 if on_board else s.empty_phases[seat] + 1)
    log.emit("ResourcesCounted", {"gains": gains, "empty": empty})
    for seat in range(s.n):
        if seat not in s.out and empty[seat] >= 2:
            log.emit("SeatLost", {"seat": seat, "reason": "no units on the Battleground for 2 Reinforcement Phases"})
    alive = [seat for seat in range(s.n) if seat not in log.s.out]
    if len(alive) == 1:
        log.emit("GameWon", {"winners": alive, "reason": "every other General lost the Battleground"})
        return
    if not alive:
        # Everyone left lost at once: the most Victory Points wins (RULINGS.md).
        last = [seat for seat in range(s.n) if seat not in s.out]
        top = max(log.s.vp[seat] for seat in last)
        log.emit("GameWon", {"winners": [seat for seat in last if log.s.vp[seat] == top],
                            "reason": "every General lost the Battleground; most victory points"})
        return
    log.emit("RoundStarted", {"round": s.round + 1})


# Each command type's handler (which prompt a type answers is legal.ANSWERS).
_HANDLERS: dict[str, Callable[[Log, Command, int], None]] = {
    "factions.choose": _choose,
    "factions.tile": _tile,
    "factions.center": _center,
    "factions.aside": _aside,
    "factions.recruit": _recruit,
    "factions.done": _done,
    "factions.activate": _activate,
    "factions.command": _command,
    "factions.step": _step,
    "factions.fly": _fly,
    "factions.land": _land,
    "factions.attack": _attack,
    "factions.shoot": _shoot,
    "factions.use": _use,
    "factions.end": _end_cmd,
}
