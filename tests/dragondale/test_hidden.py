"""Property test: no seat (nor a spectator) ever sees another tribe's secrets."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import Event, Rng, SeatInfo, fold
from rules.decider import decide
from rules.dragondale import GAME
from rules.dragondale.content import TRIBES
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
