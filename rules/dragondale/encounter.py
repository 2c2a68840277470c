"""Encounters: order, acting units, insight, initiative and the two effects."""

from __future__ import annotations

from typing import Any

from rules.core import Command
from rules.dragondale.choices import (
    answer,
    option,
    option_of,
    pay_answers,
)
from rules.dragondale.content import (
    FURY_CARDS,
    LOW,
    STANCES,
)
from rules.dragondale.flow import Flow, Task
from rules.dragondale.queries import (
    conquered_runes,
    dominance_rank,
    might,
    units_at,
)
from rules.dragondale.state import DRAGON, State


def _present(s: State, terr: str, side: int) -> bool:
    return s.dragon == terr if side == DRAGON else any(u.loc == terr for u in s.tribes[side].units)


def _open_pairs(s: State, pairs: list[list[Any]]) -> list[list[Any]]:
    live = [p for p in pairs if _present(s, p[0], p[1]) and _present(s, p[0], p[2])]
    dragon_terrs = {p[0] for p in live if DRAGON in (p[1], p[2])}
    return [p for p in live if DRAGON in (p[1], p[2]) or p[0] not in dragon_terrs]


def _side_name(s: State, side: int) -> str:
    return "dragon" if side == DRAGON else s.tribes[side].name


def step_encounters(e: Flow, t: Task) -> bool:
    t["pairs"] = [p for p in t["pairs"] if _present(e.s, p[0], p[1]) and _present(e.s, p[0], p[2])]
    if not t["pairs"]:
        e.stack.pop()
        return False
    return e.ask([e.turn], t)


def legal_encounters(s: State, t: Task, seat: int) -> list[Command]:
    out = []
    for p in _open_pairs(s, t["pairs"]):
        out.append(option(seat, f"enc:{p[0]}:{_side_name(s, p[1])}:{_side_name(s, p[2])}"))
    return out


def handle_encounters(e: Flow, t: Task, cmd: Command) -> None:
    _, terr, a, b = option_of(cmd).split(":")
    pick = next(p for p in t["pairs"] if p[0] == terr and _side_name(e.s, p[1]) == a and _side_name(e.s, p[2]) == b)
    t["pairs"].remove(pick)
    e.push({"k": "enc", "terr": terr, "x": pick[1], "y": pick[2], "stage": "begin"})


def _roles(e: Flow, x: int, y: int) -> tuple[list[int], int | None]:
    """Tribe sides in deciding order (passive first) and the active side, if any."""
    sides = [v for v in (x, y) if v != DRAGON]
    active = e.turn if e.turn in sides else None
    passive = [v for v in sides if v != active]
    return (passive + ([active] if active is not None else [])), active


def step_enc(e: Flow, t: Task) -> bool:
    s = e.s
    terr, x, y = t["terr"], t["x"], t["y"]
    order, active = _roles(e, x, y)
    if t["stage"] == "begin":
        if not (_present(s, terr, x) and _present(s, terr, y)):
            e.stack.pop()
            return False
        e.emit("EncounterStarted", {"territory": terr, "sides": [_side_name(s, x), _side_name(s, y)]})
        for side in order:
            e.reveal_units(side, [u.id for u in units_at(e.s, side, terr)])
        e.ctl["enc"] = {"terr": terr, "x": x, "y": y, "unit": {}, "paid": {}, "ended": False}
        t["stage"] = "unit"
    enc = e.ctl["enc"]
    if t["stage"] == "unit":
        for side in order:
            if str(side) not in enc["unit"]:
                t["side"] = side
                return e.ask([side], t | {"k": "enc_unit"}, {"territory": terr})
        for side in order:
            card = e.s.tribes[side].stance(enc["unit"][str(side)])
            e.emit("StanceRevealed", {"unit": enc["unit"][str(side)], "card": card}, side)
        if DRAGON in (x, y):
            tribe = y if x == DRAGON else x
            lv = e.s.tribes[tribe].fury
            if not e.s.fury_cards[lv - LOW][1]:
                e.emit("FuryCardRevealed", {"level": lv, "card": e.s.fury_cards[lv - LOW][0]})
        t["stage"] = "pay"
    if t["stage"] == "pay":
        for side in order:
            if str(side) not in enc["paid"]:
                if not e.s.tribes[side].tokens:
                    enc["paid"][str(side)] = False
                    continue
                t["side"] = side
                return e.ask([side], t | {"k": "enc_pay"}, {"territory": terr})
        _initiative(e, t, active)
        t["stage"] = "first"
    if t["stage"] == "first":
        t["stage"] = "second"
        _push_effects(e, enc, enc["first"])
        return False
    if t["stage"] == "second":
        t["stage"] = "end"
        first, second = enc["first"], enc["second"]
        if not enc["ended"] and _present(e.s, terr, first) and _lower_present(e, enc, second):
            _push_effects(e, enc, second)
            return False
    for side in order:
        if e.s.tribes[side].staked:
            e.emit("StakePaid", {}, side)
    e.emit("EncounterEnded", {"territory": terr})
    e.ctl["enc"] = None
    e.stack.pop()
    return False


def _lower_present(e: Flow, enc: dict[str, Any], side: int) -> bool:
    if side == DRAGON:
        return e.s.dragon == enc["terr"]
    utype = enc["unit"][str(side)]
    return any(u.loc == enc["terr"] and u.type == utype for u in e.s.tribes[side].units)


def _initiative(e: Flow, t: Task, active: int | None) -> None:
    s = e.s
    enc = e.ctl["enc"]
    init: dict[str, int] = {}
    for side in (enc["x"], enc["y"]):
        if side == DRAGON:
            tribe = enc["y"] if enc["x"] == DRAGON else enc["x"]
            lv = s.tribes[tribe].fury
            card = FURY_CARDS[s.fury_cards[lv - LOW][0]]
            mod = card["mod"]
            bonus = conquered_runes(s) if mod == "runes" else (mod or 0)
            init[str(side)] = lv + bonus
            continue
        tr = s.tribes[side]
        st = STANCES[tr.stance(enc["unit"][str(side)])]
        k = 0 if side == active else 1
        val = st["init"][k]
        if tr.staked:
            tok = tr.staked[0]
            if tok.hidden:
                e.emit("StakeRevealed", {"type": tok.type}, side)
            if tok.type == st["insight"][k]:
                val += might(s, tr.fury, tok.type) if st["might"][k] else 2
            else:
                val += 1
        init[str(side)] = val
    x, y = enc["x"], enc["y"]
    ix, iy = init[str(x)], init[str(y)]
    if ix != iy:
        first = x if ix > iy else y
    else:
        first = x if dominance_rank(s, x) < dominance_rank(s, y) else y
    enc["first"], enc["second"] = first, (y if first == x else x)
    e.emit("InitiativeDetermined", {"territory": enc["terr"], "initiative": {
        _side_name(s, int(k)): v for k, v in init.items()}, "first": _side_name(s, first)})


def _push_effects(e: Flow, enc: dict[str, Any], side: int) -> None:
    if side == DRAGON:
        tribe = enc["y"] if enc["x"] == DRAGON else enc["x"]
        lv = e.s.tribes[tribe].fury
        card = FURY_CARDS[e.s.fury_cards[lv - LOW][0]]
        e.push({"k": "eff", "seat": tribe, "list": card["effects"], "i": 0,
                "ctx": {"terr": enc["terr"], "opp": DRAGON, "fury": True}})
    else:
        opp = enc["y"] if enc["x"] == side else enc["x"]
        st = STANCES[e.s.tribes[side].stance(enc["unit"][str(side)])]
        e.push({"k": "eff", "seat": side, "list": st["effects"], "i": 0,
                "ctx": {"terr": enc["terr"], "opp": opp}})


def legal_enc_unit(s: State, t: Task, seat: int) -> list[Command]:
    types = sorted({u.type for u in units_at(s, seat, t["terr"])})
    return [option(seat, f"unit:{ty}") for ty in types]


def handle_enc_unit(e: Flow, t: Task, cmd: Command) -> None:
    e.ctl["enc"]["unit"][str(cmd.seat)] = option_of(cmd).split(":")[1]


def legal_enc_pay(s: State, t: Task, seat: int) -> list[Command]:
    return [answer(seat, "skip"), *pay_answers(s, seat)]


def handle_enc_pay(e: Flow, t: Task, cmd: Command) -> None:
    assert cmd.seat is not None
    e.ctl["enc"]["paid"][str(cmd.seat)] = cmd.type.endswith("pay")
    if cmd.type.endswith("pay"):
        i = cmd.args["tokens"][0]
        tok = e.s.tribes[cmd.seat].tokens[i]
        e.emit("InsightCommitted", {"index": i, "type": None if tok.hidden else tok.type,
                                    "secret": {"type": tok.type}}, cmd.seat)
