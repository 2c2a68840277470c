"""Steps A, B and C-F of a turn, the Fury track and new stances."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from rules.core import Command
from rules.dragondale.choices import (
    answer,
    held_tokens,
    hidden_tokens,
    option,
    option_of,
)
from rules.dragondale.content import (
    CARD_BY_ID,
    HIGH,
    LOW,
    MOVEMENT_CARDS,
    STANCES,
    START,
)
from rules.dragondale.evolve import top_card_on
from rules.dragondale.flow import Flow, Task
from rules.dragondale.queries import (
    board,
    conqueror,
    enemies_at,
    explore_ok,
    occupancy,
    play_order,
    stance_cards,
    take_range,
    unit_types,
    vp,
)
from rules.dragondale.state import DRAGON, State


def step_start(e: Flow, t: Task) -> bool:
    seat = t["seat"]
    mine = [x for x in e.s.wood if next(tr for tr in e.s.trees if tr.id == x).by == seat]
    if mine:
        # wood felled since the tribe's last turn is secured now, before victory is announced
        e.emit("WoodSecured", {"trees": mine}, seat)
    s = e.s
    if vp(s, seat) >= 4 and not t.get("declined"):
        t["mode"] = "announce"
        return e.ask([seat], t, {"vp": vp(s, seat)})
    if any(u.loc is None for u in s.tribes[seat].units):
        t["mode"] = "dispelled"
        return e.ask([seat], t)
    e.stack.pop()
    return False


def legal_start(s: State, t: Task, seat: int) -> list[Command]:
    if t["mode"] == "announce":
        # "you may announce victory" [Step A]: the tribe may also play on
        return [answer(seat, "announce"), answer(seat, "skip")]
    tr = s.tribes[seat]
    out = [answer(seat, "return", unit=u.id) for u in tr.units if u.loc is None]
    out += [answer(seat, "discard", card=c) for c in sorted(tr.hand)]
    return [*out, answer(seat, "skip")]


def handle_start(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    if t["mode"] == "announce" and cmd.type.endswith("skip"):
        # not announcing: the rest of step A (dispelled units) still comes
        t["declined"] = True
        return
    e.stack.pop()
    if cmd.type.endswith("announce"):
        s = e.s
        e.emit("GameEnded", {"winners": [seat], "scores": [vp(s, i) for i in range(s.n)],
                             "reason": "announced victory"})
    elif cmd.type.endswith("return"):
        e.to_camp(seat, [cmd.args["unit"]])
    elif cmd.type.endswith("discard"):
        e.discard(seat, cmd.args["card"])
        e.draw_insight(seat)


def step_first(e: Flow, t: Task) -> bool:
    # "2 and 4 tribes: Whoever was lost last" [Setup 5]: a fact the players know, so any seat
    # may name the starting tribe, and the first answer stands
    return e.ask(list(range(e.s.n)), t)


def legal_first(s: State, t: Task, seat: int) -> list[Command]:
    return [option(seat, f"first:{tr.name}") for tr in s.tribes]


def handle_first(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    name = option_of(cmd).split(":")[1]
    start = next(i for i, tr in enumerate(e.s.tribes) if tr.name == name)
    order = play_order(start, e.s.n)
    # set-up step 6 follows the playing order: the last tribe highest, the Dragon above it, and
    # the last tribe holds the Dragon Stone (see RULINGS.md, The Dragon)
    e.emit("StartingTribeChosen", {"tribe": name, "order": order, "dominance": [DRAGON, *reversed(order)],
                                   "stone": order[-1]}, cmd.seat)


def step_tribe_action(e: Flow, t: Task) -> bool:
    if len(legal_tribe_action(e.s, t, t["seat"])) <= 1:
        e.stack.pop()
        return False
    return e.ask([t["seat"]], t, {"tribe": e.s.tribes[t["seat"]].name})


def legal_tribe_action(s: State, t: Task, seat: int) -> list[Command]:
    tr = s.tribes[seat]
    out: list[Command] = []
    if tr.name in ("vikings", "celts"):
        out = [option(seat, f"hide:{u.id}") for u in tr.units
               if u.loc and not u.hidden and u.type != "ox" and not enemies_at(s, seat, u.loc)]
    elif tr.name == "druids":
        out = [option(seat, f"exchange:{i}") for i in held_tokens(s, seat)]
    else:
        out = [option(seat, f"check:{tree.id}") for tree in s.trees if tree.state == "unaltered"]
    return [*out, answer(seat, "skip")]


def handle_tribe_action(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    e.stack.pop()
    if cmd.type.endswith("skip"):
        return
    what, _, arg = option_of(cmd).partition(":")
    if what == "hide":
        e.hide(seat, [arg])
    elif what == "exchange":
        e.pay_tokens(seat, [int(arg)])
        e.draw_insight(seat)
    else:
        tree = next(x for x in e.s.trees if x.id == arg)
        e.emit("TreeChecked", {"tree": arg, "secret": {"under": tree.under}}, seat)


def step_action(e: Flow, t: Task) -> bool:
    # "Use 2 actions on your turn" [Step B]: never passed by choice; with no action that can be
    # taken (nothing to move, play or empower, and not the 2nd action, where Plan always is) the
    # action is gone without a question whose one answer would be "pass"
    if not legal_action(e.s, t, t["seat"]):
        e.stack.pop()
        return False
    return e.ask([t["seat"]], t, {"action": t["n"]})


def explore_answers(s: State, seat: int) -> list[Command]:
    """Every exploration some choice of units can complete."""
    b = board(s)
    out: list[Command] = []
    counts: dict[str, int] = {}
    for u in s.tribes[seat].units:
        if u.loc is not None:
            counts[u.loc] = counts.get(u.loc, 0) + 1
    occ = occupancy(s)
    for target in b.order:
        srcs = sorted(a for a in b.adj[target] if a in counts)
        for k in (1, 2):
            for via in combinations(srcs, k):
                if explore_ok(s, seat, "in", target, list(via), occ, counts):
                    out.append(answer(seat, "explore", dir="in", target=target, via=list(via)))
        if target in counts:
            for k in (1, 2):
                for via in combinations(sorted(b.adj[target]), k):
                    if explore_ok(s, seat, "out", target, list(via), occ, counts):
                        out.append(answer(seat, "explore", dir="out", target=target, via=list(via)))
    return out


def empower_answers(s: State, seat: int) -> list[Command]:
    """Empower: one of the top two Library cards, with one of its empower effects."""
    out: list[Command] = []
    for card in s.tribes[seat].library[:2]:
        for eff in CARD_BY_ID[card]["empower"]:
            if eff == "exchange" and s.tribes[seat].tokens:
                out += [answer(seat, "empower", card=card, effect=f"exchange:{i}") for i in held_tokens(s, seat)]
            else:
                out.append(answer(seat, "empower", card=card, effect=eff))
    return out


def legal_action(s: State, t: Task, seat: int) -> list[Command]:
    tr = s.tribes[seat]
    out: list[Command] = []
    if t["n"] == 1:
        out += explore_answers(s, seat)
        if tr.name == "dark_faery" and tr.tribe_tokens > 0:
            out += [answer(seat, "poison", tree=x.id) for x in _poisonable(s, seat)]
    else:
        out.append(answer(seat, "plan"))
    out += [answer(seat, "special", card=c) for c in sorted(set(tr.hand))]
    out += empower_answers(s, seat)
    return out


def _poisonable(s: State, seat: int) -> list[Any]:
    b = board(s)
    mine = {u.loc for u in s.tribes[seat].units if u.loc}
    return [x for x in s.trees if x.state == "unaltered" and x.poisoned is None
            and any(w in mine for w in b.trees[x.id])]


def handle_action(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    e.stack.pop()
    verb = cmd.type.split(".")[1]
    a = cmd.args
    if verb == "explore":
        start_explore(e, seat, a)
    elif verb == "plan":
        e.emit("IdeasPlanned", {"count": len(e.s.tribes[seat].ideas)}, seat)
        others = [x for x in e.play_order_from(seat) if x != seat]
        e.push(*[{"k": "plan_react", "seat": x} for x in others])
    elif verb == "special":
        card = a["card"]
        info = CARD_BY_ID[card]
        e.emit("CardPlayed", {"card": card}, seat)
        if info.get("is_intro"):
            e.emit("CardExchanged", {"old": card, "new": info["regular"]}, seat)
        e.push({"k": "eff", "seat": seat, "list": info["effects"], "i": 0, "ctx": {}})
    elif verb == "empower":
        empower(e, seat, a)
    elif verb == "poison":
        tree = next(x for x in e.s.trees if x.id == a["tree"])
        e.emit("TreePoisoned", {"tree": tree.id}, seat)
        e.emit("TreeChecked", {"tree": tree.id, "secret": {"under": tree.under}}, seat)


def start_explore(e: Flow, seat: int, a: Any) -> None:
    if a["dir"] == "in":
        legs = [{"from": v, "to": a["target"], "units": []} for v in a["via"]]
    else:
        legs = [{"from": a["target"], "to": v, "units": []} for v in a["via"]]
    e.push({"k": "take", "seat": seat, "mv": {"dir": a["dir"], "target": a["target"], "legs": legs}, "i": 0})


def empower(e: Flow, seat: int, a: Any) -> None:
    # "Other tribes may only look at the top card of your Ideas pile" [Setup 17]: a card that
    # goes under a TOP card is named to its tribe only; the effect applied stays public
    if e.s.rules > 1 and top_card_on(e.s.tribes[seat].ideas):
        e.emit("CardEmpowered", {"effect": a["effect"], "secret": {"card": a["card"]}}, seat)
    else:
        e.emit("CardEmpowered", {"card": a["card"], "effect": a["effect"]}, seat)
    apply_empower(e, seat, a["effect"])


def apply_empower(e: Flow, seat: int, eff: str) -> None:
    # a bare "exchange" is an exchange with no insight to pay: the card is unlocked, nothing swapped
    if eff == "insight":
        e.draw_insight(seat)
    elif eff.startswith("exchange:"):
        e.pay_tokens(seat, [int(eff.split(":")[1])])
        e.draw_insight(seat)
    elif eff == "fury_up":
        e.fury_step(seat, 1)
    elif eff == "fury_down":
        e.fury_step(seat, -1)
    elif eff == "boost":
        e.boost(seat)


def step_take(e: Flow, t: Task) -> bool:
    return e.ask([t["seat"]], t, {"leg": t["mv"]["legs"][t["i"]]["from"] + "->" + t["mv"]["legs"][t["i"]]["to"]})


def legal_take(s: State, t: Task, seat: int) -> list[Command]:
    lo, hi, avail = take_range(s, seat, t["mv"], t["i"])
    out = []
    for k in range(lo, hi + 1):
        for c in combinations(sorted(avail), k):
            out.append(answer(seat, "take", units=list(c)))
    return out


def handle_take(e: Flow, t: Task, cmd: Command) -> None:
    mv = t["mv"]
    mv["legs"][t["i"]]["units"] = list(cmd.args["units"])
    t["i"] += 1
    if t["i"] == len(mv["legs"]):
        e.stack.pop()
        e.start_move(t["seat"], mv["legs"], "explore")


def step_plan_react(e: Flow, t: Task) -> bool:
    if not hidden_tokens(e.s, t["seat"]):
        e.stack.pop()
        return False
    return e.ask([t["seat"]], t)


def legal_plan_react(s: State, t: Task, seat: int) -> list[Command]:
    out = [answer(seat, "skip")]
    for i in hidden_tokens(s, seat):
        out.append(option(seat, f"plan:boost:{i}"))
        if s.tribes[seat].ideas:
            out.append(option(seat, f"plan:take:{i}"))
    return out


def handle_plan_react(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    e.stack.pop()
    if cmd.type.endswith("skip"):
        return
    _, what, idx = option_of(cmd).split(":")
    tok = e.s.tribes[seat].tokens[int(idx)]
    e.emit("InsightRevealed", {"index": int(idx), "type": tok.type}, seat)
    if what == "boost":
        e.boost(seat)
    else:
        ideas = e.s.tribes[seat].ideas
        e.emit("IdeaTaken", {"secret": {"card": ideas[e.rng.below(len(ideas))]}}, seat)


def step_c(e: Flow, t: Task) -> bool:
    e.stack.pop()
    s = e.s
    seat = e.turn
    tr = s.tribes[seat]
    b = board(s)
    if tr.name == "vikings":
        if any(u.type == "ox" and u.loc and b.trees_in[u.loc] for u in tr.units):
            e.draw_insight(seat)
    elif tr.name == "celts":
        if any(u.hidden and u.loc and b.terr[u.loc].rune_stone and conqueror(s, u.loc) == seat for u in tr.units):
            e.draw_insight(seat)
    elif tr.name == "druids":
        blessed = {w for x in s.trees if x.state == "blessed" and x.by == seat for w in b.trees[x.id]}
        if any(u.loc in blessed for u in tr.units):
            e.fury_step(seat, -1)
    else:
        poisoned = {w for x in s.trees if x.poisoned == seat and x.state == "unaltered" for w in b.trees[x.id]}
        if any(u.loc in poisoned for u in tr.units):
            e.draw_insight(seat)
    return False


def step_d(e: Flow, t: Task) -> bool:
    e.stack.pop()
    s = e.s
    if s.stone != e.turn:
        return False
    e.push({"k": "fury_offer", "seat": e.turn})
    if s.dragon is None:
        # back only if it was dispelled before this turn; redraw stay cards
        if s.dragon_turn < s.turn_no:
            card = e.mdraw()
            while "stay" in MOVEMENT_CARDS[card]:
                card = e.mdraw()
            dest = board(s).inner_by_rune[MOVEMENT_CARDS[card]["rune"]]
            e.emit("DragonReturned", {"to": dest})
            e.dragon_encounters(dest)
        return False
    e.dragon_go()
    return False


def step_fury_offer(e: Flow, t: Task) -> bool:
    tr = e.s.tribes[t["seat"]]
    if e.s.fury_cards[tr.fury - LOW][1]:
        e.stack.pop()
        return False
    return e.ask([t["seat"]], t)


def legal_fury_offer(s: State, t: Task, seat: int) -> list[Command]:
    return [option(seat, "reveal_fury"), answer(seat, "skip")]


def handle_fury_offer(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    if cmd.type.endswith("choose"):
        lv = e.s.tribes[t["seat"]].fury
        e.emit("FuryCardRevealed", {"level": lv, "card": e.s.fury_cards[lv - LOW][0]})


def legal_stay(s: State, t: Task, seat: int) -> list[Command]:
    out = [option(seat, "stay:insight")]
    if s.dominance.index(DRAGON) < len(s.dominance) - 2:
        out.insert(0, option(seat, "stay:dominance"))
    return out


def handle_stay(e: Flow, t: Task, cmd: Command) -> None:
    e.stack.pop()
    if option_of(cmd) == "stay:dominance":
        e.dragon_down(may_end=False)
    else:
        for seat in e.play_order_from(e.turn):
            e.draw_insight(seat)


def step_e(e: Flow, t: Task) -> bool:
    e.stack.pop()
    seats = [x for x in e.play_order_from(e.turn) if e.s.tribes[x].revealed]
    if seats:
        e.push({"k": "fury_react", "left": seats})
    return False


def fury_net(s: State, seat: int, active: int) -> int:
    """Step E: +1 per revealed stance type at the top of the track, -1 per type at the bottom."""
    k = 0 if seat == active else 1
    net = 0
    for card in s.tribes[seat].revealed:
        ty = STANCES[card]["insight"][k]
        net += (ty in s.fury_top) - (ty in s.fury_bottom)
    return net


def _goes_over(s: State, seat: int, active: int) -> bool:
    return not LOW <= s.tribes[seat].fury + fury_net(s, seat, active) <= HIGH


def step_fury_react(e: Flow, t: Task) -> bool:
    s = e.s
    left = t["left"]
    if not left:
        e.stack.pop()
        return False
    # tribes staying on the track move first; the active tribe orders those going over an edge,
    # since Chaos can swap the types at the ends and so change the later tribes' moves
    inside = [x for x in left if not _goes_over(s, x, e.turn)]
    if inside or len(left) == 1:
        seat = (inside or left)[0]
        left.remove(seat)
        e.fury_step(seat, fury_net(s, seat, e.turn))
        return False
    return e.ask([e.turn], t)


def legal_fury_react(s: State, t: Task, seat: int) -> list[Command]:
    return [option(seat, f"first:{s.tribes[x].name}") for x in t["left"]]


def handle_fury_react(e: Flow, t: Task, cmd: Command) -> None:
    name = option_of(cmd).split(":")[1]
    seat = next(x for x in t["left"] if e.s.tribes[x].name == name)
    t["left"].remove(seat)
    e.fury_step(seat, fury_net(e.s, seat, e.turn))


def legal_edge(s: State, t: Task, seat: int) -> list[Command]:
    # "you may bring chaos" / "may reshuffle" [Step E]: declining is always open and costs nothing
    return [option(seat, "chaos" if t["side"] == "top" else "dreams"), answer(seat, "skip")]


def handle_edge(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    e.stack.pop()
    if cmd.type.endswith("choose") and t["side"] == "top":
        top, bottom = list(e.s.fury_top), list(e.s.fury_bottom)
        i, j = e.rng.below(len(top)), e.rng.below(len(bottom))
        top[i], bottom[j] = bottom[j], top[i]
        e.emit("FuryTokensExchanged", {"top": top, "bottom": bottom})
    elif cmd.type.endswith("choose"):
        e.emit("FuryCardsReshuffled", {"secret": {"cards": e.rng.shuffled([c for c, _ in e.s.fury_cards])}})
    # taken or declined, the Dragon loses dominance and the token goes back to the start
    e.dragon_down()
    e.emit("FuryMoved", {"to": START}, seat)


def step_f(e: Flow, t: Task) -> bool:
    """Step F: every tribe with revealed stances chooses new ones, the passive tribes too, all
    at once (each seat answers its own prompt in its own time)."""
    e.stack.pop()
    seats = [x for x in e.play_order_from(e.turn) if e.s.tribes[x].revealed]
    if seats:
        todo = {str(x): sorted({STANCES[c]["unit"] for c in e.s.tribes[x].revealed}) for x in seats}
        e.emit("StanceTodo", {"todo": todo})
        e.push({"k": "restance", "seats": seats})
    return False


def step_restance(e: Flow, t: Task) -> bool:
    for x in [x for x in t["seats"] if not e.s.tribes[x].stance_todo]:
        t["seats"].remove(x)
        e.emit("StancesHidden", {}, x)
    if not t["seats"]:
        e.stack.pop()
        return False
    return e.ask(list(t["seats"]), t)


def _stance_cmds(s: State, seat: int) -> list[Command]:
    out = []
    for ty in s.tribes[seat].stance_todo:
        out += [answer(seat, "stance", unit=ty, card=c) for c in stance_cards(s, seat, ty)]
    return out


def legal_restance(s: State, t: Task, seat: int) -> list[Command]:
    """The active tribe may keep a stance; a passive tribe renews it "differently" [Step F]:
    one of that unit type's other cards (the same one only when it has no other)."""
    if seat == s.ctl.get("turn"):
        return _stance_cmds(s, seat)
    tr = s.tribes[seat]
    out = []
    for ty in tr.stance_todo:
        cur = tr.stance(ty)
        pool = [c for c in stance_cards(s, seat, ty) if c != cur] or [cur]
        out += [answer(seat, "stance", unit=ty, card=c) for c in pool]
    return out


def handle_stance(e: Flow, t: Task, cmd: Command) -> None:
    e.emit("StanceChosen", {"unit": cmd.args["unit"], "secret": {"card": cmd.args["card"]}}, cmd.seat)


def step_stance_round(e: Flow, t: Task) -> bool:
    seats = [i for i in range(e.s.n) if e.s.tribes[i].stance_todo]
    if not seats:
        e.stack.pop()
        return False
    return e.ask(seats, t)


def legal_stance_round(s: State, t: Task, seat: int) -> list[Command]:
    return _stance_cmds(s, seat)


def step_end_turn(e: Flow, t: Task) -> bool:
    e.stack.pop()
    s = e.s
    if not s.experienced and s.turn_no == s.n:
        e.emit("StanceTodo", {"todo": {str(i): unit_types(s, i) for i in range(s.n)}})
        e.push({"k": "stance_round"})
    return False
