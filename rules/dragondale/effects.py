"""Stance, Fury and card effects, and the small prompts they raise."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

from rules.core import Command
from rules.dragondale.choices import (
    answer,
    hidden_tokens,
    option,
    option_of,
    pay_answers,
)
from rules.dragondale.content import (
    TRIBES,
    UNDERSIDES,
)
from rules.dragondale.flow import Flow, Task
from rules.dragondale.queries import (
    board,
    can_enter,
    enemies_at,
    forced_options,
    free_for,
    other_tunnels,
    token_combos,
    units_at,
)
from rules.dragondale.state import DRAGON, State
from rules.dragondale.turn import empower, empower_answers, explore_answers, start_explore


def step_eff(e: Flow, t: Task) -> bool:
    if t["i"] >= len(t["list"]):
        e.stack.pop()
        return False
    eff = t["list"][t["i"]]
    t["i"] += 1
    EFFECTS[eff["do"]](e, t, eff)
    return False


def _ctx_units(e: Flow, seat: int, t: Task) -> list[str]:
    return [u.id for u in units_at(e.s, seat, t["ctx"]["terr"])]


def eff_dispel_enemy(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    seat, opp, terr = t["seat"], t["ctx"]["opp"], t["ctx"]["terr"]
    if opp == DRAGON:
        if eff.get("dragon") and e.s.dragon == terr:
            e.dispel_dragon(seat)
        return
    n = eff["n"]
    if "per" in eff:
        n *= sum(1 for u in units_at(e.s, seat, terr) if u.type == eff["per"])
    _dispel_n(e, seat, opp, terr, n)


def _dispel_n(e: Flow, chooser: int, victim: int, terr: str, n: int) -> None:
    units = [u.id for u in units_at(e.s, victim, terr)]
    if n <= 0 or not units:
        return
    if len(units) <= n:
        e.dispel(victim, units)
    else:
        e.push({"k": "pick", "seat": chooser, "victim": victim, "terr": terr, "n": n})


def eff_dispel_own(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    _dispel_n(e, t["seat"], t["seat"], t["ctx"]["terr"], eff["n"])


def eff_dispel_dragon(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if t["ctx"].get("opp") == DRAGON and e.s.dragon == t["ctx"]["terr"]:
        e.dispel_dragon(t["seat"])


def eff_enemy_to_camp(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    opp = t["ctx"]["opp"]
    if opp != DRAGON:
        e.to_camp(opp, [u.id for u in units_at(e.s, opp, t["ctx"]["terr"])])


def eff_own_to_camp(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.to_camp(t["seat"], _ctx_units(e, t["seat"], t))


def eff_move_own(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if forced_options(e.s, t["seat"], t["ctx"]["terr"], eff["max"]):
        e.push({"k": "fmove", "seat": t["seat"], "terr": t["ctx"]["terr"], "max": eff["max"],
                "hide": eff.get("hide", False)})


def eff_hide_own(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.hide(t["seat"], _ctx_units(e, t["seat"], t))


def eff_hide_all(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    seat = t["seat"]
    e.hide(seat, [u.id for u in e.s.tribes[seat].units if u.loc and not enemies_at(e.s, seat, u.loc)])


def eff_boost(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    for _ in range(eff.get("n", 1)):
        e.boost(t["seat"])


def eff_gain_insight(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    for _ in range(eff.get("n", 1)):
        e.draw_insight(t["seat"])


def eff_fury_up(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.fury_step(t["seat"], 1)


def eff_fury_down(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.fury_step(t["seat"], -1)


def eff_dominance(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.tribe_up(t["seat"])


def eff_end_encounter(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if e.ctl.get("enc") is not None and t["ctx"].get("terr"):
        e.ctl["enc"]["ended"] = True
        t["i"] = len(t["list"])


def eff_lose_insight(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if e.s.tribes[t["seat"]].tokens:
        e.push({"k": "lose", "seat": t["seat"]})


def eff_reveal_all_insight(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    seat = t["seat"]
    for i, tok in enumerate(e.s.tribes[seat].tokens):
        if tok.hidden:
            e.emit("InsightRevealed", {"index": i, "type": tok.type}, seat)


def eff_move_unit(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if t["ctx"].get("aside"):
        e.push({"k": "cmove", "seat": t["seat"], "aside": True})
    else:
        e.push({"k": "cmove", "seat": t["seat"]})


def eff_explore(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.push({"k": "cexplore", "seat": t["seat"]})


def eff_empower(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if e.s.tribes[t["seat"]].library:
        e.push({"k": "cempower", "seat": t["seat"]})
    else:
        _abandon_card(e)


def eff_dragon_move(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.dragon_go()


def eff_dragon_reach(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    seat = t["seat"]
    if e.s.dragon is None:
        return
    if eff.get("intro"):
        e.push({"k": "reach", "seat": seat})
        return
    dest = e.dragon_dest()
    if dest is not None and any(u.loc == dest for u in e.s.tribes[seat].units):
        e.dragon_into(dest)


def eff_alter_tree(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.push({"k": "tree", "seat": t["seat"], "intro": bool(eff.get("intro")), "stage": "pick"})


def eff_check_tree(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if any(x.state == "unaltered" for x in e.s.trees):
        e.push({"k": "check", "seat": t["seat"]})
    else:
        _abandon_card(e)


def eff_peek_dragon(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if not e.s.mdeck:
        e.mshuffle()
    e.emit("DragonPeeked", {"secret": {"card": e.s.mdeck[0]}}, t["seat"])


def eff_return_unit(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    if any(u.loc is None for u in e.s.tribes[t["seat"]].units):
        e.push({"k": "ret", "seat": t["seat"]})
    else:
        _abandon_card(e)


def eff_may(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.push({"k": "may", "seat": t["seat"], "cost": eff["cost"], "then": eff["then"], "ctx": t["ctx"]})


def eff_choose(e: Flow, t: Task, eff: dict[str, Any]) -> None:
    e.push({"k": "opt", "seat": t["seat"], "options": eff["options"], "ctx": t["ctx"]})


# what each effect named in the content (`{"do": name, ...}`) does; content.EFFECTS lists the names
EFFECTS: dict[str, Callable[[Flow, Task, dict[str, Any]], None]] = {
    "dispel_enemy": eff_dispel_enemy,
    "dispel_own": eff_dispel_own,
    "dispel_dragon": eff_dispel_dragon,
    "enemy_to_camp": eff_enemy_to_camp,
    "own_to_camp": eff_own_to_camp,
    "move_own": eff_move_own,
    "hide_own": eff_hide_own,
    "hide_all": eff_hide_all,
    "boost": eff_boost,
    "gain_insight": eff_gain_insight,
    "fury_up": eff_fury_up,
    "fury_down": eff_fury_down,
    "dominance": eff_dominance,
    "end_encounter": eff_end_encounter,
    "lose_insight": eff_lose_insight,
    "reveal_all_insight": eff_reveal_all_insight,
    "move_unit": eff_move_unit,
    "explore": eff_explore,
    "empower": eff_empower,
    "dragon_move": eff_dragon_move,
    "dragon_reach": eff_dragon_reach,
    "alter_tree": eff_alter_tree,
    "check_tree": eff_check_tree,
    "peek_dragon": eff_peek_dragon,
    "return_unit": eff_return_unit,
    "may": eff_may,
    "choose": eff_choose,
}


def ask_seat(e: Flow, t: Task) -> bool:
    return e.ask([t["seat"]], t)


def legal_pick(s: State, t: Task, seat: int) -> list[Command]:
    types = sorted(u.type for u in units_at(s, t["victim"], t["terr"]))
    combos = sorted({tuple(c) for c in combinations(types, t["n"])})
    return [option(seat, "dispel:" + "+".join(c)) for c in combos]


def handle_pick(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    want = option_of(cmd).split(":")[1].split("+")
    pool = units_at(e.s, t["victim"], t["terr"])
    ids: list[str] = []
    for ty in want:
        u = next(u for u in pool if u.type == ty and u.id not in ids)
        ids.append(u.id)
    e.dispel(t["victim"], ids)


def legal_fmove(s: State, t: Task, seat: int) -> list[Command]:
    return [option(seat, o) for o in forced_options(s, seat, t["terr"], t["max"])]


def handle_fmove(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    seat, terr = t["seat"], t["terr"]
    spec = option_of(cmd)[3:]
    units = units_at(e.s, seat, terr)
    if "+" in spec:
        d1, rest = spec.split("+")
        d2, ty = rest.split(":")
        lone = next(u.id for u in units if u.type == ty)
        legs = [{"from": terr, "to": d1, "units": [u.id for u in units if u.id != lone]},
                {"from": terr, "to": d2, "units": [lone]}]
    else:
        legs = [{"from": terr, "to": spec, "units": [u.id for u in units]}]
    e.start_move(seat, legs, "forced", t["hide"])


def legal_lose(s: State, t: Task, seat: int) -> list[Command]:
    return pay_answers(s, seat)


def handle_lose(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    e.pay_tokens(t["seat"], list(cmd.args["tokens"]))


def _cmove_opts(s: State, seat: int, aside: bool = False) -> list[str]:
    """A card's "move 1 unit"; `aside`, for a bright-border card played outside the turn, only
    into a free territory and never out of a Root Tunnel (whose companion could meet anyone):
    only the active tribe's movements start encounters (RULINGS.md, Bright-border cards)."""
    b = board(s)
    out = []
    for u in s.tribes[seat].units:
        if u.loc is None:
            continue
        k = b.terr[u.loc].kind
        if k == "fog" or (aside and k == "tunnel"):
            continue
        n = len(units_at(s, seat, u.loc))
        if k == "marsh" and not (s.tribes[seat].tokens or s.tribes[seat].hand):
            continue
        for d in sorted(b.adj[u.loc]):
            if not can_enter(s, seat, d) or (aside and not free_for(s, seat, d)):
                continue
            if k == "tunnel" and (n < 2 or not other_tunnels(s, u.loc)):
                continue
            out.append(f"move:{u.id}:{d}")
    return out


def legal_cmove(s: State, t: Task, seat: int) -> list[Command]:
    return [*[option(seat, o) for o in _cmove_opts(s, seat, bool(t.get("aside")))], answer(seat, "skip")]


def _abandon_card(e: Flow) -> None:
    """A "-" effect not done, by choice or because it cannot be: ignore the rest of the card
    [Special Action]. The card's effect lists on top of the stack (a "may"'s reward runs as its
    own list above the card's) all end; a stance's or Fury card's list (one with an opponent)
    is never a special action card, and is left alone."""
    for task in reversed(e.stack):
        if task["k"] != "eff" or "opp" in task["ctx"]:
            return
        task["i"] = len(task["list"])


def handle_cmove(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    if cmd.type.endswith("skip"):
        _abandon_card(e)
        return
    _, unit, dest = option_of(cmd).split(":")
    src = next(u.loc for u in e.s.tribes[t["seat"]].units if u.id == unit)
    e.start_move(t["seat"], [{"from": src, "to": dest, "units": [unit]}], "aside" if t.get("aside") else "card")


def legal_cexplore(s: State, t: Task, seat: int) -> list[Command]:
    return [*explore_answers(s, seat), answer(seat, "skip")]


def handle_cexplore(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    if cmd.type.endswith("skip"):
        _abandon_card(e)
        return
    start_explore(e, t["seat"], cmd.args)


def legal_cempower(s: State, t: Task, seat: int) -> list[Command]:
    return [*empower_answers(s, seat), answer(seat, "skip")]


def handle_cempower(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    if cmd.type.endswith("skip"):
        _abandon_card(e)
        return
    empower(e, t["seat"], cmd.args)


def legal_reach(s: State, t: Task, seat: int) -> list[Command]:
    b = board(s)
    mine = sorted({u.loc for u in s.tribes[seat].units if u.loc and b.terr[u.loc].dragon})
    return [*[option(seat, f"dragon:{d}") for d in mine if d != s.dragon], answer(seat, "skip")]


def handle_reach(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    if cmd.type.endswith("choose"):
        e.dragon_into(option_of(cmd).split(":")[1])


def _tree_cost(s: State, t: Task, tree: Any) -> dict[str, Any]:
    if t["intro"]:
        return {"kind": "any"}
    if tree.state != "unaltered":
        return {"kind": "four"}
    u = UNDERSIDES[tree.under]
    count = u["count"] + (1 if u["plus"] else 0)
    return {"kind": "type", "type": u["type"], "count": count} if u["type"] else {"kind": "same", "count": count}


def _eligible_trees(s: State, seat: int) -> list[Any]:
    b = board(s)
    tr = s.tribes[seat]
    spec = TRIBES[tr.name]["tree"]
    where = {u.loc for u in tr.units if u.loc and u.type in spec["units"]}
    out = []
    for x in s.trees:
        if not any(w in where for w in b.trees[x.id]):
            continue
        if x.protected and x.by != seat:
            continue
        ok = {
            "fell": x.state in ("unaltered", "cursed", "blessed"),
            "bless": x.state == "unaltered" and tr.roots > 0,
            "curse": x.state == "unaltered" and x.poisoned == seat and tr.roots > 0,
        }[spec["kind"]]
        if ok:
            out.append(x)
    return out


def step_tree(e: Flow, t: Task) -> bool:
    # always asked, even with no eligible tree, so the prompt says nothing about hidden units
    return e.ask([t["seat"]], t, {"stage": t["stage"], "tree": t.get("tree")})


def legal_tree(s: State, t: Task, seat: int) -> list[Command]:
    if t["stage"] == "pick":
        return [*[option(seat, f"tree:{x.id}") for x in _eligible_trees(s, seat)], answer(seat, "skip")]
    tree = next(x for x in s.trees if x.id == t["tree"])
    combos = token_combos(s.tribes[seat].tokens, _tree_cost(s, t, tree))
    return [*[answer(seat, "pay", tokens=c) for c in combos], answer(seat, "skip")]


def handle_tree(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    if t["stage"] == "pick":
        if cmd.type.endswith("skip"):
            e.stack.pop()
            return
        tid = option_of(cmd).split(":")[1]
        tree = next(x for x in e.s.trees if x.id == tid)
        b = board(e.s)
        spec = TRIBES[e.s.tribes[seat].name]["tree"]
        u = next(u for u in e.s.tribes[seat].units if u.loc in b.trees[tid] and u.type in spec["units"])
        e.reveal_units(seat, [u.id])
        if tree.state == "unaltered" and not tree.shown:
            e.emit("TreeRevealed", {"tree": tid, "underside": tree.under})
        t["tree"], t["stage"], t["was"] = tid, "pay", tree.state
        return
    e.stack.pop()
    tid = t["tree"]
    if cmd.type.endswith("pay"):
        e.pay_tokens(seat, list(cmd.args["tokens"]))
        kind = TRIBES[e.s.tribes[seat].name]["tree"]["kind"]
        state = {"fell": "felled", "bless": "blessed", "curse": "cursed"}[kind]
        tr = e.s.tribes[seat]
        first = tr.newcomer and not any(x.by == seat and x.protected for x in e.s.trees)
        e.emit("TreeAltered", {"tree": tid, "state": state, "protected": first}, seat)
    if e.s.experienced and t["was"] == "unaltered":
        pool = [x for x in e.s.trees if x.state == "unaltered"]
        if len(pool) > 1:
            unders = e.rng.shuffled([x.under for x in pool])
            e.emit("TreesShuffled", {"secret": {"under": {x.id: u for x, u in zip(pool, unders, strict=True)}}})


def legal_check(s: State, t: Task, seat: int) -> list[Command]:
    return [option(seat, f"tree:{x.id}") for x in s.trees if x.state == "unaltered"]


def handle_check(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    tid = option_of(cmd).split(":")[1]
    tree = next(x for x in e.s.trees if x.id == tid)
    e.emit("TreeChecked", {"tree": tid, "secret": {"under": tree.under}}, t["seat"])


def legal_ret(s: State, t: Task, seat: int) -> list[Command]:
    return [answer(seat, "return", unit=u.id) for u in s.tribes[seat].units if u.loc is None]


def handle_ret(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    e.to_camp(t["seat"], [cmd.args["unit"]])


def legal_may(s: State, t: Task, seat: int) -> list[Command]:
    out = [answer(seat, "skip")]
    tr = s.tribes[seat]
    if t["cost"] == "pay":
        out += pay_answers(s, seat)
    elif t["cost"] == "reveal":
        out += [answer(seat, "reveal", token=i) for i in hidden_tokens(s, seat)]
    else:
        out += [answer(seat, "discard", card=c) for c in sorted(set(tr.hand))]
    return out


def handle_may(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    e.stack.pop()
    verb = cmd.type.split(".")[1]
    if verb == "skip":
        return
    if verb == "pay":
        e.pay_tokens(seat, list(cmd.args["tokens"]))
    elif verb == "reveal":
        i = cmd.args["token"]
        e.emit("InsightRevealed", {"index": i, "type": e.s.tribes[seat].tokens[i].type}, seat)
    else:
        e.discard(seat, cmd.args["card"])
    e.push({"k": "eff", "seat": seat, "list": t["then"], "i": 0, "ctx": t["ctx"]})


def legal_opt(s: State, t: Task, seat: int) -> list[Command]:
    return [option(seat, f"opt:{i}") for i in range(len(t["options"]))]


def handle_opt(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    i = int(option_of(cmd).split(":")[1])
    e.push({"k": "eff", "seat": t["seat"], "list": t["options"][i], "i": 0, "ctx": t["ctx"]})
