"""The `factions` Game object: wires set-up, decide, evolve, legal lists, views and notation."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rules.core import (
    Command,
    Decision,
    Event,
    Options,
    Outcome,
    Prompt,
    Rng,
    SeatInfo,
    Told,
    preferred_answer,
)
from rules.factions import describe as W
from rules.factions import notation
from rules.factions.decide import decide as _decide
from rules.factions.evolve import evolve as _evolve
from rules.factions.legal import ANSWERS, legal
from rules.factions.setup import setup as _setup
from rules.factions.state import State
from rules.factions.view import view as _view

_NONE: frozenset[str] = frozenset()


# The rules version this package plays: bumped, with a line in CHANGELOG.md, by every change that
# alters a decision (an event, a refusal, a draw); each game's first event names it.
RULES_VERSION = 1

# What a seat that cannot answer itself plays (Game.default_answer), best first.
DEFAULT_ANSWERS = ("factions.end", "factions.done", "factions.activate")


class FactionsGame:
    """Factions: Battlegrounds for 2, 3 or 4 players."""

    name = "factions"
    rules_version = RULES_VERSION
    min_seats = 2
    max_seats = 4
    command_types = notation.COMMAND_TYPES
    # Steps a page may chain into one move, picked space by space (rules/chains.py).
    chain_types = frozenset({"factions.step"})

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        return _setup(options, seats, rng)

    def decide(self, state: Any, command: Command, rng: Rng) -> Decision:
        return _decide(state, command, rng)

    def answers(self, prompt: Prompt) -> frozenset[str]:
        return ANSWERS.get(prompt.kind, _NONE)

    def evolve(self, state: Any, event: Event) -> Any:
        return _evolve(state, event)

    def initial_state(self) -> Any:
        return State()

    def legal_commands(self, state: Any, seat: int) -> Iterable[Command]:
        return legal(state, seat)

    def default_answer(self, state: Any, seat: int) -> Command:
        """ending the activation or the recruiting, else activating the first unit the rank order offers (which then ends at once), else the first legal command; RULINGS.md "Resigned seats"."""
        return preferred_answer(self.legal_commands(state, seat), DEFAULT_ANSWERS)

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

    # Words (issue #14): rules/factions/describe.py
    def describe_prompt(self, state: Any, viewer: int | None, names: Sequence[str]) -> str:
        return W.describe_prompt(state, viewer, names)

    def describe_command(self, state: Any, command: Command, viewer: int | None, names: Sequence[str]) -> str:
        return W.describe_command(state, command, viewer, names)

    def describe_event(self, state: Any, event: Event, viewer: int | None, names: Sequence[str]) -> Told:
        return W.describe_event(state, event, viewer, names)

    def touched(self, state: Any, command: Command | None, events: Sequence[Event]) -> list[str]:
        return W.touched(state, command, events)


GAME = FactionsGame()
