"""The folded state of a Factions match: frozen, copied on write.

`units` and `occ` are plain dicts for speed (they are read far more than written): nothing
mutates a state's dicts in place: evolve, the one place that changes them, copies a dict before
every change it makes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.core import Prompt
from rules.factions.board import Geometry
from rules.factions.content import FACTIONS, LAYOUTS, Layout, UnitCard
from rules.kit import copier

BASE = -1  # a unit's position while it waits in its Base Camp


@dataclass(frozen=True, slots=True)
class Unit:
    """A recruited unit with its tokens (damage, flying, end of activation, command, boosts)."""

    seat: int
    code: str
    rank: int
    pos: int = BASE
    damage: int = 0
    flying: bool = False
    done: bool = False
    commanding: bool = False
    fresh: bool = False
    atk_boost: int = 0
    hp_boost: int = 0
    weak: int = 0
    used: tuple[tuple[str, int], ...] = ()

    @property
    def key(self) -> str:
        return f"{self.seat}:{self.code}"

    def uses_of(self, power: str) -> int:
        for p, n in self.used:
            if p == power:
                return n
        return 0


@dataclass(frozen=True, slots=True)
class Setup:
    """What set-up decided: advantages, orders and tiles; kept apart so play copies less."""

    centers_reading: int = 6
    ranking: tuple[int, ...] = ()
    choices: tuple[tuple[int, str], ...] = ()  # advantages taken, in order
    tile_first: int = 0
    center_seat: int = 0
    recruit_last: int = 0
    order: tuple[int, ...] = ()  # Vanguard and Reinforcement order
    tile_seq: tuple[int, ...] = ()
    tiles: tuple[tuple[int, str] | None, ...] = ()
    hand: tuple[tuple[int, ...], ...] = ()  # unplaced tile numbers (1-5) per seat
    center_step: int = 0
    aside: tuple[tuple[str, ...], ...] = ()
    spent: tuple[int, ...] = ()  # gold spent on the Vanguard
    drafted: tuple[bool, ...] = ()


# Slotted although evolve copies it once per event: a __dict__ State copies faster (one dict
# copy in the kit) but legal_commands and views, which read it far more, ran 12% slower.
@dataclass(frozen=True, slots=True)
class State:
    """Everything public about a match; `prompt` is derived from `pk` and `ps`."""

    n: int = 0
    rules: int = 1  # the rules version the match plays (its GameSetUp's "rules"; 1 when absent)
    factions: tuple[str, ...] = ()
    setup: Setup = field(default_factory=lambda: Setup())
    phase: str = "new"  # advantage, tiles, centers, aside, draft, play, over
    stage: str = ""  # in play: main, captains, reinforce, fresh, upkeep
    geo: Geometry | None = None
    centers: tuple[tuple[int, str, int], ...] = ()  # (space, kind, owner or -1)
    pool: tuple[tuple[str, ...], ...] = ()  # Warband cards not yet recruited
    gold: tuple[int, ...] = ()
    mana: tuple[int, ...] = ()
    vp: tuple[int, ...] = ()
    units: dict[str, Unit] = field(default_factory=dict)
    occ: dict[int, str] = field(default_factory=dict)
    eliminated: tuple[tuple[str, ...], ...] = ()
    round: int = 0
    level: int = 0
    last: int = -1
    floor: int = 0  # the lowest rank begun in this stage: where a Step-1 recruit's jump returns
    recruited: int = -1  # the seat that recruited in Step 1 and has not activated since (rules 2)
    turn: int = -1
    active: str | None = None
    moves_left: int = 0
    mode: int = 0  # 0 unchanged, 1 took off, 2 landed during this activation
    rolloff: tuple[int, ...] = ()  # 3-4 players: seats still tied at a new rank, until the die is rolled
    empty_phases: tuple[int, ...] = ()
    out: frozenset[int] = frozenset()
    home_start: frozenset[str] = frozenset()
    winners: tuple[int, ...] = ()
    reason: str = ""
    pk: str = ""
    ps: tuple[int, ...] = ()

    @property
    def prompt(self) -> Prompt | None:
        if not self.pk:
            return None
        opts: dict[str, Any] = {"phase": self.phase}
        if self.phase == "play":
            opts.update(stage=self.stage, round=self.round, rank=self.level)
            if self.active is not None:
                opts["unit"] = self.active
                opts["moves_left"] = self.moves_left
        return Prompt(self.ps, self.pk, opts)

    @property
    def centers_reading(self) -> int:
        return self.setup.centers_reading

    @property
    def ranking(self) -> tuple[int, ...]:
        return self.setup.ranking

    @property
    def choices(self) -> tuple[tuple[int, str], ...]:
        return self.setup.choices

    @property
    def tile_first(self) -> int:
        return self.setup.tile_first

    @property
    def center_seat(self) -> int:
        return self.setup.center_seat

    @property
    def recruit_last(self) -> int:
        return self.setup.recruit_last

    @property
    def order(self) -> tuple[int, ...]:
        return self.setup.order

    @property
    def tile_seq(self) -> tuple[int, ...]:
        return self.setup.tile_seq

    @property
    def tiles(self) -> tuple[tuple[int, str] | None, ...]:
        return self.setup.tiles

    @property
    def hand(self) -> tuple[tuple[int, ...], ...]:
        return self.setup.hand

    @property
    def center_step(self) -> int:
        return self.setup.center_step

    @property
    def aside(self) -> tuple[tuple[str, ...], ...]:
        return self.setup.aside

    @property
    def spent(self) -> tuple[int, ...]:
        return self.setup.spent

    @property
    def drafted(self) -> tuple[bool, ...]:
        return self.setup.drafted

    @property
    def layout(self) -> Layout:
        return LAYOUTS[self.n]

    def card(self, u: Unit) -> UnitCard:
        return FACTIONS[self.factions[u.seat]].units[u.code]

    def card_of(self, seat: int, code: str) -> UnitCard:
        return FACTIONS[self.factions[seat]].units[code]


# Copies with some fields changed (`dataclasses.replace` without re-running __init__): evolve
# copies the state once per event, so these are built once here.
revise = copier(State)
revise_setup = copier(Setup)
revise_unit = copier(Unit)
