"""Property test: no seat (nor a spectator) ever sees another tribe's secrets; no public command,
event or refusal says anything of hidden insight tokens' types; a re-hidden unit cannot be linked
to its earlier public identity."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import Command, Event, IllegalCommand, Rng, SeatInfo, fold
from rules.decider import decide
from rules.dragondale import GAME
from rules.dragondale.content import TRIBES
from rules.dragondale.identity import id_order
from rules.dragondale.state import State, TribeState

SECRET_KEYS = {"secret", "hand", "library", "deck", "stances", "types", "under", "cards"}


def _keys(x: Any) -> set[str]:
    if isinstance(x, dict):
        out = set(x)
        for v in x.values():
            out |= _keys(v)
        return out
    if isinstance(x, list):
        out = set()
        for v in x:
            out |= _keys(v)
        return out
    return set()


def _scramble_tribe(t: TribeState, rnd: random.Random) -> TribeState:
    """Change every secret of a tribe while keeping what is public."""
    hidden = [u for u in t.units if u.hidden]
    types = [u.type for u in hidden]
    rnd.shuffle(types)
    new_type = {u.id: ty for u, ty in zip(hidden, types, strict=True)}
    units = tuple(u._replace(type=new_type.get(u.id, u.type)) for u in t.units)
    stances = tuple(
        (ut, c if c in t.revealed else rnd.choice([s["id"] for s in TRIBES[t.name]["stances"][ut]]))
        for ut, c in t.stances
    )
    kinds = ["square", "circle", "leaf", "star"]
    toks = tuple(k._replace(type=rnd.choice(kinds)) if k.hidden else k for k in t.tokens)
    staked = tuple(k._replace(type=rnd.choice(kinds)) if k.hidden else k for k in t.staked)
    return replace(t, units=units, stances=stances, tokens=toks, staked=staked,
                   library=tuple(reversed(t.library)), hand=tuple(f"x{i}" for i in range(len(t.hand))),
                   known=(), peek=None)


def _scramble(s: State, viewer: int | None, rnd: random.Random) -> State:
    tribes = tuple(t if i == viewer else _scramble_tribe(t, rnd) for i, t in enumerate(s.tribes))
    known = dict(s.tribes[viewer].known) if viewer is not None else {}
    unders = [t.under for t in s.trees if not t.shown and t.state == "unaltered" and t.id not in known]
    rnd.shuffle(unders)
    it = iter(unders)
    trees = tuple(t if t.shown or t.state != "unaltered" or t.id in known else t._replace(under=next(it))
                  for t in s.trees)
    down = [c for c, up in s.fury_cards if not up]
    rnd.shuffle(down)
    dit = iter(down)
    fury = tuple((c, True) if up else (next(dit), False) for c, up in s.fury_cards)
    return replace(s, tribes=tribes, trees=trees, fury_cards=fury, mdeck=tuple(reversed(s.mdeck)),
                   bag={"neutral:square": sum(s.bag.values())} if s.bag else {})


def check_views(s: State, rnd: random.Random) -> None:
    for viewer in [*range(s.n), None]:
        v = GAME.view(s, viewer)
        assert v == GAME.view(_scramble(s, viewer, rnd), viewer), f"view of {viewer} shows a secret"
        for i, t in enumerate(v["tribes"]):
            if i != viewer:
                assert not {"hand", "library", "stances", "known_trees", "dragon_peek"} & set(t)


def check_event(e: Event, before: State, after: State) -> None:
    for viewer in [*range(after.n), None]:
        r = GAME.redact(e, viewer)
        assert r is not None
        if viewer is not None and viewer == e.seat:
            continue
        assert not SECRET_KEYS & _keys(dict(r.data)), f"{e.type} shows {SECRET_KEYS & _keys(dict(r.data))} to {viewer}"
        if e.type in ("dragondale.UnitsRevealed", "dragondale.UnitsDispelled"):
            assert e.seat is not None
            units = {u.id: u for u in after.tribes[e.seat].units}
            assert all(not units[i].hidden for i in r.data["units"])
        paid = e.type in ("dragondale.InsightPaid", "dragondale.InsightCommitted")
        if paid and e.seat is not None and before.tribes[e.seat].tokens[e.data["index"]].hidden:
            assert r.data.get("token") is None and r.data.get("type") is None
        if e.type == "dragondale.UnitsMixed":
            check_mixed(r, before, after)
    if e.type == "dragondale.UnitsMixed":
        check_unlinked(e, before, after)


def check_mixed(r: Event, before: State, after: State) -> None:
    """What others see of a mix is fixed by what they already saw: the territory, the ids that
    were hidden there and fresh ids after the highest ever given; never who took which."""
    assert r.seat is not None
    assert set(r.data) == {"at", "was", "now"}
    units = before.tribes[r.seat].units
    here = {u.id for u in units if u.loc == r.data["at"] and u.hidden}
    assert set(r.data["was"]) <= here and len(r.data["was"]) >= 2
    assert r.data["was"] == sorted(r.data["was"], key=id_order)
    top = max(id_order(u.id)[1] for u in units)
    prefix = r.data["was"][0].rstrip("0123456789")
    assert r.data["now"] == [f"{prefix}{top + 1 + i}" for i in range(len(r.data["was"]))]
    ids = {u.id for u in after.tribes[r.seat].units}
    assert not ids & set(r.data["was"]) and set(r.data["now"]) <= ids
    assert all(u.hidden and u.loc == r.data["at"] for u in after.tribes[r.seat].units if u.id in r.data["now"])


def check_unlinked(e: Event, before: State, after: State) -> None:
    """A re-hidden unit cannot be linked to its earlier public identity: had the fresh ids fallen
    the other way round, every other seat's and a spectator's view would be the same."""
    assert e.seat is not None
    ids = dict(e.data["secret"]["ids"])
    olds = list(ids)
    other = dict(zip(olds, [ids[o] for o in olds[1:] + olds[:1]], strict=True))
    alt = GAME.evolve(before, Event(e.type, {**e.data, "secret": {"ids": other}}, e.seat))
    types = [next(u.type for u in before.tribes[e.seat].units if u.id == o) for o in olds]
    moved = len(set(types)) > 1
    for viewer in [*range(after.n), None]:
        if viewer != e.seat:
            assert GAME.view(after, viewer) == GAME.view(alt, viewer), f"a mix shows who is who to {viewer}"
    if moved:  # the owner does see the difference: the ids really changed hands
        assert GAME.view(after, e.seat) != GAME.view(alt, e.seat)


def scramble_tokens(s: State, seat: int, rnd: random.Random) -> State:
    """The same position with the seat's hidden insight tokens of other types."""
    kinds = ["square", "circle", "leaf", "star"]
    t = s.tribes[seat]
    toks = tuple(k._replace(type=rnd.choice(kinds)) if k.hidden else k for k in t.tokens)
    tribes = tuple(replace(x, tokens=toks) if i == seat else x for i, x in enumerate(s.tribes))
    return replace(s, tribes=tribes)


def _answers_naming_tokens(s: State, seat: int) -> list[Any]:
    # a tree's cost asks for tokens of given types: which sets pay it is the cost's own, public
    if s.prompt is not None and s.prompt.kind == "tree" and s.ctl["stack"][-1].get("stage") == "pay":
        return [c for c in GAME.legal_commands(s, seat) if c.type != "dragondale.pay"]
    return list(GAME.legal_commands(s, seat))


def _refusal(s: State, c: Command, rng: Rng) -> str | None:
    try:
        decide(GAME, s, c, rng)
    except IllegalCommand as exc:
        return f"{exc.code}: {exc.message}"
    return None


def check_tokens_unnamed(s: State, seat: int, rnd: random.Random, rng: Rng) -> None:
    """No answer a seat may give, nor a refusal it gets, depends on its hidden tokens' types:
    the public command `pay 1` then says nothing of what token 1 is."""
    if not any(k.hidden for k in s.tribes[seat].tokens):
        return
    alt = scramble_tokens(s, seat, rnd)
    assert _answers_naming_tokens(s, seat) == _answers_naming_tokens(alt, seat)
    n = len(s.tribes[seat].tokens)
    for c in (Command("dragondale.pay", {"tokens": [n]}, seat), Command("dragondale.reveal", {"token": n}, seat),
              Command("dragondale.pay", {"tokens": list(range(n))}, seat)):
        if c not in GAME.legal_commands(s, seat) and c not in GAME.legal_commands(alt, seat):
            assert _refusal(s, c, rng) == _refusal(alt, c, rng)


def play_checked(n: int, seed: int, experienced: bool, newcomer: bool, view_every: int = 1) -> int:
    tribes = random.Random(seed).sample(["vikings", "celts", "druids", "dark_faery"], n)
    seats = [SeatInfo(i, t) for i, t in enumerate(tribes)]
    rng = Rng(seed.to_bytes(8, "big"), b"", "hidden")
    events = GAME.setup({"tribes": tribes, "experienced": experienced, "newcomer": newcomer}, seats, rng)
    s = GAME.initial_state()
    for e in events:
        after = GAME.evolve(s, e)
        check_event(e, s, after)
        s = after
    assert fold(GAME, events) == s
    bot = random.Random(seed)
    rnd = random.Random(seed + 1)
    steps = 0
    while GAME.is_over(s) is None:
        assert s.prompt is not None
        seat = bot.choice(list(s.prompt.seats))
        cmd = bot.choice(list(GAME.legal_commands(s, seat)))
        check_tokens_unnamed(s, seat, rnd, rng)
        for viewer in [*range(n), None]:
            rc = GAME.redact_command(cmd, viewer)
            assert rc is not None
            if viewer != seat and cmd.type == "dragondale.stance":
                assert "card" not in rc.args
        for e in decide(GAME, s, cmd, rng).events:
            after = GAME.evolve(s, e)
            check_event(e, s, after)
            s = after
        steps += 1
        if steps % view_every == 0:
            check_views(s, rnd)
        assert steps < 5000
    check_views(s, rnd)
    return steps


@settings(max_examples=12, deadline=None)
@given(n=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**6), experienced=st.booleans(),
       newcomer=st.booleans())
def test_no_seat_sees_another_tribes_secrets(n: int, seed: int, experienced: bool, newcomer: bool) -> None:
    play_checked(n, seed, experienced, newcomer, view_every=3)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(n=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**6), experienced=st.booleans(),
       newcomer=st.booleans())
def test_no_seat_sees_another_tribes_secrets_long(n: int, seed: int, experienced: bool, newcomer: bool) -> None:
    play_checked(n, seed, experienced, newcomer, view_every=1)
