"""What may be played now: every legal answer of a seat, and the command types a prompt takes."""

from __future__ import annotations

from rules.core import Command, Prompt
from rules.dragondale.state import State
from rules.dragondale.tasks import PROMPTS


def legal_commands(s: State, seat: int) -> list[Command]:
    """Every answer `seat` may give now: the prompt's legal list for the task on top of the stack."""
    if s.prompt is None or seat not in s.prompt.seats:
        return []
    return PROMPTS[s.prompt.kind].legal(s, s.ctl["stack"][-1], seat)


def answers(prompt: Prompt) -> frozenset[str]:
    """The command types that answer a prompt of this kind (the platform refuses any other)."""
    kind = PROMPTS.get(prompt.kind)
    return frozenset() if kind is None else kind.types
