"""Why a well-formed answer is refused: the kind of refusal (a code naming the rule that stops
it, `KINDS`) and the reason, in words a player knows.

`decide` accepts exactly the answers `legal_commands` lists; this module only explains a refusal,
so a reason it cannot pin down falls back to `not_offered`, "not among the answers open now".
Every reason is built from what the board shows the refusing seat and from the command itself:
never from another tribe's secrets, nor from the type of a hidden insight token (a refused `pay`
of a hidden token reads the same whatever the token is). The contract suite reads `KINDS`
(tests/contract/test_sentences.py: a refused command names one of them).
"""

from __future__ import annotations

from typing import Any

from rules.core import Command
from rules.dragondale.board import Board
from rules.dragondale.content import CARD_BY_ID, STANCES, TERRITORIES, TRIBES, UNDERSIDES
from rules.dragondale.notation import format_text
from rules.dragondale.queries import (
    board,
    can_enter,
    enter_cap,
    leave_cap,
    take_range,
    units_at,
)
from rules.dragondale.state import State

KIND = {k: t["phrase"] for k, t in TERRITORIES.items()}

# code -> the rule it names (docs/errors.md, "The games' own codes"; RULINGS.md gives the rulings)
KINDS: dict[str, str] = {
    "already_revealed": 'Revealing Insight: "you must have hidden insight that you can actually reveal"',
    "announce_victory": 'Step A: "If you control at least 4 VP you may announce victory"',
    "bright_card": 'Card Notes: "Cards with a bright border contain an effect that you can use outside of your turn"',
    "empower": "Boost and Empower: one of the 2 topmost cards of your Library, with its EMPOWER EFFECT",
    "encampment": 'Encampment: "ENTERING: Only your units"',
    "enter_limit": 'Mountain, inner Dragon territories: "ENTERING: Max 2 units" / "Max 1 unit per movement"',
    "explore_first": 'Step B: "EXPLORE can only be done as your 1st action"',
    "fog_valley": 'Fog Valley: "LEAVING: Min. 2 units, only in different territories"',
    "leave_limit": 'Thicket, Encampment: "LEAVING: Max 2 units"',
    "marshland": 'Marshland: "LEAVING: Discard 1 card OR pay 1 insight token"',
    "no_territory": "the board: the territory named, and adjacent where the movement asks it",
    "no_unit_there": 'Explore: "Move any number of your units, but at least 1"',
    "not_dispelled": 'Step A: "return 1 of them" (your dispelled units)',
    "not_in_hand": "Special Action: a card from your special action pile (your hand)",
    "not_offered": "the answer is not one the prompt offers now",
    "no_such_token": "Gaining and Playing Insight: the insight tokens in your play area",
    "one_token": "the effect costs 1 insight token",
    "plan_second": 'Step B: "PLAN only as your 2nd action"',
    "poison": "Poisoning the Tree: the Dark Faery's 1st action, a tribe token, an unaltered tree by their unit",
    "root_tunnel": 'Root Tunnel: "BEFORE LEAVING: Move 1 unit into any other ROOT TUNNEL"',
    "stance": "Step F: a new stance for a unit type that was in an encounter, from that type's cards",
    "take_count": "the movement: how many units the territories let go, at least 1",
    "tree_cost": "Pay Costs According to the Tree: the symbols underneath",
    "tree_order": "Full Rules for the Trees: choose the tree, then pay its cost",
    "wrong_cost": 'Special Action: "[pay cost] to [gain reward]": the cost the card names',
}
Refusal = tuple[str, str]  # (code, reason)


def refusal(s: State, cmd: Command, legal: list[Command]) -> Refusal:
    """The code of a refused answer and its message: the command as typed, then why."""
    code, why = _why(s, cmd, legal) or _fallback(s, cmd, legal)
    return code, f"{format_text(cmd)}: {why}"


def _fallback(s: State, cmd: Command, legal: list[Command]) -> Refusal:
    same = [c for c in legal if c.type == cmd.type]
    kind = s.prompt.kind if s.prompt else "none"
    if not same:
        return "not_offered", f"not an answer now (the prompt is '{kind}')"
    return "not_offered", (f"not among the {len(same)} answers of this kind open now (the prompt is '{kind}'); "
                           "the legal list names them")


def _why(s: State, cmd: Command, legal: list[Command]) -> Refusal | None:
    assert cmd.seat is not None and s.prompt is not None
    seat, verb, a = cmd.seat, cmd.type.split(".", 1)[1], cmd.args
    kind = s.prompt.kind
    task: dict[str, Any] = s.ctl["stack"][-1]
    tr = s.tribes[seat]
    if kind == "may" and verb in ("pay", "reveal", "discard") and verb != task.get("cost"):
        what = "a card" if task.get("cost") == "discard" else "an insight token"
        return "wrong_cost", f"this effect's cost is to {task.get('cost')} ({what}), or skip it"
    if kind == "tree" and task.get("stage") == "pick" and verb == "pay":
        return "tree_order", "first choose the tree to alter (tree <tree>), or skip"
    if kind == "tree" and task.get("stage") == "pay" and verb == "choose":
        return "tree_order", f"{task.get('tree')} is chosen: pay its cost (pay <tokens>), or skip"
    if verb in ("pay", "reveal"):
        return _tokens(s, seat, verb, a, kind, task)
    if verb in ("special", "discard") and a["card"] not in tr.hand:
        return "not_in_hand", f"card {a['card']} is not in your hand"
    if kind == "bright" and verb == "special":
        return "bright_card", (f"{a['card']} has no bright border for this moment: only such a card is played "
                               "outside your turn")
    if verb == "return":
        unit = next((u for u in tr.units if u.id == a["unit"]), None)
        if unit is None:
            return "not_dispelled", f"you have no unit {a['unit']}"
        if unit.loc is not None:
            return "not_dispelled", f"{a['unit']} is not dispelled (it is in {unit.loc})"
        return None
    if verb == "stance":
        return _stance(s, seat, a)
    if verb == "empower":
        return _empower(s, seat, a)
    if kind == "action":
        return _action(s, seat, verb, a, task)
    if kind == "cexplore" and verb == "explore":
        return _explore(s, seat, a)
    if kind == "take" and verb == "take":
        return _take(s, seat, a, legal)
    if verb == "announce":
        return "announce_victory", "announcing victory needs at least 4 VP at the start of your turn"
    if verb == "choose":
        opts = [format_text(c) for c in legal if c.type == cmd.type]
        if opts:
            return "not_offered", "not an option here; the options are: " + "; ".join(opts)
    return None


def _tokens(s: State, seat: int, verb: str, a: Any, kind: str, task: dict[str, Any]) -> Refusal | None:
    tr = s.tribes[seat]
    idx = a["tokens"] if verb == "pay" else [a["token"]]
    held = len(tr.tokens)
    bad = [i for i in idx if i >= held]
    if bad:
        named = ", ".join(map(str, bad))
        return "no_such_token", (f"you hold {held} insight token(s), numbered 0 to {held - 1}; there is no {named}"
                                 if held else "you hold no insight token")
    if verb == "reveal" and not tr.tokens[a["token"]].hidden:
        return "already_revealed", f"insight token {a['token']} is already revealed"
    if verb == "pay" and kind == "tree":
        return _tree_pay(s, task, idx)
    if verb == "pay" and len(idx) != 1:
        return "one_token", "pay exactly 1 insight token here"
    return None


def _action(s: State, seat: int, verb: str, a: Any, task: dict[str, Any]) -> Refusal | None:
    n = task.get("n")
    if verb == "explore":
        return ("explore_first", "Explore only as your 1st action") if n != 1 else _explore(s, seat, a)
    if verb == "plan" and n != 2:
        return "plan_second", "Plan only as your 2nd action"
    if verb == "poison":
        why = _poison(s, seat, a, n)
        return None if why is None else ("poison", why)
    return None


def _poison(s: State, seat: int, a: Any, n: int | None) -> str | None:
    tr = s.tribes[seat]
    if tr.name != "dark_faery":
        return "only the Dark Faery poison a tree"
    if n != 1:
        return "Poisoning the Tree only as your 1st action"
    if tr.tribe_tokens <= 0:
        return "you have no tribe token left to poison a tree with"
    tree = next((x for x in s.trees if x.id == a["tree"]), None)
    if tree is None:
        return f"there is no tree {a['tree']}"
    if tree.state != "unaltered":
        return f"{tree.id} is {tree.state}; only an unaltered tree can be poisoned"
    if tree.poisoned is not None:
        return f"{tree.id} is already poisoned"
    where = board(s).trees[tree.id]
    if not any(u.loc in where for u in tr.units):
        return f"you have no unit in a territory of {tree.id} ({', '.join(where)})"
    return None


def _camp_owner(s: State, terr: str) -> str:
    owner = next((t for t in s.tribes if t.camp == terr), None)
    return f"the {TRIBES[owner.name]['name']}' encampment" if owner else "an encampment"


def _explore(s: State, seat: int, a: Any) -> Refusal | None:
    b = board(s)
    target, via, out = a["target"], list(a["via"]), a["dir"] == "out"
    for t in (target, *via):
        if t not in b.terr:
            return "no_territory", f"there is no territory {t}"
    for v in via:
        if v not in b.adj[target]:
            return "no_territory", f"{v} does not border {target}"
    mine = {t: len(units_at(s, seat, t)) for t in (target, *via)}
    if out:
        return _explore_out(s, b, seat, target, via, mine)
    return _explore_in(s, b, seat, target, via, mine)


def _explore_in(s: State, b: Board, seat: int, target: str, via: list[str], mine: dict[str, int]) -> Refusal | None:
    tk = b.terr[target].kind
    if not can_enter(s, seat, target):
        return "encampment", f"{target} is {_camp_owner(s, target)}: only that tribe's units enter it"
    if enter_cap(tk) < len(via):
        return "enter_limit", (f"only {enter_cap(tk)} unit(s) per movement enter {KIND[tk]} {target}, "
                               f"so not from {len(via)} territories")
    for src in via:
        k = b.terr[src].kind
        if mine[src] == 0:
            return "no_unit_there", f"you have no unit in {src}"
        if k == "fog":
            return "fog_valley", (f"units leave {KIND[k]} {src} at least 2 at a time, each into a different "
                                  f"territory, so not all into {target}")
        if k == "tunnel" and mine[src] < 2:
            return "root_tunnel", (f"a single unit cannot leave {KIND[k]} {src}: 1 unit must first move into "
                                   "another Root Tunnel")
    return _marsh(s, b, seat, via)


def _explore_out(s: State, b: Board, seat: int, target: str, via: list[str], mine: dict[str, int]) -> Refusal | None:
    k = b.terr[target].kind
    n = mine[target]
    if n == 0:
        return "no_unit_there", f"you have no unit in {target}"
    if k == "fog" and n < 2:
        return "fog_valley", (f"a single unit cannot leave {KIND[k]} {target}: at least 2 leave at a time, "
                              "each into a different territory")
    if n < len(via):
        return "no_unit_there", f"you have {n} unit(s) in {target}: at least 1 must go into each territory named"
    if leave_cap(k) < len(via):
        return "leave_limit", f"at most {leave_cap(k)} units leave {KIND[k]} {target} per movement"
    if k == "fog" and len(via) != 2:
        return "fog_valley", (f"units leave {KIND[k]} {target} at least 2 at a time, each into a different "
                              "territory: name 2")
    if k == "tunnel" and n - 1 < len(via):
        return "root_tunnel", (f"before leaving {KIND[k]} {target} 1 unit must move into another Root Tunnel, "
                               "leaving too few to go")
    if sum(1 for v in via if b.terr[v].kind == "inner") > 1:
        return "enter_limit", "only 1 unit per movement enters the inner Dragon territories, so not 2 of them"
    for v in via:
        if not can_enter(s, seat, v):
            return "encampment", f"{v} is {_camp_owner(s, v)}: only that tribe's units enter it"
    return _marsh(s, b, seat, [target])


def _marsh(s: State, b: Board, seat: int, srcs: list[str]) -> Refusal | None:
    tr = s.tribes[seat]
    marsh = [x for x in srcs if b.terr[x].kind == "marsh"]
    if marsh and not (tr.tokens or tr.hand):
        return "marshland", f"leaving Marshland {marsh[0]} costs 1 card or 1 insight token, and you have neither"
    return None


def _take(s: State, seat: int, a: Any, legal: list[Command]) -> Refusal | None:
    task: dict[str, Any] = s.ctl["stack"][-1]
    leg = task["mv"]["legs"][task["i"]]
    lo, hi, avail = take_range(s, seat, task["mv"], task["i"])
    away = [u for u in a["units"] if u not in avail]
    if away:
        verb = "is" if len(away) == 1 else "are"
        return "no_unit_there", (f"{' '.join(away)} {verb} not among your units in {leg['from']} that may go now "
                                 f"({' '.join(sorted(avail))})")
    if not lo <= len(a["units"]) <= hi:
        kind = KIND.get(board(s).terr[leg["from"]].kind, "territory")
        return "take_count", (f"this leg, {kind} {leg['from']} -> {leg['to']}, takes {lo} to {hi} unit(s), "
                              f"not {len(a['units'])}")
    return None


def _stance(s: State, seat: int, a: Any) -> Refusal | None:
    tr = s.tribes[seat]
    unit, card = a["unit"], a["card"]
    if unit not in TRIBES[tr.name]["stances"]:
        return "stance", f"the {TRIBES[tr.name]['name']} have no unit type {unit}"
    if unit not in tr.stance_todo:
        todo = ", ".join(tr.stance_todo) or "none"
        return "stance", f"the {unit} stance is not to be chosen now (to choose: {todo})"
    if card not in STANCES or STANCES[card]["unit"] != unit:
        return "stance", f"{card} is not a stance card of the {unit}"
    return None


def _empower(s: State, seat: int, a: Any) -> Refusal | None:
    why = _empower_why(s, seat, a)
    return None if why is None else ("empower", why)


def _empower_why(s: State, seat: int, a: Any) -> str | None:
    lib = s.tribes[seat].library
    card, eff = a["card"], a["effect"]
    if card not in lib[:2]:
        return "empower only with one of the 2 topmost cards of your Library"
    effects = CARD_BY_ID[card]["empower"]
    name = eff.split(":")[0]
    if name not in effects:
        return f"{card}'s empower effect is {' or '.join(effects)}, not {name}"
    if name == "exchange":
        held = len(s.tribes[seat].tokens)
        if not held and eff != "exchange":
            return f"you hold no insight token, so there is none to exchange: write empower {card} exchange"
        if held and not eff.removeprefix("exchange:").isdigit():
            return f"name the token to exchange, exchange:0 to exchange:{held - 1}"
        if held and int(eff.removeprefix("exchange:")) >= held:
            return f"you hold {held} insight token(s), numbered 0 to {held - 1}"
    return None


def _tree_pay(s: State, task: dict[str, Any], idx: list[int]) -> Refusal | None:
    tree = next((x for x in s.trees if x.id == task.get("tree")), None)
    if tree is None:
        return None
    if task.get("intro"):
        cost = "1 insight token of any type"
    elif tree.state != "unaltered":
        cost = "1 insight token of each of the 4 types"
    else:
        u = UNDERSIDES[tree.under]
        count = u["count"] + (1 if u["plus"] else 0)
        cost = f"{count} {u['type']} insight" if u["type"] else f"{count} insight tokens of the same type"
    # the cost is public (the underside was shown); which held tokens fit it is not said
    return "tree_cost", f"these {len(idx)} token(s) do not pay {tree.id}: it costs {cost}"
