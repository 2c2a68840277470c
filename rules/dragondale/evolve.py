"""Folding events into state: pure, never draws; `HANDLERS` maps each event type to its fold."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules.core import Event, Prompt
from rules.dragondale.content import LOW, START
from rules.dragondale.identity import sort_units
from rules.dragondale.state import State, Token, Tree, TribeState, Unit
from rules.kit import copier

# an event's handler: the state, the event's data and its seat -> the new state
Handler = Callable[[State, Any, Any], State]

_revise = copier(State)
_revise_tribe = copier(TribeState)


def evolve(state: State, event: Event) -> State:
    h = HANDLERS.get(event.type)
    if h is None:
        raise ValueError(f"unknown event {event.type}")
    return h(state, event.data, event.seat)


def _tr(s: State, seat: int, **kw: Any) -> State:
    tribes = list(s.tribes)
    tribes[seat] = _revise_tribe(tribes[seat], **kw)
    return _revise(s, tribes=tuple(tribes))


def _tok(x: list[Any], hidden: bool = True) -> Token:
    return Token(x[0], x[1], hidden)


def _bag_add(bag: Mapping[str, int], tok: Token) -> dict[str, int]:
    out = dict(bag)
    key = f"{tok.owner}:{tok.type}"
    out[key] = out.get(key, 0) + 1
    return out


def top_card_on(ideas: tuple[str, ...]) -> bool:
    """Whether a "(TOP)" card lies on top of an Ideas pile (last = top): a card put there goes
    under it, unseen by the other tribes [Glossary: discard]."""
    return bool(ideas) and ideas[-1].endswith("-A")


def _add_idea(ideas: tuple[str, ...], card: str) -> tuple[str, ...]:
    """Put a card on top of Ideas, below a TOP card if one is there (last = top)."""
    if top_card_on(ideas):
        return (*ideas[:-1], card, ideas[-1])
    return (*ideas, card)


def _setup(s: State, d: Any, seat: Any) -> State:
    sec = d["secret"]
    terr_tokens = {t: tuple(_tok(x) for x in lst) for t, lst in sec["terr_tokens"].items()}
    fury_tokens = {lv: _tok(x) for lv, x in sec["fury_tokens"].items()}
    trees = tuple(Tree(t, sec["under"][t], "unaltered", None, None, False, False) for t in d["trees"])
    return _revise(
        s, n=d["n"], board=d["board"], experienced=d["experienced"], order=tuple(d["order"]),
        tribes=tuple(TribeState(name=t, camp=c) for t, c in zip(d["tribes"], d["camps"], strict=True)),
        bag=dict(sec["bag"]), terr_tokens=terr_tokens, fury_tokens=fury_tokens,
        fury_cards=tuple((c, False) for c in sec["fury_cards"]), fury_top=tuple(d["fury_top"]),
        fury_bottom=tuple(d["fury_bottom"]), dominance=tuple(d["dominance"]), dragon=d["dragon"],
        stone=d["stone"], mdeck=tuple(sec["mdeck"]), trees=trees, rules=int(d.get("rules", 1)),
    )


def _tribe_setup(s: State, d: Any, seat: Any) -> State:
    sec = d["secret"]
    types = sec["types"]
    camp = s.tribes[seat].camp
    units = tuple(Unit(u, types[u], camp, u not in d["always"]) for u in d["units"])
    return _tr(
        s, seat, units=units, hand=tuple(sec["hand"]), library=tuple(sec["library"]),
        ideas=tuple(d["ideas"]), stances=tuple(sorted(sec["stances"].items())),
        tribe_tokens=d["tribe_tokens"], roots=d["roots"], newcomer=d["newcomer"], fury=START,
    )


def _awaiting(s: State, d: Any, seat: Any) -> State:
    ctl = d["ctl"]
    p = ctl.get("prompt")
    prompt = None if p is None else Prompt(tuple(p["seats"]), p["kind"], p.get("options", {}))
    return _revise(s, ctl=ctl, prompt=prompt)


def _turn(s: State, d: Any, seat: Any) -> State:
    return _revise(s, turn_no=d["turn"])


def _first(s: State, d: Any, seat: Any) -> State:
    return _revise(s, order=tuple(d["order"]), dominance=tuple(d["dominance"]), stone=d["stone"])


def _stance(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    card = d["secret"]["card"]
    st = tuple((u, card if u == d["unit"] else c) for u, c in t.stances)
    return _tr(s, seat, stances=st, stance_todo=tuple(x for x in t.stance_todo if x != d["unit"]))


def _todo(s: State, d: Any, seat: Any) -> State:
    tribes = list(s.tribes)
    for k, types in d["todo"].items():
        tribes[int(k)] = _revise_tribe(tribes[int(k)], stance_todo=tuple(types))
    return _revise(s, tribes=tuple(tribes))


def _map_units(s: State, seat: int, f: Callable[[Unit], Unit]) -> State:
    return _tr(s, seat, units=tuple(f(u) for u in s.tribes[seat].units))


def _moved(s: State, d: Any, seat: int) -> State:
    to = {m[0]: m[2] for m in d["moves"]}
    return _map_units(s, seat, lambda u: u._replace(loc=to[u.id]) if u.id in to else u)


def _revealed(s: State, d: Any, seat: int) -> State:
    ids = d["units"]
    return _map_units(s, seat, lambda u: u._replace(hidden=False) if u.id in ids else u)


def _hidden(s: State, d: Any, seat: int) -> State:
    ids = set(d["units"])
    return _map_units(s, seat, lambda u: u._replace(hidden=True) if u.id in ids else u)


def _mixed(s: State, d: Any, seat: int) -> State:
    ids = d["secret"]["ids"]
    units = (u._replace(id=ids[u.id]) if u.id in ids else u for u in s.tribes[seat].units)
    return _tr(s, seat, units=sort_units(units))


def _dispelled(s: State, d: Any, seat: int) -> State:
    ids = d["units"]
    return _map_units(s, seat, lambda u: u._replace(loc=None, hidden=False) if u.id in ids else u)


def _placed(s: State, d: Any, seat: int) -> State:
    ids = set(d["units"])
    hide = set(d["hide"])
    return _map_units(
        s, seat, lambda u: u._replace(loc=d["to"], hidden=u.id in hide) if u.id in ids else u
    )


def _drawn(s: State, d: Any, seat: int) -> State:
    tok = _tok(d["secret"]["token"])
    bag = dict(s.bag)
    key = f"{tok.owner}:{tok.type}"
    bag[key] -= 1
    if not bag[key]:
        del bag[key]
    return _revise(_tr(s, seat, tokens=(*s.tribes[seat].tokens, tok)), bag=bag)


def _picked(s: State, d: Any, seat: int) -> State:
    where = d["where"]
    tok = Token(d["owner"], d["secret"]["type"], True)
    if where.startswith("fury:"):
        ft = dict(s.fury_tokens)
        del ft[where[5:]]
        s = _revise(s, fury_tokens=ft)
    else:
        tt = dict(s.terr_tokens)
        lst = list(tt[where])
        lst.remove(tok)
        if lst:
            tt[where] = tuple(lst)
        else:
            del tt[where]
        s = _revise(s, terr_tokens=tt)
    return _tr(s, seat, tokens=(*s.tribes[seat].tokens, tok))


def _paid(s: State, d: Any, seat: int) -> State:
    toks = list(s.tribes[seat].tokens)
    tok = toks.pop(d["index"])
    return _revise(_tr(s, seat, tokens=tuple(toks)), bag=_bag_add(s.bag, tok))


def _irevealed(s: State, d: Any, seat: int) -> State:
    toks = list(s.tribes[seat].tokens)
    toks[d["index"]] = toks[d["index"]]._replace(hidden=False)
    return _tr(s, seat, tokens=tuple(toks))


def _committed(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    toks = list(t.tokens)
    tok = toks.pop(d["index"])
    return _tr(s, seat, tokens=tuple(toks), staked=(*t.staked, tok))


def _stake_rev(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    return _tr(s, seat, staked=tuple(k._replace(hidden=False) for k in t.staked))


def _stake_paid(s: State, d: Any, seat: int) -> State:
    bag = s.bag
    for k in s.tribes[seat].staked:
        bag = _bag_add(bag, k)
    return _revise(_tr(s, seat, staked=()), bag=bag)


def _boosted(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    return _tr(s, seat, library=t.library[1:], ideas=_add_idea(t.ideas, d["card"]))


def _empowered(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    card = d["card"] if "card" in d else d["secret"]["card"]
    lib = list(t.library)
    lib.remove(card)
    return _tr(s, seat, library=tuple(lib), ideas=_add_idea(t.ideas, card))


def _played(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    hand = list(t.hand)
    hand.remove(d["card"])
    return _tr(s, seat, hand=tuple(hand), ideas=_add_idea(t.ideas, d["card"]))


def _discarded(s: State, d: Any, seat: int) -> State:
    card = d["card"] if "card" in d else d["secret"]["card"]
    return _played(s, {"card": card}, seat)


def _exchanged(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    ideas = tuple(c for c in t.ideas if c != d["old"])
    return _tr(s, seat, ideas=_add_idea(ideas, d["new"]))


def _planned(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    return _tr(s, seat, hand=t.hand + t.ideas, ideas=())


def _taken(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    card = d["secret"]["card"]
    return _tr(s, seat, hand=(*t.hand, card), ideas=tuple(c for c in t.ideas if c != card))


def _fury(s: State, d: Any, seat: int) -> State:
    return _tr(s, seat, fury=d["to"])


def _fury_tokens(s: State, d: Any, seat: Any) -> State:
    return _revise(s, fury_top=tuple(d["top"]), fury_bottom=tuple(d["bottom"]))


def _fury_shuffle(s: State, d: Any, seat: Any) -> State:
    return _revise(s, fury_cards=tuple((c, False) for c in d["secret"]["cards"]))


def _fury_reveal(s: State, d: Any, seat: Any) -> State:
    cards = list(s.fury_cards)
    i = d["level"] - LOW
    cards[i] = (cards[i][0], True)
    return _revise(s, fury_cards=tuple(cards))


def _dominance(s: State, d: Any, seat: Any) -> State:
    return _revise(s, dominance=tuple(d["order"]))


def _mdraw(s: State, d: Any, seat: Any) -> State:
    tribes = tuple(_revise_tribe(t, peek=None) if t.peek else t for t in s.tribes)
    return _revise(s, mdeck=s.mdeck[1:], tribes=tribes)


def _mshuffle(s: State, d: Any, seat: Any) -> State:
    tribes = tuple(_revise_tribe(t, peek=None) if t.peek else t for t in s.tribes)
    return _revise(s, mdeck=tuple(d["secret"]["deck"]), tribes=tribes)


def _mpeek(s: State, d: Any, seat: int) -> State:
    return _tr(s, seat, peek=d["secret"]["card"])


def _dmoved(s: State, d: Any, seat: Any) -> State:
    return _revise(s, dragon=d["to"])


def _ddispelled(s: State, d: Any, seat: int) -> State:
    return _revise(s, dragon=None, dragon_vp=seat, stone=seat, dragon_turn=s.turn_no)


def _dreturned(s: State, d: Any, seat: Any) -> State:
    return _revise(s, dragon=d["to"], dragon_vp=None)


def _set_tree(s: State, tid: str, **kw: Any) -> State:
    return _revise(s, trees=tuple(t._replace(**kw) if t.id == tid else t for t in s.trees))


def _tchecked(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    known = (*tuple(k for k in t.known if k[0] != d["tree"]), (d["tree"], d["secret"]["under"]))
    return _tr(s, seat, known=known)


def _trevealed(s: State, d: Any, seat: Any) -> State:
    return _set_tree(s, d["tree"], shown=True)


def _taltered(s: State, d: Any, seat: int) -> State:
    s = _set_tree(s, d["tree"], state=d["state"], by=seat, protected=d["protected"], shown=True)
    if d["state"] in ("blessed", "cursed"):
        s = _tr(s, seat, roots=s.tribes[seat].roots - 1)
    if d["state"] == "felled":
        s = _revise(s, wood=(*s.wood, d["tree"]))
    return s


def _wood_secured(s: State, d: Any, seat: int) -> State:
    return _revise(s, wood=tuple(t for t in s.wood if t not in d["trees"]))


def _tshuffled(s: State, d: Any, seat: Any) -> State:
    under = d["secret"]["under"]
    trees = tuple(t._replace(under=under[t.id], shown=False) if t.id in under else t for t in s.trees)
    tribes = tuple(
        _revise_tribe(t, known=tuple(k for k in t.known if k[0] not in under)) for t in s.tribes
    )
    return _revise(s, trees=trees, tribes=tribes)


def _tpoisoned(s: State, d: Any, seat: int) -> State:
    s = _set_tree(s, d["tree"], poisoned=seat)
    return _tr(s, seat, tribe_tokens=s.tribes[seat].tribe_tokens - 1)


def _srevealed(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    if d["card"] in t.revealed:
        return s
    return _tr(s, seat, revealed=(*t.revealed, d["card"]))


def _shidden(s: State, d: Any, seat: int) -> State:
    return _tr(s, seat, revealed=())


def _ended(s: State, d: Any, seat: Any) -> State:
    return _revise(s, outcome=dict(d))


def _noop(s: State, d: Any, seat: Any) -> State:
    """Events that only tell the log what happened: the state already shows it."""
    return s


HANDLERS: dict[str, Handler] = {
    "dragondale.GameSetUp": _setup,
    "dragondale.TribeSetUp": _tribe_setup,
    "dragondale.PromptChanged": _awaiting,
    "dragondale.TurnStarted": _turn,
    "dragondale.StartingTribeChosen": _first,
    "dragondale.StanceChosen": _stance,
    "dragondale.StanceTodo": _todo,
    "dragondale.UnitsMoved": _moved,
    "dragondale.UnitsRevealed": _revealed,
    "dragondale.UnitsHidden": _hidden,
    "dragondale.UnitsDispelled": _dispelled,
    "dragondale.UnitsMixed": _mixed,
    "dragondale.UnitsPlaced": _placed,
    "dragondale.InsightDrawn": _drawn,
    "dragondale.InsightPickedUp": _picked,
    "dragondale.InsightPaid": _paid,
    "dragondale.InsightRevealed": _irevealed,
    "dragondale.InsightCommitted": _committed,
    "dragondale.StakeRevealed": _stake_rev,
    "dragondale.StakePaid": _stake_paid,
    "dragondale.CardBoosted": _boosted,
    "dragondale.CardEmpowered": _empowered,
    "dragondale.CardPlayed": _played,
    "dragondale.CardDiscarded": _discarded,
    "dragondale.CardExchanged": _exchanged,
    "dragondale.IdeasPlanned": _planned,
    "dragondale.IdeaTaken": _taken,
    "dragondale.FuryMoved": _fury,
    "dragondale.FuryTokensExchanged": _fury_tokens,
    "dragondale.FuryCardsReshuffled": _fury_shuffle,
    "dragondale.FuryCardRevealed": _fury_reveal,
    "dragondale.DominanceChanged": _dominance,
    "dragondale.DragonCardDrawn": _mdraw,
    "dragondale.DragonDeckShuffled": _mshuffle,
    "dragondale.DragonPeeked": _mpeek,
    "dragondale.DragonMoved": _dmoved,
    "dragondale.DragonDispelled": _ddispelled,
    "dragondale.DragonReturned": _dreturned,
    "dragondale.TreeChecked": _tchecked,
    "dragondale.TreeRevealed": _trevealed,
    "dragondale.TreeAltered": _taltered,
    "dragondale.WoodSecured": _wood_secured,
    "dragondale.TreesShuffled": _tshuffled,
    "dragondale.TreePoisoned": _tpoisoned,
    "dragondale.StanceRevealed": _srevealed,
    "dragondale.StancesHidden": _shidden,
    "dragondale.GameEnded": _ended,
    "dragondale.InitiativeDetermined": _noop,
    "dragondale.EncounterStarted": _noop,
    "dragondale.EncounterEnded": _noop,
}
