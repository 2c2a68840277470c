"""The `dragondale` Game object: the composition of the rules core's modules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rules.composed import ComposedGame
from rules.core import Command, Decision, Event, Options, Outcome, Prompt, Rng, SeatInfo
from rules.dragondale import (
    decide,
    describe,
    evolve,
    legal,
    notation,
    refusals,
    setup,
    textboard,
    view,
)
from rules.dragondale.state import State

RULES_VERSION = 3  # bumped, with a line in CHANGELOG.md, by any change to a decision (rules.core)

# What a seat that cannot answer itself plays: skipping where the prompt allows it, else the PLAN
# action, else the first legal command; RULINGS.md "Resigned seats".
DEFAULT_ANSWERS = ("dragondale.skip", "dragondale.plan")


class DragonDale(ComposedGame, notation=notation, words=describe, text=textboard,
        default_answers=DEFAULT_ANSWERS):
    """Dragon Dale for 2, 3 and 4 tribes."""

    name = "dragondale"
    rules_version = RULES_VERSION
    min_seats = 2
    max_seats = 4
    command_types = notation.COMMAND_TYPES
    refusal_kinds = refusals.KINDS

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        return setup.setup_events(options, seats, rng, self.rules_version)

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


class DragonDaleV1(DragonDale):
    """Rules version 1, kept so that its records re-run in the audit and its games in progress
    play on under the rules they were made under: the set-up names no version, and every
    decision that version 2 changed follows version 1 for such a game (`State.rules`)."""

    rules_version = 1


class DragonDaleV2(DragonDale):
    """Rules version 2, kept for its records and games in progress: bright-border cards are
    played only on their tribe's own turn (version 3 asks their holder at the card's moment)."""

    rules_version = 2


GAME = DragonDale()
GAME_V1 = DragonDaleV1()
GAME_V2 = DragonDaleV2()
