"""The Rite `Game`: the composition that wires set-up, decide, evolve, legal commands, views and
the notation into one rules.core.Game."""

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

from . import decide as D
from . import describe as W
from .engine import outcome
from .evolve import evolve
from .legal import legal_commands
from .notation import COMMAND_TYPES, format_text, parse_command, parse_text
from .setup import setup
from .state import State
from .view import view

# The rules version this package plays: bumped, with a line in CHANGELOG.md, by every change that
# alters a decision (an event, a refusal, a draw); each game's first event names it.
RULES_VERSION = 1

# What a seat that cannot answer itself plays (Game.default_answer), best first.
DEFAULT_ANSWERS = ("rite.pass", "rite.end")


class RiteGame:
    """Rite for 2-5 players as a rules.core.Game (set-ups for every line-up of the rulebook)."""

    name = "rite"
    rules_version = RULES_VERSION
    min_seats = 2
    max_seats = 5
    command_types = COMMAND_TYPES

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        return setup(options, seats, rng)

    def decide(self, state: Any, command: Command, rng: Rng) -> Decision:
        return D.decide(state, command, rng)

    def answers(self, prompt: Prompt) -> frozenset[str]:
        return D.answers(prompt)

    def evolve(self, state: Any, event: Event) -> Any:
        return evolve(state, event)

    def initial_state(self) -> Any:
        return State()

    def legal_commands(self, state: Any, seat: int) -> Iterable[Command]:
        return list(legal_commands(state, seat))

    def default_answer(self, state: Any, seat: int) -> Command:
        """a pass where the prompt allows one (the rulebook: "Each turn, a player takes exactly one action that requires energy or he must pass"), else ending the step, else the first legal command; RULINGS.md "Resigned seats"."""
        return preferred_answer(self.legal_commands(state, seat), DEFAULT_ANSWERS)

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        # Every Rite event is public: a power card is named only when it is used.
        return event

    def redact_command(self, command: Command, seat: int | None) -> Command | None:
        return command

    def is_over(self, state: Any) -> Outcome | None:
        return outcome(state)

    def parse_command(self, type: str, args: Mapping[str, Any], seat: int) -> Command:
        return parse_command(type, args, seat)

    def parse_text(self, text: str, seat: int) -> Command:
        return parse_text(text, seat)

    def format_text(self, command: Command) -> str:
        return format_text(command)

    # Words (issue #14): rules/rite/describe.py
    def describe_prompt(self, state: Any, viewer: int | None, names: Sequence[str]) -> str:
        return W.describe_prompt(state, viewer, names)

    def describe_command(self, state: Any, command: Command, viewer: int | None, names: Sequence[str]) -> str:
        return W.describe_command(state, command, viewer, names)

    def describe_event(self, state: Any, event: Event, viewer: int | None, names: Sequence[str]) -> Told:
        return W.describe_event(state, event, viewer, names)

    def touched(self, state: Any, command: Command | None, events: Sequence[Event]) -> list[str]:
        return W.touched(state, command, events)


GAME = RiteGame()
