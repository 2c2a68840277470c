"""The `factions` Game object: wires set-up, decide, evolve, legal lists, views and notation."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rules.composed import ComposedGame
from rules.core import Command, Decision, Event, Options, Outcome, Prompt, Rng, SeatInfo
from rules.factions import describe, notation, refusals, textboard
from rules.factions.decide import decide as _decide
from rules.factions.evolve import evolve as _evolve
from rules.factions.legal import ANSWERS, legal
from rules.factions.setup import setup as _setup
from rules.factions.state import State
from rules.factions.view import view as _view

_NONE: frozenset[str] = frozenset()


RULES_VERSION = 2  # bumped, with a line in CHANGELOG.md, by any change to a decision (rules.core)

# What a seat that cannot answer itself plays: ending the activation or the recruiting, else
# activating the first unit the rank order offers (which then ends at once), else the first legal
# command; RULINGS.md "Resigned seats".
DEFAULT_ANSWERS = ("factions.end", "factions.done", "factions.activate")


class FactionsGame(ComposedGame, notation=notation, words=describe, text=textboard,
        default_answers=DEFAULT_ANSWERS):
    """Factions: Battlegrounds for 2, 3 or 4 players."""

    name = "factions"
    rules_version = RULES_VERSION
    min_seats = 2
    max_seats = 4
    command_types = notation.COMMAND_TYPES
    # Steps a page may chain into one move, picked space by space (rules/chains.py).
    chain_types = frozenset({"factions.step"})
    # code -> the rule each refusal names (tests/contract/test_sentences.py reads it)
    refusal_kinds = refusals.KINDS

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        return _setup(options, seats, rng, self.rules_version)

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


class FactionsGameV1(FactionsGame):
    """Rules version 1, kept so that its records re-run in the audit and its games in progress play
    on under the rules they were made under. The state reads its version from `GameSetUp`, which
    names none in version 1 (CHANGELOG.md)."""

    rules_version = 1


GAME = FactionsGame()
GAME_V1 = FactionsGameV1()
