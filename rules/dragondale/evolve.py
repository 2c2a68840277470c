"""Folding events into state: pure, never draws."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core import Event, Prompt
from rules.dragondale.content import FURY_CARDS, LOW, START
from rules.dragondale.state import State, Token, Tree, TribeState, Unit, with_

Handler = Callable[[State, Any, Any], State]
_H: dict[str, Handler] = {}


def _on(name: str) -> Callable[[Handler], Handler]:
    def deco(f: Handler) -> Handler:
        _H["dragondale." + name] = f
        return f

    return deco


def evolve(state: State, event: Event) -> State:
    h = _H.get(event.type)
    if h is None:
        raise ValueError(f"unknown event {event.type}")
    return h(state, event.data, event.seat)


def _tr(s: State, seat: int, **kw: Any) -> State:
    tribes = list(s.tribes)
    tribes[seat] = with_(tribes[seat], **kw)
    return with_(s, tribes=tuple(tribes))


def _tok(x: list[Any], hidden: bool = True) -> Token:
    return Token(x[0], x[1], hidden)


def _bag_add(bag: dict[str, int], tok: Token) -> dict[str, int]:
    out = dict(bag)
    key = f"{tok.owner}:{tok.type}"
    out[key] = out.get(key, 0) + 1
    return out


def _add_idea(ideas: tuple[str, ...], card: str) -> tuple[str, ...]:
    """Put a card on top of Ideas, below a TOP card if one is there (last = top)."""
    if ideas and ideas[-1].endswith("-A"):
        return (*ideas[:-1], card, ideas[-1])
    return (*ideas, card)


@_on("GameSetUp")
def _setup(s: State, d: Any, seat: Any) -> State:
    sec = d["secret"]
    terr_tokens = {t: tuple(_tok(x) for x in lst) for t, lst in sec["terr_tokens"].items()}
    fury_tokens = {lv: _tok(x) for lv, x in sec["fury_tokens"].items()}
    trees = tuple(Tree(t, sec["under"][t], "unaltered", None, None, False, False) for t in d["trees"])
    return with_(
        s, n=d["n"], board=d["board"], experienced=d["experienced"], order=tuple(d["order"]),
        tribes=tuple(TribeState(name=t, camp=c) for t, c in zip(d["tribes"], d["camps"], strict=True)),
        bag=dict(sec["bag"]), terr_tokens=terr_tokens, fury_tokens=fury_tokens,
        fury_cards=tuple((c, False) for c in sec["fury_cards"]), fury_top=tuple(d["fury_top"]),
        fury_bottom=tuple(d["fury_bottom"]), dominance=tuple(d["dominance"]), dragon=d["dragon"],
        stone=d["stone"], mdeck=tuple(sec["mdeck"]), trees=trees,
    )


@_on("TribeSetUp")
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


@_on("PromptChanged")
def _awaiting(s: State, d: Any, seat: Any) -> State:
    ctl = d["ctl"]
    p = ctl.get("prompt")
    prompt = None if p is None else Prompt(tuple(p["seats"]), p["kind"], p.get("options", {}))
    return with_(s, ctl=ctl, prompt=prompt)


@_on("TurnStarted")
def _turn(s: State, d: Any, seat: Any) -> State:
    return with_(s, turn_no=d["turn"])


@_on("StanceChosen")
def _stance(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    card = d["secret"]["card"]
    st = tuple((u, card if u == d["unit"] else c) for u, c in t.stances)
    return _tr(s, seat, stances=st, stance_todo=tuple(x for x in t.stance_todo if x != d["unit"]))


@_on("StanceTodo")
def _todo(s: State, d: Any, seat: Any) -> State:
    tribes = list(s.tribes)
    for k, types in d["todo"].items():
        tribes[int(k)] = with_(tribes[int(k)], stance_todo=tuple(types))
    return with_(s, tribes=tuple(tribes))


def _map_units(s: State, seat: int, f: Callable[[Unit], Unit]) -> State:
    return _tr(s, seat, units=tuple(f(u) for u in s.tribes[seat].units))


@_on("UnitsMoved")
def _moved(s: State, d: Any, seat: int) -> State:
    to = {m[0]: m[2] for m in d["moves"]}
    return _map_units(s, seat, lambda u: u._replace(loc=to[u.id]) if u.id in to else u)


@_on("UnitsRevealed")
def _revealed(s: State, d: Any, seat: int) -> State:
    ids = d["units"]
    return _map_units(s, seat, lambda u: u._replace(hidden=False) if u.id in ids else u)


@_on("UnitsHidden")
def _hidden(s: State, d: Any, seat: int) -> State:
    ids = set(d["units"])
    return _map_units(s, seat, lambda u: u._replace(hidden=True) if u.id in ids else u)


@_on("UnitsDispelled")
def _dispelled(s: State, d: Any, seat: int) -> State:
    ids = d["units"]
    return _map_units(s, seat, lambda u: u._replace(loc=None, hidden=False) if u.id in ids else u)


@_on("UnitsPlaced")
def _placed(s: State, d: Any, seat: int) -> State:
    ids = set(d["units"])
    hide = set(d["hide"])
    return _map_units(
        s, seat, lambda u: u._replace(loc=d["to"], hidden=u.id in hide) if u.id in ids else u
    )


@_on("InsightDrawn")
def _drawn(s: State, d: Any, seat: int) -> State:
    tok = _tok(d["secret"]["token"])
    bag = dict(s.bag)
    key = f"{tok.owner}:{tok.type}"
    bag[key] -= 1
    if not bag[key]:
        del bag[key]
    return with_(_tr(s, seat, tokens=(*s.tribes[seat].tokens, tok)), bag=bag)


@_on("InsightPickedUp")
def _picked(s: State, d: Any, seat: int) -> State:
    where = d["where"]
    tok = Token(d["owner"], d["secret"]["type"], True)
    if where.startswith("fury:"):
        ft = dict(s.fury_tokens)
        del ft[where[5:]]
        s = with_(s, fury_tokens=ft)
    else:
        tt = dict(s.terr_tokens)
        lst = list(tt[where])
        lst.remove(tok)
        if lst:
            tt[where] = tuple(lst)
        else:
            del tt[where]
        s = with_(s, terr_tokens=tt)
    return _tr(s, seat, tokens=(*s.tribes[seat].tokens, tok))


@_on("InsightPaid")
def _paid(s: State, d: Any, seat: int) -> State:
    toks = list(s.tribes[seat].tokens)
    tok = toks.pop(d["index"])
    return with_(_tr(s, seat, tokens=tuple(toks)), bag=_bag_add(s.bag, tok))


@_on("InsightRevealed")
def _irevealed(s: State, d: Any, seat: int) -> State:
    toks = list(s.tribes[seat].tokens)
    toks[d["index"]] = toks[d["index"]]._replace(hidden=False)
    return _tr(s, seat, tokens=tuple(toks))


@_on("InsightCommitted")
def _committed(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    toks = list(t.tokens)
    tok = toks.pop(d["index"])
    return _tr(s, seat, tokens=tuple(toks), staked=(*t.staked, tok))


@_on("StakeRevealed")
def _stake_rev(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    return _tr(s, seat, staked=tuple(k._replace(hidden=False) for k in t.staked))


@_on("StakePaid")
def _stake_paid(s: State, d: Any, seat: int) -> State:
    bag = s.bag
    for k in s.tribes[seat].staked:
        bag = _bag_add(bag, k)
    return with_(_tr(s, seat, staked=()), bag=bag)


@_on("CardBoosted")
def _boosted(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    return _tr(s, seat, library=t.library[1:], ideas=_add_idea(t.ideas, d["card"]))


@_on("CardEmpowered")
def _empowered(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    lib = list(t.library)
    lib.remove(d["card"])
    return _tr(s, seat, library=tuple(lib), ideas=_add_idea(t.ideas, d["card"]))


@_on("CardPlayed")
def _played(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    hand = list(t.hand)
    hand.remove(d["card"])
    return _tr(s, seat, hand=tuple(hand), ideas=_add_idea(t.ideas, d["card"]))


_H["dragondale.CardDiscarded"] = _played


@_on("CardExchanged")
def _exchanged(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    ideas = tuple(c for c in t.ideas if c != d["old"])
    return _tr(s, seat, ideas=_add_idea(ideas, d["new"]))


@_on("IdeasPlanned")
def _planned(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    return _tr(s, seat, hand=t.hand + t.ideas, ideas=())


@_on("IdeaTaken")
def _taken(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    card = d["secret"]["card"]
    return _tr(s, seat, hand=(*t.hand, card), ideas=tuple(c for c in t.ideas if c != card))


@_on("FuryMoved")
def _fury(s: State, d: Any, seat: int) -> State:
    return _tr(s, seat, fury=d["to"])


@_on("FuryTokensExchanged")
def _fury_tokens(s: State, d: Any, seat: Any) -> State:
    return with_(s, fury_top=tuple(d["top"]), fury_bottom=tuple(d["bottom"]))


@_on("FuryCardsReshuffled")
def _fury_shuffle(s: State, d: Any, seat: Any) -> State:
    return with_(s, fury_cards=tuple((c, False) for c in d["secret"]["cards"]))


@_on("FuryCardRevealed")
def _fury_reveal(s: State, d: Any, seat: Any) -> State:
    cards = list(s.fury_cards)
    i = d["level"] - LOW
    cards[i] = (cards[i][0], True)
    return with_(s, fury_cards=tuple(cards))


@_on("DominanceChanged")
def _dominance(s: State, d: Any, seat: Any) -> State:
    return with_(s, dominance=tuple(d["order"]))


@_on("DragonCardDrawn")
def _mdraw(s: State, d: Any, seat: Any) -> State:
    tribes = tuple(with_(t, peek=None) if t.peek else t for t in s.tribes)
    return with_(s, mdeck=s.mdeck[1:], tribes=tribes)


@_on("DragonDeckShuffled")
def _mshuffle(s: State, d: Any, seat: Any) -> State:
    tribes = tuple(with_(t, peek=None) if t.peek else t for t in s.tribes)
    return with_(s, mdeck=tuple(d["secret"]["deck"]), tribes=tribes)


@_on("DragonPeeked")
def _mpeek(s: State, d: Any, seat: int) -> State:
    return _tr(s, seat, peek=d["secret"]["card"])


@_on("DragonMoved")
def _dmoved(s: State, d: Any, seat: Any) -> State:
    return with_(s, dragon=d["to"])


@_on("DragonDispelled")
def _ddispelled(s: State, d: Any, seat: int) -> State:
    return with_(s, dragon=None, dragon_vp=seat, stone=seat, dragon_turn=s.turn_no)


@_on("DragonReturned")
def _dreturned(s: State, d: Any, seat: Any) -> State:
    return with_(s, dragon=d["to"], dragon_vp=None)


def _set_tree(s: State, tid: str, **kw: Any) -> State:
    return with_(s, trees=tuple(t._replace(**kw) if t.id == tid else t for t in s.trees))


@_on("TreeChecked")
def _tchecked(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    known = (*tuple(k for k in t.known if k[0] != d["tree"]), (d["tree"], d["secret"]["under"]))
    return _tr(s, seat, known=known)


@_on("TreeRevealed")
def _trevealed(s: State, d: Any, seat: Any) -> State:
    return _set_tree(s, d["tree"], shown=True)


@_on("TreeAltered")
def _taltered(s: State, d: Any, seat: int) -> State:
    s = _set_tree(s, d["tree"], state=d["state"], by=seat, protected=d["protected"], shown=True)
    if d["state"] in ("blessed", "cursed"):
        s = _tr(s, seat, roots=s.tribes[seat].roots - 1)
    return s


@_on("TreesShuffled")
def _tshuffled(s: State, d: Any, seat: Any) -> State:
    under = d["secret"]["under"]
    trees = tuple(t._replace(under=under[t.id], shown=False) if t.id in under else t for t in s.trees)
    tribes = tuple(
        with_(t, known=tuple(k for k in t.known if k[0] not in under)) for t in s.tribes
    )
    return with_(s, trees=trees, tribes=tribes)


@_on("TreePoisoned")
def _tpoisoned(s: State, d: Any, seat: int) -> State:
    s = _set_tree(s, d["tree"], poisoned=seat)
    return _tr(s, seat, tribe_tokens=s.tribes[seat].tribe_tokens - 1)


@_on("StanceRevealed")
def _srevealed(s: State, d: Any, seat: int) -> State:
    t = s.tribes[seat]
    if d["card"] in t.revealed:
        return s
    return _tr(s, seat, revealed=(*t.revealed, d["card"]))


@_on("StancesHidden")
def _shidden(s: State, d: Any, seat: int) -> State:
    return _tr(s, seat, revealed=())


@_on("GameEnded")
def _ended(s: State, d: Any, seat: Any) -> State:
    return with_(s, outcome=dict(d))


def _noop(s: State, d: Any, seat: Any) -> State:
    return s


for _name in ("InitiativeDetermined", "EncounterStarted", "EncounterEnded", "ActionTaken",
              "EffectSkipped", "TribeActed"):
    _H["dragondale." + _name] = _noop

assert FURY_CARDS  # content must be loaded before events fold
