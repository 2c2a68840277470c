"""Dragon Dale in words: prompts, commands and events for a viewer, and the territories a move
touched.

Hidden things are told only as the viewer may know them. The events come already redacted for
the viewer (`view.redact` drops their `secret` part for anyone but its owner), so a secret shows
in words exactly when the viewer holds it; the state is read only for what `view` shows that
viewer: a unit's type when it is the viewer's own or revealed, else "a hidden unit". Units are
never named by their token ids (those are shuffled to hide identities), cards, stances, Fury cards,
territories and trees by the names in content/ and the rulebook's territory kinds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rules.core import EVERYTHING_SHOWN, Command, Event, Told
from rules.eventwords import tell
from rules.words import (
    article,
    listing,
    places,
    plural,
    seat_name,
    sentence,
    titled,
)

from .board import board_for
from .content import CARD_BY_ID, FURY_CARDS, STANCES, TERRITORIES, TRIBES
from .state import State

# Territory ids name their kind ("marsh2"); the inner territories go by their Dragon's name.
KINDS = {k: t["name"] for k, t in TERRITORIES.items() if k != "inner"}
EMPOWER = {
    "insight": "to draw an insight token", "fury_up": "to raise their Fury", "fury_down": "to lower their Fury",
    "boost": "to boost (take a card from the Library)", "exchange": "to exchange an insight token",
}
PROMPTS = {
    "stance_round": "choose a stance card for each unit type, face down",
    "restance": "choose a new stance card",
    "start": "start of turn: return 1 dispelled unit to the Encampment OR discard 1 card to gain 1 insight token, or skip",
    "first": "choose the starting tribe",
    "action": "take an action: explore, play a card, empower a card, plan or a tribe action",
    "tribe_action": "take the tribe action, or skip it",
    "take": "choose the units that go along",
    "reward": "choose an exploration reward",
    "may": "choose whether to pay for the card's optional effect",
    "cmove": "choose a unit to move",
    "fmove": "choose a unit to move",
    "move": "LEAVING a Marshland: discard 1 card OR pay 1 insight token",
    "companion": "choose a companion to come through the Root Tunnel",
    "cexplore": "choose where to explore",
    "cempower": "choose a card to empower",
    "check": "choose a tree to check",
    "tree": "choose a tree to alter, or skip",
    "edge": "choose a route",
    "encounters": "choose the next encounter",
    "enc_unit": "choose a unit to act in the encounter",
    "enc_pay": "choose insight tokens to pay in the encounter",
    "fury_offer": "choose whether to take a Fury card",
    "lose": "choose what to lose",
    "opt": "choose one of the card's options",
    "pick": "choose one",
    "plan_react": "react to the plan: reveal an insight token to boost or to take the idea, or skip",
    "ret": "choose a unit to return to the Encampment",
    "stay": "choose what the Dragon's stay card does",
    "bright": "choose whether to play a bright-border card before the encounter, or pass",
}


def territory(tid: Any, s: State | None = None) -> str:
    """ "marsh2" -> "Marshland 2", "ash" -> "the Ash Dragon Territory", "camp_b" -> "the
    Encampment of the Celts" when `s` says whose it is ("your ENCAMPMENT", the rulebook says:
    a camp is its tribe's), else "Encampment B"."""
    t = str(tid)
    if t.startswith("fury:"):
        return f"space {t[5:]} of the Fury track"
    if t in ("ash", "oak", "yew"):
        return f"the {t.capitalize()} Dragon Territory"
    if s is not None:
        for tribe in s.tribes:
            if tribe.camp == t:
                return f"the Encampment of the {tribe_name(tribe.name)}"
    m = re.fullmatch(r"([a-z]+?)_?([a-z]|\d+)", t)
    if m and m.group(1) in KINDS:
        return f"{KINDS[m.group(1)]} {m.group(2).upper()}"
    return titled(t)


def tree_name(tid: Any) -> str:
    m = re.fullmatch(r"tree(\d+)", str(tid))
    return f"Tree {m.group(1)}" if m else "a tree"


def tribe_name(key: Any) -> str:
    if key == "neutral":
        return "neutral"
    t = TRIBES.get(str(key))
    return str(t["name"]) if t else titled(str(key))


def card_name(cid: Any) -> str:
    """A card by its name, and by its printed letter or number where its tribe has another card
    of that name (the reference pool repeats names): “Scouting” (card A)."""
    c = CARD_BY_ID.get(str(cid))
    if not c:
        return "a card"
    twins = [x for x in CARD_BY_ID.values() if x["name"] == c["name"] and x["tribe"] == c["tribe"]]
    mark = str(cid).rpartition("-")[2]
    return f"\u201c{c['name']}\u201d" + (f" (card {mark.upper()})" if len(twins) > 1 else "")


def stance_name(sid: Any) -> str:
    st = STANCES.get(str(sid))
    return f"\u201c{titled(str(st['name']).lower())}\u201d" if st else "a stance card"


def fury_name(fid: Any) -> str:
    f = FURY_CARDS.get(str(fid))
    return f"\u201c{titled(str(f['name']).lower())}\u201d" if f else "a Fury card"


def unit_type_name(tribe: str, utype: Any) -> str:
    t = TRIBES.get(tribe)
    u = t["units"].get(str(utype)) if t else None
    return str(u["name"]) if u else titled(str(utype))


def _token(tok: Any) -> str:
    """A drawn insight token [owner, type] as words: "a Vikings circle token"."""
    if isinstance(tok, (list, tuple)) and len(tok) == 2:
        owner = "neutral" if tok[0] == "neutral" else tribe_name(tok[0])
        return f"{article(owner)} {tok[1]} insight token"
    return "an insight token"


def _underside(under: Any) -> str:
    m = re.fullmatch(r"([a-z]+)(\d+)(p?)", str(under))
    if not m:
        return "its underside"
    kind = "insight of any kind" if m.group(1) == "any" else f"{m.group(1)} insight"
    return f"{m.group(2)} {kind}" + (" and one more" if m.group(3) else "")


def _seat_of_tribe(s: State, tribe: Any) -> int | None:
    for i, tr in enumerate(s.tribes):
        if tr.name == tribe:
            return i
    return None


def _side(s: State, side: Any, names: Sequence[str]) -> str:
    if side == "dragon" or side == -1:
        return "the Dragon"
    seat = side if isinstance(side, int) else _seat_of_tribe(s, side)
    if seat is None or not 0 <= seat < len(s.tribes):
        return tribe_name(side)
    return f"{seat_name(names, seat)} ({tribe_name(s.tribes[seat].name)})"


def _find_unit(s: State, uid: Any) -> tuple[int, Any] | None:
    for i, tr in enumerate(s.tribes):
        for u in tr.units:
            if u.id == uid:
                return i, u
    return None


def _units(s: State, uids: Iterable[Any], viewer: int | None, names: Sequence[str],
           types: Mapping[str, Any] | None = None, me: int | None = None) -> str:
    """Units as the viewer may know them, by owner: "ann's Bards and 2 hidden units", "their Ox"."""
    by_owner: dict[int, tuple[dict[str, int], list[int]]] = {}
    for uid in uids:
        found = _find_unit(s, uid)
        known: str | None
        if found is None:
            # an encounter's options name unit types ("dispel:bards+hunters"), shown to all
            owner = next((i for i, tr in enumerate(s.tribes) if str(uid) in TRIBES[tr.name]["units"]), None)
            if owner is None:
                continue
            seat, known = owner, str(uid)
        else:
            seat, u = found
            given = (types or {}).get(str(uid))
            known = None if given is None else str(given)
            if known is None and (seat == viewer or viewer == EVERYTHING_SHOWN or not u.hidden):
                known = u.type
        counts, hidden = by_owner.setdefault(seat, ({}, [0]))
        if known:
            name = unit_type_name(s.tribes[seat].name, known)
            counts[name] = counts.get(name, 0) + 1
        else:
            hidden[0] += 1
    if not by_owner:
        return "units"
    out = []
    for seat, (counts, hidden) in by_owner.items():
        # "2 Hunters": a count where more than one unit of a type goes, so that answers taking
        # one or two of them read apart
        named = [name if k == 1 else f"{k} {name}" for name, k in counts.items()]
        one = "a hidden unit" if named else "hidden unit"
        items = named + ([plural(hidden[0], "hidden unit")] if hidden[0] > 1 else [one] if hidden[0] else [])
        who = "their" if me is not None and seat == me else f"{seat_name(names, seat)}'s"
        out.append(f"{who} {listing(items)}")
    return listing(out)


# --- prompts ----------------------------------------------------------------------------------


def describe_prompt(s: State, viewer: int | None, names: Sequence[str]) -> str:
    p = s.prompt
    if p is None:
        return "The game is over." if s.outcome else "Nobody is to act."
    who = listing(seat_name(names, x) for x in p.seats)
    o = p.options
    extra = ""
    if p.kind == "action" and o.get("action"):
        extra = f" (action {o['action']} of 2)"
    elif o.get("territory"):
        extra = f" in {territory(o['territory'], s)}"
    elif o.get("from"):
        extra = f" from {territory(o['from'], s)}"
    elif isinstance(o.get("leg"), str) and "->" in o["leg"]:
        a, _, b = o["leg"].partition("->")
        extra = f" from {territory(a, s)} to {territory(b, s)}"
    elif o.get("tribe") and p.kind == "tribe_action":
        extra = f" ({tribe_name(o['tribe'])})"
    return f"{who}: {_asked(s, p.kind, o)}{extra}."


def _asked(s: State, kind: str, o: Mapping[str, Any]) -> str:
    """What this prompt asks, read off its task where one kind asks different things."""
    stack = s.ctl.get("stack") or []
    task: Mapping[str, Any] = stack[-1] if stack else {}
    if kind == "start" and task.get("mode") == "announce":
        return f"start of turn: with {o.get('vp', 4)} VP you may announce victory, or play on"
    if kind == "tree" and o.get("stage") == "pay":
        return f"pay {tree_name(o.get('tree'))}'s cost in insight tokens, or skip"
    if kind == "may":
        cost = {"pay": "pay insight", "reveal": "reveal an insight token", "discard": "discard a card"}
        return f"you may {cost.get(str(task.get('cost')), 'pay')} for the card's next effect, or skip it"
    if kind == "bright":
        # the card goes unnamed: its name may hold a unit type ("Master Hunters") that the met
        # units, hidden, do not show; the holder's own answers name it
        where = listing(territory(x, s) for x in task.get("terrs", ()))
        return (f"the {tribe_name(_tribe_of(s, task.get('by')))}' units enter {where}, where theirs stand: they may "
                "play a bright-border card (usable outside their turn) before the encounter, or pass")
    return PROMPTS.get(kind, "choose one of the options")


def _tribe_of(s: State, seat: Any) -> str:
    return s.tribes[seat].name if isinstance(seat, int) and 0 <= seat < len(s.tribes) else ""


# --- commands ---------------------------------------------------------------------------------

EFFECT_WORDS = {
    "dispel_enemy": "dispel enemy units", "dispel_dragon": "dispel the Dragon", "dispel_own": "dispel your units",
    "enemy_to_camp": "send enemy units home", "own_to_camp": "send your units home",
    "move_own": "move your units", "hide_own": "hide your units", "boost": "boost",
    "gain_insight": "gain insight", "fury_up": "raise your Fury", "fury_down": "lower your Fury",
    "dominance": "rise in dominance", "end_encounter": "end the encounter", "lose_insight": "lose insight",
    "reveal_all_insight": "reveal all insight", "explore": "explore", "move_unit": "move a unit",
    "empower": "empower", "dragon_move": "move the Dragon", "dragon_reach": "call the Dragon",
    "alter_tree": "alter a tree", "check_tree": "check a tree", "peek_dragon": "look at the Dragon pile",
    "hide_all": "hide all your units", "return_unit": "return a unit", "may": "pay for an effect",
}


def _card_option(s: State, i: int) -> str:
    """A "Choose one" box's option by what it does, numbered as the notation types it."""
    stack = s.ctl.get("stack") or []
    task = stack[-1] if stack else {}
    opts = task.get("options") if task.get("k") == "opt" else None
    if not isinstance(opts, list) or not 0 <= i < len(opts):
        return f"option {i}"
    words = listing(EFFECT_WORDS.get(str(e.get("do", "")), "an effect") for e in opts[i])
    return f"option {i}: {words}"


def _held(s: State, seat: Any, idx: Iterable[Any], viewer: int | None) -> str:
    """Insight tokens by their place in the tribe's row (as the notation numbers them), each with
    what the viewer may know of it: "insight tokens 0 (a hidden neutral square) and 2"."""
    toks = s.tribes[seat].tokens if isinstance(seat, int) and 0 <= seat < len(s.tribes) else ()
    shown = viewer in (seat, EVERYTHING_SHOWN)
    items = []
    for x in idx:
        i = int(x) if str(x).isdigit() else -1
        if not 0 <= i < len(toks):
            items.append("an insight token")
            continue
        t = toks[i]
        owner = "neutral" if t.owner == "neutral" else tribe_name(t.owner)
        what = f"{'a hidden' if t.hidden else 'a revealed'} {owner} {t.type}" if shown or not t.hidden else "hidden"
        items.append(f"{i} ({what})")
    n = len(items)
    if n and all(x[0].isdigit() for x in items):
        return f"insight token{'s' if n > 1 else ''} {listing(items)}"
    return listing(items, empty="no insight token")


def _option(s: State, opt: str, seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    parts = opt.split(":")
    head = parts[0]
    me = seat if isinstance(seat, int) else None  # the chooser's own units are "their"
    if head == "enc" and len(parts) == 4:
        return f"the encounter of {_side(s, parts[2], names)} and {_side(s, parts[3], names)} in {territory(parts[1], s)}"
    if head == "unit" and len(parts) == 2:
        return f"to act with {_units(s, [parts[1]], viewer, names, me=me)}"
    if head == "dispel" and len(parts) == 2:
        return f"to dispel {_units(s, parts[1].split('+'), viewer, names, me=me)}"
    if head == "to" and len(parts) >= 2:
        dest = parts[1].split("+")
        text = f"to move all units to {territory(dest[0], s)}"
        if len(dest) == 2 and len(parts) == 3:
            text += f" but {_units(s, [parts[2]], viewer, names, me=me)} to {territory(dest[1], s)}"
        return text
    if head in ("move", "comp") and len(parts) == 3:
        how = "through the Root Tunnel " if head == "comp" else ""
        found = _find_unit(s, parts[1])
        src = f"from {territory(found[1].loc, s)} " if found and found[1].loc and head == "move" else ""
        state = (" (hidden)" if found[1].hidden else " (revealed)") if found and found[0] == viewer else ""
        return f"to move {_units(s, [parts[1]], viewer, names, me=me)}{state} {src}{how}to {territory(parts[2], s)}"
    if head == "hide" and len(parts) == 2:
        return f"to hide {_units(s, [parts[1]], viewer, names, me=me)}"
    if head == "exchange":
        return f"to exchange {_held(s, seat, parts[1:], viewer)}"
    if head == "check" and len(parts) == 2:
        return f"to check {tree_name(parts[1])}"
    if head == "plan" and len(parts) == 3:
        then = "boost" if parts[1] == "boost" else "take the idea"
        return f"to reveal {_held(s, seat, parts[2:], viewer)} and {then}"
    if head == "reward" and len(parts) >= 2:
        return {"boost": "the reward: boost", "insight": "the reward: an insight token",
                "dragon": "the reward: move the Dragon"}.get(parts[1], f"the reward: check {tree_name(parts[-1])}")
    if head == "dragon" and len(parts) == 2:
        return f"to move the Dragon to {territory(parts[1], s)}"
    if head == "tree" and len(parts) == 2:
        return tree_name(parts[1])
    if head == "opt" and len(parts) == 2 and parts[1].isdigit():
        return _card_option(s, int(parts[1]))
    if head == "first" and len(parts) == 2:
        return f"{_side(s, parts[1], names)} to go first"
    if opt == "reveal_fury":
        return "to reveal a Fury card"
    if head == "stay" and len(parts) == 2:
        return "dominance" if parts[1] == "dominance" else "an insight token"
    if opt in ("chaos", "dreams"):
        return f"\u201c{opt.capitalize()}\u201d"
    return "an option"


def describe_command(s: State, c: Command, viewer: int | None, names: Sequence[str]) -> str:
    who = seat_name(names, c.seat)
    a = c.args
    v = c.type.partition(".")[2]
    mine = viewer is not None and viewer in (c.seat, EVERYTHING_SHOWN)
    if v == "stance":
        unit = a.get("unit")
        tribe = s.tribes[c.seat].name if isinstance(c.seat, int) and c.seat < len(s.tribes) else ""
        if "card" in a and mine:
            return f"{who} chooses the stance {stance_name(a['card'])} for their {unit_type_name(tribe, unit)}."
        return f"{who} chooses a stance card, face down, for their {unit_type_name(tribe, unit)}."
    if v == "choose":
        return f"{who} chooses {_option(s, str(a.get('option', '')), c.seat, viewer, names)}."
    if v == "explore":
        via = [territory(x, s) for x in a.get("via", [])]
        if a.get("dir") == "in":
            return f"{who} explores into {territory(a.get('target'), s)} from {listing(via)}."
        return f"{who} explores out of {territory(a.get('target'), s)} into {listing(via)}."
    if v == "take":
        units = list(a.get("units", []))
        return f"{who} takes {_units(s, units, viewer, names, me=c.seat)} along." if units else f"{who} takes no unit along."
    if v == "pay":
        return f"{who} pays {_held(s, c.seat, a.get('tokens', []), viewer)}."
    if v == "reveal":
        return f"{who} reveals {_held(s, c.seat, [a.get('token')], viewer)}."
    if v == "special":
        return f"{who} plays {card_name(a.get('card'))}."
    if v == "empower":
        eff, _, tok = str(a.get("effect", "")).partition(":")
        how = f"to exchange {_held(s, c.seat, [tok], viewer)}" if eff == "exchange" and tok else EMPOWER.get(eff, "")
        return f"{who} empowers {card_name(a.get('card'))} {how}".rstrip() + "."
    if v == "discard":
        return f"{who} discards {card_name(a.get('card'))}."
    if v == "plan":
        return f"{who} plans: takes new ideas."
    if v == "poison":
        return f"{who} poisons {tree_name(a.get('tree'))}."
    if v == "return":
        return f"{who} returns {_units(s, [a.get('unit')], viewer, names, me=c.seat)} to the Encampment."
    if v == "skip" and s.prompt is not None and s.prompt.kind == "bright":
        return f"{who} passes: plays no bright-border card now."
    if v == "skip":
        return f"{who} skips."
    if v == "announce":
        return f"{who} announces victory."
    return sentence(f"{who}: {titled(v).lower()}", cap=False)


# --- events -----------------------------------------------------------------------------------

EventWords = Callable[[State, Mapping[str, Any], Any, "int | None", Sequence[str]], "Told | str"]


def _secret(d: Mapping[str, Any]) -> Mapping[str, Any]:
    got = d.get("secret")
    return got if isinstance(got, Mapping) else {}


def _setup(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> Told:
    tribes = [f"{seat_name(names, i)} leads the {tribe_name(t)}" for i, t in enumerate(d.get("tribes", []))]
    return Told(f"Dragon Dale begins: {listing(tribes)}; the Dragon starts in {territory(d.get('dragon'), s)}.",
                heading="Set-up")


def _tribe_setup(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    who = seat_name(names, seat)
    n = len(d.get("units", []))
    text = f"{who}'s {tribe_name(d.get('tribe'))} set up with {plural(n, 'unit')}"
    hand = _secret(d).get("hand")
    if isinstance(hand, list) and hand:
        cards = listing(card_name(x) for x in hand)
        text += f"; your hand: {cards}" if viewer == seat else f"; {who} holds {cards}"
    return text + "."


def _moved(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    legs: dict[tuple[str, str], list[str]] = {}
    for m in d.get("moves", []):
        if isinstance(m, (list, tuple)) and len(m) == 3:
            legs.setdefault((str(m[1]), str(m[2])), []).append(m[0])
    parts = [f"from {territory(a, s)} to {territory(b, s)}: {_units(s, us, viewer, names)}" for (a, b), us in legs.items()]
    return ("Moved " + "; ".join(parts) + ".") if parts else "No unit moves."


def _stance_chosen(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    tribe = s.tribes[seat].name if isinstance(seat, int) and seat < len(s.tribes) else ""
    unit = unit_type_name(tribe, d.get("unit"))
    card = _secret(d).get("card")
    if card:
        return f"{seat_name(names, seat)} chooses {stance_name(card)} for their {unit}, face down."
    return f"{seat_name(names, seat)} chooses a stance card for their {unit}, face down."


def _insight_drawn(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> Told:
    tok = _secret(d).get("token")
    what = _token(tok) if tok else "an insight token"
    return Told(f"{seat_name(names, seat)} draws {what} from the bag.", draw="insight token drawn")


def _picked(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    typ = _secret(d).get("type")
    owner = tribe_name(d.get("owner"))
    what = f"{article(owner)} {typ} insight token" if typ else f"{article(owner)} insight token"
    return f"{seat_name(names, seat)} picks up {what} in {territory(d.get('where'), s)}."


def _paid(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    tok = _secret(d).get("token") or d.get("token")
    return f"{seat_name(names, seat)} pays {_token(tok) if tok else 'a hidden insight token'}."


def _encounter(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> Told:
    sides = [_side(s, x, names) for x in d.get("sides", [])]
    return Told(f"An encounter begins in {territory(d.get('territory'), s)}: {listing(sides)}.",
                heading=f"Encounter in {territory(d.get('territory'), s)}")


def _initiative(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    ini = d.get("initiative", {})
    parts = [f"{_side(s, k, names)} {v}" for k, v in ini.items()] if isinstance(ini, Mapping) else []
    return f"Initiative: {listing(parts)}; {_side(s, d.get('first'), names)} acts first."


def _dragon_drawn(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> Told:
    card = str(d.get("card"))
    m = re.fullmatch(r"(ash|oak|yew)\d+", card)
    what = f"an {m.group(1).capitalize()} movement card" if m and m.group(1)[0] in "aeiou" else (
        f"a {m.group(1).capitalize()} movement card" if m else "a Stay card")
    return Told(f"The Dragon's movement card is drawn: {what}.", heading="The Dragon",
                draw=f"Dragon card: {what.split(' ', 1)[1]}")


def _revealed_units(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    units = d.get("units", {})
    if not isinstance(units, Mapping) or not units:
        return "No unit is revealed."
    return f"Revealed: {_units(s, list(units), viewer, names, types=units)}."


def _dispelled(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    units = d.get("units", {})
    ids = list(units) if isinstance(units, (Mapping, list)) else []
    types = units if isinstance(units, Mapping) else None
    return f"Dispelled: {_units(s, ids, viewer, names, types=types)}."


def _ended(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> Told:
    winners = listing(seat_name(names, x) for x in d.get("winners", []))
    reason = str(d.get("reason") or "")
    return Told(f"{winners} wins" + (f": {reason}." if reason else "."), heading="The end")


def _prompt_changed(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    ctl = d.get("ctl")
    p = ctl.get("prompt") if isinstance(ctl, Mapping) else None
    if not isinstance(p, Mapping):
        return "Nobody is to act."
    seats = list(p.get("seats", []))
    who = listing(seat_name(names, x) for x in seats)
    return f"Next: {who} {'is' if len(seats) == 1 else 'are'} to {PROMPTS.get(str(p.get('kind')), 'choose')}."


def _fury_moved(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    return f"{seat_name(names, seat)}'s Fury moves to {d.get('to')}."


def _dominance(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
    order = [_side(s, x, names) for x in d.get("order", [])]
    return f"Dominance, from highest: {listing(order)}."


def _hidden_seen(template: str, key: str, fn: Callable[[Any], str]) -> EventWords:
    def words(s: State, d: Mapping[str, Any], seat: Any, viewer: int | None, names: Sequence[str]) -> str:
        got = _secret(d).get(key)
        return template.format(who=seat_name(names, seat), what=f": {fn(got)}" if got else "")
    return words


EVENTS: dict[str, EventWords] = {
    "dragondale.GameSetUp": _setup,
    "dragondale.TribeSetUp": _tribe_setup,
    "dragondale.StanceTodo": lambda s, d, seat, v, n: "Each tribe chooses its stance cards.",
    "dragondale.PromptChanged": _prompt_changed,
    "dragondale.StanceChosen": _stance_chosen,
    "dragondale.StanceRevealed": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} reveals the stance {stance_name(d.get('card'))}."),
    "dragondale.StancesHidden": lambda s, d, seat, v, n: f"{seat_name(n, seat)}'s stance cards go face down again.",
    "dragondale.StartingTribeChosen": lambda s, d, seat, v, n: (
        f"The {tribe_name(d.get('tribe'))} are the starting tribe."),
    "dragondale.TurnStarted": lambda s, d, seat, v, n: Told(
        f"Turn {d.get('turn')}: {seat_name(n, d.get('seat'))}'s turn."),
    "dragondale.CardPlayed": lambda s, d, seat, v, n: f"{seat_name(n, seat)} plays {card_name(d.get('card'))}"
                                                     + (" outside their turn (bright border)." if d.get("bright") else "."),
    "dragondale.CardEmpowered": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} empowers {card_name(d.get('card', _secret(d).get('card')))} "
        f"{EMPOWER.get(str(d.get('effect', '')).partition(':')[0], '')}".rstrip() + "."),
    "dragondale.CardBoosted": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} boosts: {card_name(d.get('card'))} comes from the Library."),
    "dragondale.CardDiscarded": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} discards {card_name(d.get('card', _secret(d).get('card')))}."),
    "dragondale.CardExchanged": lambda s, d, seat, v, n: f"{seat_name(n, seat)} exchanges a card.",
    "dragondale.FuryMoved": _fury_moved,
    "dragondale.InsightDrawn": _insight_drawn,
    "dragondale.InsightPickedUp": _picked,
    "dragondale.InsightPaid": _paid,
    "dragondale.InsightRevealed": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} reveals a {d.get('type')} insight token." if d.get("type") else
        f"{seat_name(n, seat)} reveals an insight token."),
    "dragondale.InsightCommitted": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} stakes a {_secret(d)['type']} insight token, face down." if _secret(d).get("type")
        else f"{seat_name(n, seat)} stakes an insight token, face down."),
    "dragondale.StakeRevealed": lambda s, d, seat, v, n: f"{seat_name(n, seat)}'s stake is revealed: {d.get('type')}.",
    "dragondale.StakePaid": lambda s, d, seat, v, n: f"{seat_name(n, seat)} pays the stake.",
    "dragondale.IdeasPlanned": lambda s, d, seat, v, n: f"{seat_name(n, seat)} plans: {plural(int(d.get('count') or 0), 'idea')} on offer.",
    "dragondale.IdeaTaken": _hidden_seen("{who} takes an idea{what}.", "card", card_name),
    "dragondale.TreeChecked": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} checks {tree_name(d.get('tree'))}"
        + (f": its underside shows {_underside(_secret(d)['under'])}." if _secret(d).get("under") else ".")),
    "dragondale.TreeRevealed": lambda s, d, seat, v, n: (
        f"{tree_name(d.get('tree'))} is turned over: {_underside(d.get('underside'))}."),
    "dragondale.TreeAltered": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} {({'felled': 'fells', 'cursed': 'curses', 'blessed': 'blesses'}).get(str(d.get('state')), 'alters')} "
        f"{tree_name(d.get('tree'))}" + (" (protected)." if d.get("protected") else ".")),
    "dragondale.TreePoisoned": lambda s, d, seat, v, n: f"{seat_name(n, seat)} poisons {tree_name(d.get('tree'))}.",
    "dragondale.TreesShuffled": lambda s, d, seat, v, n: "The trees are shuffled.",
    "dragondale.WoodSecured": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} secures the wood of {listing(tree_name(t) for t in d.get('trees', []))}."),
    "dragondale.UnitsMoved": _moved,
    "dragondale.UnitsPlaced": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} places {plural(len(d.get('units', [])), 'unit')} in {territory(d.get('to'), s)}"
        + (", hidden." if d.get("hide") else ".")),
    "dragondale.UnitsHidden": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} hides {plural(len(d.get('units', [])), 'unit')}."),
    "dragondale.UnitsMixed": lambda s, d, seat, v, n: (
        f"{seat_name(n, seat)} mixes their hidden units in {territory(d.get('at'), s)}."),
    "dragondale.UnitsRevealed": _revealed_units,
    "dragondale.UnitsDispelled": _dispelled,
    "dragondale.EncounterStarted": _encounter,
    "dragondale.InitiativeDetermined": _initiative,
    "dragondale.EncounterEnded": lambda s, d, seat, v, n: f"The encounter in {territory(d.get('territory'), s)} ends.",
    "dragondale.DragonCardDrawn": _dragon_drawn,
    "dragondale.DragonDeckShuffled": lambda s, d, seat, v, n: Told("The Dragon's movement cards are shuffled.",
                                                                    draw="Dragon deck shuffled"),
    "dragondale.DragonMoved": lambda s, d, seat, v, n: (
        f"The Dragon moves from {territory(d.get('from'), s)} to {territory(d.get('to'), s)}."),
    "dragondale.DragonReturned": lambda s, d, seat, v, n: f"The Dragon returns to {territory(d.get('to'), s)}.",
    "dragondale.DragonDispelled": lambda s, d, seat, v, n: f"{seat_name(n, seat)} bests the Dragon.",
    "dragondale.DragonPeeked": _hidden_seen("{who} looks at the Dragon's next movement card{what}.", "card",
                                            lambda c: "a Stay card" if str(c).startswith("stay") else
                                            f"{str(c).rstrip('0123456789').capitalize()}"),
    "dragondale.FuryCardRevealed": lambda s, d, seat, v, n: (
        f"The Fury card at {d.get('level')} is turned up: {fury_name(d.get('card'))}."),
    "dragondale.FuryCardsReshuffled": lambda s, d, seat, v, n: Told("The Fury cards are shuffled.",
                                                                     draw="Fury cards shuffled"),
    "dragondale.FuryTokensExchanged": lambda s, d, seat, v, n: "The insight tokens of the Fury track are exchanged.",
    "dragondale.DominanceChanged": _dominance,
    "dragondale.InitiativeRolled": lambda s, d, seat, v, n: "Initiative is rolled.",
    "dragondale.GameEnded": _ended,
}


# Bookkeeping a reader may skip: a headed step's summary leaves these out.
QUIET = frozenset({"dragondale.PromptChanged", "dragondale.StanceTodo", "dragondale.TurnStarted"})


def describe_event(s: State, e: Event, viewer: int | None, names: Sequence[str]) -> Told:
    return tell(EVENTS, QUIET, e.type, s, e.data, e.seat, viewer, names)


# --- touched ----------------------------------------------------------------------------------


def touched(s: State, c: Command | None, events: Sequence[Event]) -> list[str]:
    terr = board_for(s.n).terr if s.n else {}
    sources: list[Any] = []
    if c is not None:
        sources.append(c.args)
        opt = c.args.get("option")
        if isinstance(opt, str):
            sources.append({"at": [p for p in re.split(r"[:+]", opt) if p in terr]})
    for e in events:
        if e.type == "dragondale.PromptChanged":
            continue
        if e.type == "dragondale.UnitsMoved":
            sources.extend({"from": m[1], "to": m[2]} for m in e.data.get("moves", []) if len(m) == 3)
        sources.append({k: v for k, v in e.data.items() if k != "secret"})
    return places(*sources, keys=("from", "via", "at", "to", "target", "territory", "where"), valid=terr)
