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
    return [answer(seat, "pay", tokens=[i]) for i in held_tokens(s, seat)]


def held_tokens(s: State, seat: int) -> list[int]:
    """Every token held, by its place in the tribe's row of insight (what the board shows).

    Each token is offered, identical ones too: offering only one of two identical hidden tokens
    would make a public `pay 1` say that token 1 differs from token 0 [Gaining and Playing
    Insight: "You can pay with any insight token"].
    """
    return list(range(len(s.tribes[seat].tokens)))


def hidden_tokens(s: State, seat: int) -> list[int]:
    """Every hidden token held (each one, for the same reason as `held_tokens`)."""
    return [i for i, t in enumerate(s.tribes[seat].tokens) if t.hidden]
