"""The `dragondale` Game object: the composition of the rules core's modules."""

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
from rules.dragondale import decide, evolve, legal, notation, setup, view
from rules.dragondale import describe as W
from rules.dragondale.state import State

# The rules version this package plays: bumped, with a line in CHANGELOG.md, by every change that
# alters a decision (an event, a refusal, a draw); each game's first event names it.
RULES_VERSION = 1

# What a seat that cannot answer itself plays (Game.default_answer), best first.
DEFAULT_ANSWERS = ("dragondale.skip", "dragondale.plan")


class DragonDale:
    """Dragon Dale for 2, 3 and 4 tribes."""

    name = "dragondale"
    rules_version = RULES_VERSION
    min_seats = 2
    max_seats = 4
    command_types = notation.COMMAND_TYPES

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        return setup.setup_events(options, seats, rng)

    def decide(self, state: Any, command: Command, rng: Rng) -> Decision:
        return decide.decide(state, command, rng)

    def answers(self, prompt: Prompt) -> frozenset[str]:
        return legal.answers(prompt)

    def evolve(self, state: Any, event: Event) -> Any:
        return evolve.evolve(state, event)

    def initial_state(self) -> State:
        return State()

    def legal_commands(self, state: Any, seat: int) -> Iterable[Command]:
        return legal.legal_commands(state, seat)

    def default_answer(self, state: Any, seat: int) -> Command:
        """skipping where the prompt allows it, else the PLAN action, else the first legal command; RULINGS.md "Resigned seats"."""
        return preferred_answer(self.legal_commands(state, seat), DEFAULT_ANSWERS)

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return view.view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        return view.redact(event, seat)

    def redact_command(self, command: Command, seat: int | None) -> Command | None:
        return view.redact_command(command, seat)

    def is_over(self, state: Any) -> Outcome | None:
        o = state.outcome
        if o is None:
            return None
        return Outcome(tuple(o["winners"]), tuple(o["scores"]), o["reason"])

    def parse_command(self, type: str, args: Mapping[str, Any], seat: int) -> Command:
        return notation.parse_command(type, args, seat)

    def parse_text(self, text: str, seat: int) -> Command:
        return notation.parse_text(text, seat)

    def format_text(self, command: Command) -> str:
        return notation.format_text(command)

    # Words (issue #14): rules/dragondale/describe.py
    def describe_prompt(self, state: Any, viewer: int | None, names: Sequence[str]) -> str:
        return W.describe_prompt(state, viewer, names)

    def describe_command(self, state: Any, command: Command, viewer: int | None, names: Sequence[str]) -> str:
        return W.describe_command(state, command, viewer, names)

    def describe_event(self, state: Any, event: Event, viewer: int | None, names: Sequence[str]) -> Told:
        return W.describe_event(state, event, viewer, names)

    def touched(self, state: Any, command: Command | None, events: Sequence[Event]) -> list[str]:
        return W.touched(state, command, events)


GAME = DragonDale()
