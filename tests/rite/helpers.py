"""Hand-built Rite positions for rule tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.core import Command, Event, Rng, SeatInfo, fold
from rules.decider import decide
from rules.rite import GAME, RULES_VERSION
from rules.rite.board import geometry
from rules.rite.state import BOARD, State

RNG_SEED = b"tests"
SEATS2 = [SeatInfo(0, "ann"), SeatInfo(1, "bob")]
SEATS3 = [*SEATS2, SeatInfo(2, "cy")]


def rng(tag: str = "t") -> Rng:
    return Rng(RNG_SEED, b"", tag)


def started(options: dict[str, Any], seats: list[SeatInfo] = SEATS2, tag: str = "s") -> State:
    """A new match set up with `options`, folded."""
    state: State = fold(GAME, GAME.setup(options, seats, rng(tag)))
    return state


def board(
    factions: tuple[str, ...] = ("humans", "goblins"),
    radius: int = 3,
    tiles: dict[str, tuple[str, str, int]] | None = None,
    firelord: bool = False,
    volcano: bool = True,
    rules: int = RULES_VERSION,
) -> State:
    """A started game on an all-basic board with the given special tiles; seat 0 to play (under
    the newest rules unless `rules` names an older version's)."""
    s = State()
    geo = geometry(radius)
    s = GAME.evolve(
        s,
        Event(
            "rite.GameStarted",
            {
                "factions": list(factions),
                "map": "premade",
                "radius": radius,
                "order": list(range(len(factions))),
                "options": {"volcano": volcano, "fireflies": True, "elementals": True, "firelord": True},
                "rules": rules,
            },
        ),
    )
    spec = {lab: ("basic", "", 0) for lab in geo.labels}
    if firelord:
        spec[geo.labels[geo.rings[0][0]]] = ("firelord", "", 0)
    spec.update(tiles or {})
    s = GAME.evolve(s, Event("rite.MapBuilt", {"tiles": [[k, *v] for k, v in spec.items()]}))
    s = GAME.evolve(s, Event("rite.PlayStarted", {}))
    s = GAME.evolve(s, Event("rite.TurnStarted", {"seat": 0}))
    return s


def put(s: State, seat: int, kind: str, label: str) -> tuple[State, int]:
    """Take a unit of `kind` from `seat`'s reserve (seat -1: a Firefly) and stand it on `label`."""
    i = s.geo.index[label]
    assert s.occ[i] < 0, f"{label} is occupied"
    for uid, u in enumerate(s.units):
        if u.owner == seat and u.kind == kind and u.where != BOARD:
            units = list(s.units)
            units[uid] = replace(u, tiles=(i,), where=BOARD)
            occ = list(s.occ)
            occ[i] = uid
            return replace(s, units=tuple(units), occ=tuple(occ)), uid
    raise AssertionError(f"no {kind} left for seat {seat}")


def puts(s: State, seat: int, kind: str, *labels: str) -> State:
    for lab in labels:
        s, _ = put(s, seat, kind, lab)
    return s


def energy(s: State, seat: int, round_e: int = 0, reserve_e: int = 0, **kw: Any) -> State:
    ps = list(s.players)
    ps[seat] = replace(ps[seat], round_e=round_e, reserve_e=reserve_e, **kw)
    return replace(s, players=tuple(ps))


def run(s: State, seat: int, text: str, tag: str = "t") -> tuple[State, list[Event]]:
    """`seat` sends `text` through the platform's decide: the state after it, and its events."""
    d = decide(GAME, s, GAME.parse_text(text, seat), rng(tag))
    return d.state, d.events


def unit_on(s: State, label: str) -> str:
    v = s.occ[s.geo.index[label]]
    return "" if v < 0 else s.units[v].kind


def texts(s: State, seat: int) -> list[str]:
    return [GAME.format_text(c) for c in GAME.legal_commands(s, seat)]


def legal(s: State, seat: int, text: str) -> bool:
    c: Command = GAME.parse_text(text, seat)
    return c in list(GAME.legal_commands(s, seat))


def at(s: State, **kw: Any) -> State:
    """The same position with some state fields changed (e.g. `active=1`)."""
    return replace(s, **kw)


def put_ult(s: State, seat: int, *labels: str) -> tuple[State, int]:
    """Stand `seat`'s Ultimatosaur on three mutually adjacent tiles."""
    tiles = tuple(sorted(s.geo.index[lab] for lab in labels))
    assert len(tiles) == 3 and all(s.occ[i] < 0 for i in tiles)
    for uid, u in enumerate(s.units):
        if u.owner == seat and u.kind == "ultimatosaur" and u.where != BOARD:
            units = list(s.units)
            units[uid] = replace(u, tiles=tiles, where=BOARD)
            occ = list(s.occ)
            for i in tiles:
                occ[i] = uid
            return replace(s, units=tuple(units), occ=tuple(occ)), uid
    raise AssertionError(f"no Ultimatosaur for seat {seat}")


def turn(s: State, seat: int) -> State:
    """Start `seat`'s turn as the rules would (Surprise Attack looks at where Raptors start it)."""
    return GAME.evolve(s, Event("rite.TurnStarted", {"seat": seat}))
