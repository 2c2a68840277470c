"""The `factions` Game object: set-up, the Decider functions, views and notation."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rules.core import Command, Event, InvalidCommand, Options, Outcome, Rng, SeatInfo
from rules.factions import notation
from rules.factions.content import FACTION_IDS
from rules.factions.decide import decide as _decide
from rules.factions.evolve import evolve as _evolve
from rules.factions.legal import legal
from rules.factions.state import State
from rules.factions.view import view as _view

DEFAULT_FACTIONS = ("zyan", "zermano", "baazaria", "doom_sand")
OPTION_KEYS = frozenset({"factions", "resource_centers"})


def _options(options: Options, n: int) -> tuple[list[str], int]:
    if not isinstance(options, Mapping):
        raise InvalidCommand("bad_options", "options must be an object")
    extra = set(options) - OPTION_KEYS
    if extra:
        raise InvalidCommand("bad_options", f"unknown options {sorted(extra)}")
    if not 2 <= n <= 4:
        raise InvalidCommand("bad_options", "factions is played by 2, 3 or 4 players")
    facs = options.get("factions", list(DEFAULT_FACTIONS[:n]))
    if not isinstance(facs, list | tuple) or len(facs) != n or any(f not in FACTION_IDS for f in facs):
        raise InvalidCommand("bad_options", f"factions must list {n} of {list(FACTION_IDS)}")
    if len(set(facs)) != n:
        raise InvalidCommand("bad_options", "each seat needs a different faction")
    rc = options.get("resource_centers", 6)
    if rc not in (4, 6) or isinstance(rc, bool):
        raise InvalidCommand("bad_options", "resource_centers must be 6 (default) or 4")
    return list(facs), rc


def _ranking(seats: list[int], rng: Rng, rolls: dict[int, list[int]]) -> list[int]:
    """Order seats by die, re-rolling only among tied seats ("roll until a higher number")."""
    if len(seats) == 1:
        return seats
    by: dict[int, list[int]] = {}
    for seat in seats:
        r = rng.randint(1, 6)
        rolls[seat].append(r)
        by.setdefault(r, []).append(seat)
    out: list[int] = []
    for r in sorted(by, reverse=True):
        out += _ranking(by[r], rng, rolls)
    return out


class FactionsGame:
    """Factions: Battlegrounds for 2, 3 or 4 players."""

    name = "factions"
    min_seats = 2
    max_seats = 4
    command_types = notation.COMMAND_TYPES

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        n = len(seats)
        facs, rc = _options(options, n)
        rolls: dict[int, list[int]] = {seat: [] for seat in range(n)}
        ranking = _ranking(list(range(n)), rng, rolls)
        return [Event("factions.GameSetUp", {
            "factions": facs, "centers": rc, "rolls": [rolls[seat] for seat in range(n)], "ranking": ranking,
        })]

    def decide(self, state: Any, command: Command, rng: Rng) -> list[Event]:
        return _decide(state, command, rng)

    def evolve(self, state: Any, event: Event) -> Any:
        return _evolve(state, event)

    def initial_state(self) -> Any:
        return State()

    def legal_commands(self, state: Any, seat: int) -> Iterable[Command]:
        return legal(state, seat)

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return _view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        return event  # all information is public

    def redact_command(self, command: Command, seat: int | None) -> Command | None:
        return command

    def is_over(self, state: Any) -> Outcome | None:
        s: State = state
        if s.phase != "over":
            return None
        return Outcome(s.winners, s.vp, s.reason)

    def parse_command(self, type: str, args: Mapping[str, Any], seat: int) -> Command:
        return notation.parse_command(type, args, seat)

    def parse_text(self, text: str, seat: int) -> Command:
        return notation.parse_text(text, seat)

    def format_text(self, command: Command) -> str:
        return notation.format_text(command)


GAME = FactionsGame()
