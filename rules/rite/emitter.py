"""The kit's emit-and-fold context for Rite, with the helpers every rule module uses on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core import Rng
from rules.kit import Emitter

from .evolve import evolve
from .state import State


class RiteEmitter(Emitter[State]):
    """One Rite decision in progress: `s` is the state after every event emitted so far.

    `flow_events` is rules version 1's way of stepping through the end of the round: a
    `FlowStepped` event a step. From version 2 the steps left are tracked here, in `rest`, while
    the decision runs (None when no step has run in it), and only a prompt that pauses the flow
    records them, on its `ModeSet` (CHANGELOG.md, RULINGS.md "What the record leaves out")."""

    __slots__ = ("flow_events", "rest")

    def __init__(self, state: State, rng: Rng, flow_events: bool = False) -> None:
        super().__init__("rite.", evolve, state, rng)
        self.flow_events = flow_events
        self.rest: tuple[str, ...] | None = None

    def lab(self, i: int) -> str:
        """The label of tile `i` (events name tiles, never indices)."""
        return self.s.geo.labels[i]

    def mode(self, mode: str, ctx: list[Any] | None = None, resume: str | None = None) -> None:
        """Open the prompt `mode`, with its context (and the mode the Undead reaction returns to)."""
        d: dict[str, Any] = {"mode": mode, "ctx": ctx or []}
        if resume is not None:
            d["resume"] = resume
        if self.rest is not None:
            # a prompt that pauses the flow: where the flow picks up after it
            d["queue"] = list(self.rest)
        self.emit("ModeSet", d)

    def gain(self, seat: int, n: int) -> None:
        """Faction energy for a seat (none for the volcano, nothing for zero)."""
        if seat >= 0 and n > 0:
            self.emit("FactionEnergyGained", {"seat": seat, "n": n}, seat)


# A command's handler: the emitter, the seat acting (see `chaos.acting_seat`) and the parsed args.
Handler = Callable[[RiteEmitter, int, dict[str, Any]], None]
