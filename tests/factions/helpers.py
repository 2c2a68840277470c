"""Hand-built Factions positions for rule tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from rules.core import Command, Event, IllegalCommand, Rng
from rules.decider import decide
from rules.factions import GAME
from rules.factions import state as state_module
from rules.factions.board import build_geometry, parse_space
from rules.factions.content import FACTIONS, Power
from rules.factions.schedule import schedule
from rules.factions.state import BASE, State, Unit

# A 2-player Battleground: seat 0 owns the south row and the west middle tile, seat 1 the rest.
# Patterns are 'north row / south row'; all plains unless a test passes its own tiles.
PLAIN = "PP/PP"


def tiles_2p(owners: Sequence[int] = (0, 0, 0, 0, 1, 1, 1, 1, 1),
             patterns: Sequence[str] | None = None) -> tuple[tuple[int, str], ...]:
    pats = patterns or [PLAIN] * 9
    return tuple((o, p) for o, p in zip(owners, pats, strict=True))


def position(
    units: Iterable[tuple[int, str, str]] = (),
    *,
    factions: Sequence[str] = ("zyan", "zermano"),
    tiles: tuple[tuple[int, str], ...] | None = None,
    p1: int = 0,
    gold: Sequence[int] | None = None,
    mana: Sequence[int] | None = None,
    centers: Sequence[tuple[str, str, int]] = (),
    unit_kw: dict[str, dict[str, Any]] | None = None,
    stage: str = "main",
    rules: int = GAME.rules_version,
) -> State:
    """A state in Step 1 of round 1 under `rules` (the newest version unless a test names an older
    one); `units` are (seat, code, space or 'base')."""
    n = len(factions)
    s = GAME.evolve(GAME.initial_state(), Event("factions.GameSetUp", {
        "factions": list(factions), "centers": 6, "rolls": [[6 - i] for i in range(n)],
        "ranking": list(range(n)), "rules": rules}))
    lay = s.layout
    tiles = tiles or tiles_2p()
    geo = build_geometry(lay, tiles)
    w, h = lay.width, lay.height
    us: dict[str, Unit] = {}
    occ: dict[int, str] = {}
    for seat, code, sp in units:
        pos = BASE if sp == "base" else parse_space(sp, w, h)
        assert pos is not None
        card = s.card_of(seat, code)
        u = Unit(seat, code, card.rank, pos=pos, flying=card.aerial)
        if unit_kw and f"{seat}:{code}" in unit_kw:
            u = replace(u, **unit_kw[f"{seat}:{code}"])
        us[u.key] = u
        if pos >= 0:
            occ[pos] = u.key
    pool = tuple(tuple(c for c in s.pool[seat] if f"{seat}:{c}" not in us) for seat in range(n))
    cs = tuple((parse_space(sp, w, h) or 0, kind, owner) for sp, kind, owner in centers)
    setup = replace(
        s.setup, tiles=tiles, tile_first=p1, center_seat=1 - p1 if n == 2 else 0,
        recruit_last=1 - p1 if n == 2 else 0, order=(p1, 1 - p1) if n == 2 else tuple(range(n)),
        choices=((p1, "terrain"),) if n == 2 else (),
    )
    s = replace(
        s, setup=setup, phase="play", stage=stage, geo=geo, units=us, occ=occ, pool=pool, centers=cs,
        round=1,
        gold=tuple(gold) if gold else s.gold, mana=tuple(mana) if mana else s.mana, pk="", ps=(),
    )
    return schedule(s)


class FixedRng(Rng):
    """An Rng whose d6 rolls come from a list, to pin down Evade and aerial rolls."""

    def __init__(self, rolls: Sequence[int] = ()) -> None:
        super().__init__(b"fixed")
        self.rolls = list(rolls)

    def randint(self, lo: int, hi: int) -> int:
        if self.rolls:
            return self.rolls.pop(0)
        return super().randint(lo, hi)


def run(s: State, *texts: str, seat: int | None = None, rng: Rng | None = None) -> tuple[State, list[Event]]:
    """Apply text commands through the platform's Decider (seat defaults to the prompted seat);
    return the state and all events."""
    rng = rng or Rng(b"test")
    events: list[Event] = []
    for t in texts:
        st = seat if seat is not None else s.ps[0]
        d = decide(GAME, s, GAME.parse_text(t, st), rng)
        s = d.state
        events += d.events
    return s, events


def refusal(s: State, text: str, seat: int) -> str:
    """The code the Decider refuses a text command with (fails when it is accepted)."""
    return refused(s, text, seat).code


def refused(s: State, text: str, seat: int) -> IllegalCommand:
    """The Decider's refusal of a text command, code and message (fails when it is accepted)."""
    try:
        decide(GAME, s, GAME.parse_text(text, seat), Rng(b"refused"))
    except IllegalCommand as e:
        return e
    raise AssertionError(f"{text!r} by seat {seat} was accepted")


def texts(s: State, seat: int) -> list[str]:
    return [GAME.format_text(c) for c in GAME.legal_commands(s, seat)]


def cmd(text: str, seat: int) -> Command:
    return GAME.parse_text(text, seat)


def unit_at(s: State, space: str) -> Unit | None:
    assert s.geo is not None
    pos = parse_space(space, s.geo.width, s.geo.height)
    k = s.occ.get(pos) if pos is not None else None
    return s.units[k] if k else None


def with_card(monkeypatch: pytest.MonkeyPatch, faction: str, code: str, *powers: Power, **changes: Any) -> None:
    """For one test, a hand-written Faction Unit Card in place of the reference one (its powers and
    attributes changed), so a rule can be tested on a card the reference content does not hold
    (a flyer with a spell, say). Cards are read through the state's FACTIONS."""
    fac = FACTIONS[faction]
    card = replace(fac.units[code], **changes, **({"powers": powers} if powers else {}))
    units = {**fac.units, code: card}
    monkeypatch.setattr(state_module, "FACTIONS", {**FACTIONS, faction: replace(fac, units=units)})


def power(code: str, name: str, kind: str, effect: str, *, mana: int = 0, range: int = 3, amount: int = 1,
          target: str = "enemy", area: str | None = None, uses: int | None = None) -> Power:
    return Power(code, name, kind, mana, range, target, effect, amount, area, uses)


def only(s: State, seat: int) -> State:
    """The position with every other seat's units already activated this round, so `seat` acts."""
    units = {k: replace(u, done=u.seat != seat) for k, u in s.units.items()}
    return schedule(replace(s, units=units, level=0, last=-1))
