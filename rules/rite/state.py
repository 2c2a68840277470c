"""The Rite state: frozen, copy-on-write values; `prompt` is derived from the mode fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rules.core import Prompt
from rules.kit import copier

from .board import Geometry, geometry, positions
from .content import FACTIONS, UNITS

# Where a unit token is: on the board, in its owner's reserve, on a power card, or back in the box.
BOARD, RESERVE, CARD, BOX = "board", "reserve", "card", "box"
VOLCANO = -1  # owner/controller of Firefly units


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit token. Owner and controller are kept apart (Chaos flips units); `tiles` is a set
    of tiles so a three-tile unit fits (Ultimatosaur)."""

    kind: str
    owner: int
    controller: int
    tiles: tuple[int, ...] = ()
    where: str = RESERVE


@dataclass(frozen=True, slots=True)
class Player:
    faction: str
    round_e: int = 1
    reserve_e: int = 0
    faction_e: int = 0
    rage: int = 0
    level: int = 0  # power level unlocked: 0, 5, 10, 15 or 20
    used: tuple[int, int, int, int] = (0, 0, 0, 0)  # slots used on each power card
    passed: bool = False


def initial_units(factions: tuple[str, ...]) -> tuple[Unit, ...]:
    """Every unit token of a game, in uid order: each faction's in seat order, then the Fireflies."""
    units: list[Unit] = []
    for seat, fac in enumerate(factions):
        for u in FACTIONS[fac]["units"]:
            units.extend(Unit(u["kind"], seat, seat) for _ in range(u["amount"]))
    units.extend(Unit("firefly", VOLCANO, VOLCANO) for _ in range(UNITS["firefly"].amount))
    return tuple(units)


@lru_cache(maxsize=64)
def _uids_by_kind(factions: tuple[str, ...]) -> dict[str, tuple[int, ...]]:
    return positions(u.kind for u in initial_units(factions))


def uids_of(s: State, kind: str) -> tuple[int, ...]:
    """The uids of one kind of unit, ascending: a unit's kind never changes and the tokens are
    all made at the start (`initial_units`), so scans for a kind need not walk every unit."""
    return _uids_by_kind(s.factions).get(kind, ())


@dataclass(frozen=True)
class State:
    """The whole position, folded from the events by `evolve` (never changed in place).

    Every field is a tuple, a frozenset or an immutable value, with one exception: `mctx`, the
    open prompt's context, holds the `ctx` list of its ModeSet event as it came (a nested list
    for a prompt that remembers the one it interrupted, e.g. `crise` and `simul`). Nothing
    mutates those lists: a handler that builds on them copies them first (`list(s.mctx[2])`),
    and converting them would change the events that re-emit them.
    """

    phase: str = "new"  # new | map | play | over
    # The rules version the game was set up under, from version 3 on (GameStarted's `rules`):
    # the changes of version 3 apply only to games that name it (CHANGELOG.md).
    rules: int = 2
    factions: tuple[str, ...] = ()
    method: str = "premade"
    opts: tuple[bool, bool, bool, bool] = (True, True, True, True)  # volcano, fireflies, elementals, firelord
    radius: int = 0
    kinds: tuple[str, ...] = ()
    tfac: tuple[str, ...] = ()
    tnum: tuple[int, ...] = ()
    activated: frozenset[int] = frozenset()
    rocks: frozenset[int] = frozenset()
    fire: frozenset[int] = frozenset()
    units: tuple[Unit, ...] = ()
    occ: tuple[int, ...] = ()
    players: tuple[Player, ...] = ()
    order: tuple[int, ...] = ()
    passed: tuple[int, ...] = ()
    round: int = 1
    active: int = -1
    mode: str = "none"
    mctx: tuple[Any, ...] = ()
    resume: str = ""
    queue: tuple[str, ...] = ()
    actions: int = 0
    tpowers: frozenset[str] = frozenset()
    rflags: frozenset[str] = frozenset()
    rites: frozenset[str] = frozenset()
    reacts: tuple[int, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    placed: int = 0
    die: int = 0
    winner: int = -1
    reason: str = ""
    history: tuple[int, ...] = field(default=())  # volcano dice rolled so far
    # Primals: (unit, host) pairs of units underneath a Primal unit; consumed units points, and
    # whether Ultimatosaur consumed a commander; Raptors on a jungle tile as this turn started.
    under: tuple[tuple[int, int], ...] = ()
    consumed: int = 0
    devoured: bool = False
    lurking: frozenset[int] = frozenset()
    # Chaos: units under temporary control (Just a Thought, Puppet), the seat Chaos plays as
    # under Total Control (-1: none), and controlled units points scored per faction seat.
    held: tuple[int, ...] = ()
    proxy: int = -1
    scored: tuple[int, ...] = ()
    rises: tuple[int, ...] = ()  # tiles where a Necromancer Chaos controls may Rise Again
    # Undead: rune tiles that could be activated by defeats just made, and how many may be (the
    # Undead player's choice, the `rune` prompt).
    runes: tuple[int, ...] = ()
    runes_due: int = 0
    # Enemy units Chaos moved, under total control, onto the tile they stand on: only these score
    # at step 8 (Chaos: Objective, "successfully moves a unit ... onto a summoning tile").
    delivered: frozenset[int] = frozenset()

    @property
    def geo(self) -> Geometry:
        return geometry(self.radius)

    def seat_of(self, faction: str) -> int:
        for i, f in enumerate(self.factions):
            if f == faction:
                return i
        return -1

    @property
    def prompt(self) -> Prompt | None:
        m = self.mode
        if m in ("over", "none"):
            return None
        if m == "place":
            seat = self.order[self.placed % len(self.order)]
            return Prompt((seat,), "place_tile", {"hand": list(self.hands[seat])})
        if m == "simul":  # simultaneous effects: which resolves first
            return Prompt((int(self.mctx[0]),), "simultaneous", {"first": ["undead", "chaos"]})
        if m in ("swap", "firefly", "order", "cot", "hiverite", "crise"):
            return Prompt((int(self.mctx[0]),), m, {})
        if m == "rune":  # which rune tiles the Undead player's defeats activate
            return Prompt((int(self.mctx[0]),), m, {"tiles": self.labels(self.runes), "n": self.runes_due})
        if m == "rage":  # how much rage pays towards a Wyrmling action of this cost
            p = self.players[self.active]
            cost = int(self.mctx[0])
            most = min(p.rage, cost - 1)
            return Prompt((self.active,), m, {"cost": cost, "rage": list(range(max(0, cost - p.round_e - p.reserve_e), most + 1))})
        if m == "react":
            return Prompt((self.seat_of("undead"),), "undead_reaction", {"tiles": self.labels(self.reacts)})
        if m == "turn":
            return Prompt((self.active,), "turn", {"round": self.round, "actions": self.actions})
        if m == "puppet":  # Chaos acts with the unit it controls for one action
            return Prompt((self.active,), m, {"unit": self.labels(self.units[self.mctx[0]].tiles)[0]})
        if m == "proxy":  # Total Control: Chaos plays as this faction
            return Prompt((self.active,), m, {"as": self.factions[self.proxy]})
        return Prompt((self.active,), m, {})

    def labels(self, tiles: tuple[int, ...] | list[int]) -> list[str]:
        lab = self.geo.labels
        return [lab[t] for t in tiles]


# evolve copies the state once per event: State keeps a __dict__ (no slots) so that the kit's
# copy is one C-level dict copy of its ~45 fields.
revise = copier(State)
with_unit = copier(Unit)
with_player = copier(Player)
