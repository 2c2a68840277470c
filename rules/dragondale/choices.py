"""Building and reading the commands that answer prompts."""

from __future__ import annotations

from typing import Any

from rules.core import Command
from rules.dragondale.state import State


def answer(seat: int, verb: str, **args: Any) -> Command:
    return Command("dragondale." + verb, args, seat)


def option(seat: int, option: str) -> Command:
    return Command("dragondale.choose", {"option": option}, seat)


def option_of(cmd: Command) -> str:
    return str(cmd.args["option"])


def pay_answers(s: State, seat: int) -> list[Command]:
    return [answer(seat, "pay", tokens=[i]) for i in distinct_tokens(s, seat)]


def distinct_tokens(s: State, seat: int) -> list[int]:
    """One index per kind of token held (identical tokens are the same choice)."""
    seen: dict[Any, int] = {}
    for i, t in enumerate(s.tribes[seat].tokens):
        seen.setdefault(t, i)
    return sorted(seen.values())


def hidden_tokens(s: State, seat: int) -> list[int]:
    seen: dict[Any, int] = {}
    for i, t in enumerate(s.tribes[seat].tokens):
        if t.hidden:
            seen.setdefault(t, i)
    return sorted(seen.values())
