"""Moving units: taking units for an exploration, territory effects, rewards."""

from __future__ import annotations

from rules.core import Command
from rules.dragondale.bright import entered
from rules.dragondale.choices import (
    answer,
    option,
    option_of,
    pay_answers,
)
from rules.dragondale.flow import Flow, Task
from rules.dragondale.queries import (
    board,
    enemies_at,
    other_tunnels,
    units_at,
)
from rules.dragondale.state import DRAGON, State


def step_move(e: Flow, t: Task) -> bool:
    s = e.s
    seat = t["seat"]
    b = board(s)
    legs = t["legs"]
    moving = {u for leg in legs for u in leg["units"]}
    srcs = sorted({leg["from"] for leg in legs})
    if t["stage"] == "companion":
        for src in srcs:
            if b.terr[src].kind == "tunnel" and src not in t["done"]:
                t["cur"] = src
                opts = _companion_opts(s, seat, src, moving)
                if not opts:
                    t["done"].append(src)
                    continue
                return e.ask([seat], t | {"k": "companion"}, {"from": src})
        t["stage"], t["done"] = "marsh", []
    if t["stage"] == "marsh":
        for src in srcs:
            if b.terr[src].kind == "marsh" and src not in t["done"]:
                t["cur"] = src
                if not _marsh_cmds(s, seat):
                    # forced to leave but cannot pay: the units are discarded instead
                    t["done"].append(src)
                    lost = [u for leg in legs if leg["from"] == src for u in leg["units"]]
                    e.dispel(seat, lost)
                    for leg in legs:
                        if leg["from"] == src:
                            leg["units"] = []
                    continue
                return e.ask([seat], t, {"from": src})
        t["stage"] = "go"
    e.stack.pop()
    legs = [leg for leg in legs if leg["units"]]
    if not legs:
        return False
    dests = {leg["to"] for leg in legs}
    before = {u.loc for u in s.tribes[seat].units if u.loc}
    comp = t.get("tunnels", [])
    fresh = sorted({d for d in dests if d not in before} | {tn for tn, new in comp if new})
    moves = [[u, leg["from"], leg["to"]] for leg in legs for u in leg["units"]]
    e.emit("UnitsMoved", {"moves": moves}, seat)
    hide = [m[0] for m in moves if t["hide"] or b.terr[m[1]].kind == "fog"
            or m[2] == s.tribes[seat].camp]
    e.hide(seat, hide)
    for d in sorted(dests):
        e.pickup(seat, d)
    pairs = []
    # forced moves (stances, Fury cards) and a bright-border card's move aside go only into
    # free territories, so they meet nobody
    if t["kind"] not in ("forced", "aside"):
        for d in sorted(dests | {tn for tn, _ in comp}):
            if not any(u.loc == d for u in e.s.tribes[seat].units):
                continue
            if e.s.dragon == d:
                pairs.append([d, seat, DRAGON])
            pairs += [[d, seat, x] for x in enemies_at(e.s, seat, d)]
    if pairs:
        e.push({"k": "encounters", "pairs": pairs})
    if pairs and s.rules > 2:
        # a bright-border card's moment: its holder answers before the encounters
        e.push(*entered(e, seat, pairs))
    # rewards come before encounters, so they go on top of the stack
    e.push(*[{"k": "reward", "seat": seat, "terr": d} for d in fresh if b.terr[d].reward])
    return False


def _companion_opts(s: State, seat: int, src: str, moving: set[str]) -> list[str]:
    stay = [u.id for u in units_at(s, seat, src) if u.id not in moving]
    return [f"comp:{u}:{tn}" for u in stay for tn in other_tunnels(s, src)]


def legal_companion(s: State, t: Task, seat: int) -> list[Command]:
    moving = {u for leg in t["legs"] for u in leg["units"]}
    return [option(seat, o) for o in _companion_opts(s, seat, t["cur"], moving)]


def handle_companion(e: Flow, t: Task, cmd: Command) -> None:
    _, unit, tunnel = option_of(cmd).split(":")
    seat = t["seat"]
    # the companion's tunnel is entered like any other: a reward if the tribe was not there
    # yet, and an encounter with whoever is there once the whole movement is done
    fresh = not units_at(e.s, seat, tunnel)
    e.emit("UnitsMoved", {"moves": [[unit, t["cur"], tunnel]]}, seat)
    e.pickup(seat, tunnel)
    t.setdefault("tunnels", []).append([tunnel, fresh])
    t["done"].append(t["cur"])


def _marsh_cmds(s: State, seat: int) -> list[Command]:
    return pay_answers(s, seat) + [answer(seat, "discard", card=c) for c in sorted(set(s.tribes[seat].hand))]


def legal_move(s: State, t: Task, seat: int) -> list[Command]:
    return _marsh_cmds(s, seat)


def handle_move(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    if cmd.type.endswith("pay"):
        e.pay_tokens(seat, list(cmd.args["tokens"]))
    else:
        e.discard(seat, cmd.args["card"])
    t["done"].append(t["cur"])


def step_reward(e: Flow, t: Task) -> bool:
    return e.ask([t["seat"]], t, {"territory": t["terr"]})


def legal_reward(s: State, t: Task, seat: int) -> list[Command]:
    out = [option(seat, "reward:boost")]
    if s.bag:
        out.append(option(seat, "reward:insight"))
    out += [option(seat, f"reward:tree:{x.id}") for x in s.trees if x.state == "unaltered"]
    if s.dragon is not None:
        out.append(option(seat, "reward:dragon"))
    return out


def handle_reward(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    e.stack.pop()
    parts = option_of(cmd).split(":")
    if parts[1] == "boost":
        e.boost(seat)
    elif parts[1] == "insight":
        e.draw_insight(seat)
    elif parts[1] == "tree":
        tree = next(x for x in e.s.trees if x.id == parts[2])
        e.emit("TreeChecked", {"tree": tree.id, "secret": {"under": tree.under}}, seat)
    else:
        if not e.s.mdeck:
            e.mshuffle()
        e.emit("DragonPeeked", {"secret": {"card": e.s.mdeck[0]}}, seat)
