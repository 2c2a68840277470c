"""The `dragondale` Game object tying the rules core together."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rules.core import Command, Event, Options, Outcome, Rng, SeatInfo
from rules.dragondale import notation
from rules.dragondale.state import State
from rules.dragondale.view import redact, redact_command, view


class DragonDale:
    """Dragon Dale for 2, 3 and 4 tribes."""

    name = "dragondale"
    min_seats = 2
    max_seats = 4
    command_types = notation.COMMAND_TYPES

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        from rules.dragondale.setup import setup_events

        return setup_events(options, seats, rng)

    def decide(self, state: Any, command: Command, rng: Rng) -> list[Event]:
        from rules.dragondale.engine import decide

        return decide(state, command, rng)

    def evolve(self, state: Any, event: Event) -> Any:
        from rules.dragondale.evolve import evolve

        return evolve(state, event)

    def initial_state(self) -> State:
        return State()

    def legal_commands(self, state: Any, seat: int) -> Iterable[Command]:
        from rules.dragondale.engine import legal_for

        return legal_for(state, seat)

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        return redact(event, seat)

    def redact_command(self, command: Command, seat: int | None) -> Command | None:
        return redact_command(command, seat)

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


GAME = DragonDale()
