"""The Rite `Game`: the composition that wires set-up, decide, evolve, legal commands, views and
the notation into one rules.core.Game."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rules.composed import ComposedGame
from rules.core import Command, Decision, Event, Options, Outcome, Prompt, Rng, SeatInfo

from . import decide as D
from . import describe, notation, refusals, textboard
from .engine import outcome
from .evolve import evolve
from .legal import legal_commands
from .setup import setup
from .state import State
from .view import view

RULES_VERSION = 3  # bumped, with a line in CHANGELOG.md, by any change to a decision (rules.core)

# What a seat that cannot answer itself plays: a pass where the prompt allows one (the rulebook:
# "Each turn, a player takes exactly one action that requires energy or he must pass"), else
# ending the step, else the first legal command; RULINGS.md "Resigned seats".
DEFAULT_ANSWERS = ("rite.pass", "rite.end")


class RiteGame(ComposedGame, notation=notation, words=describe, text=textboard,
        default_answers=DEFAULT_ANSWERS):
    """Rite for 2-5 players as a rules.core.Game (set-ups for every line-up of the rulebook)."""

    name = "rite"
    rules_version = RULES_VERSION
    flow_events = False  # version 1 recorded each step of the end of the round (RiteGameV1)
    min_seats = 2
    max_seats = 5
    command_types = notation.COMMAND_TYPES
    # code -> the rule each refusal names (tests/contract/test_sentences.py reads it)
    refusal_kinds = refusals.KINDS

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        return setup(options, seats, rng, self.rules_version)

    def decide(self, state: Any, command: Command, rng: Rng) -> Decision:
        return D.decide(state, command, rng, self.flow_events)

    def answers(self, prompt: Prompt) -> frozenset[str]:
        return D.answers(prompt)

    def evolve(self, state: Any, event: Event) -> Any:
        return evolve(state, event)

    def initial_state(self) -> Any:
        return State()

    def legal_commands(self, state: Any, seat: int) -> Iterable[Command]:
        return list(legal_commands(state, seat))

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        # Every Rite event is public: a power card is named only when it is used.
        return event

    def redact_command(self, command: Command, seat: int | None) -> Command | None:
        return command

    def is_over(self, state: Any) -> Outcome | None:
        return outcome(state)


class RiteGameV2(RiteGame):
    """Rules version 2, kept so that its records re-run in the audit and its games in progress
    play on: set up without a `rules` mark, its state reads as version 2 and keeps the rules of
    then (fire tokens left on the way, Rush over fog, every Elemental order asked; CHANGELOG.md)."""

    rules_version = 2


class RiteGameV1(RiteGame):
    """Rules version 1, kept so that its records re-run in the audit and its games in progress
    play on under the rules they were made under: the same rules, with a `FlowStepped` event
    for each step of the end of the round (CHANGELOG.md)."""

    rules_version = 1
    flow_events = True


GAME = RiteGame()
GAME_V2 = RiteGameV2()
GAME_V1 = RiteGameV1()
