"""Commands a seat may send one after another, for a page that builds them up as a path.

A Factions move is one `step` command per space: a player picks the spaces one by one, with
undo, and sends the steps in a row. `then(game, state, seat, command)` lists, for a command of
one of the game's `chain_types`, the legal commands of those types the same seat has right
after it, as deep as the chain goes. Only commands that draw nothing are followed (a draw is
not known before it is made), and a branch stops where the next prompt is not the seat's
alone. A game names as chain types only commands that reveal nothing (Factions' steps: its
board is open to all), so the tree never tells the seat something it does not know yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rules.core import Command, Game, IllegalCommand, InvalidCommand, Rng
from rules.decider import decide

# A chain is short (a unit's Movement); the bound keeps a crafted state from costing much.
MAX_DEPTH = 6
MAX_NODES = 2_000


class _NoDraws(Rng):
    """An Rng that refuses to draw: a chain is followed only through commands that draw nothing."""

    def __init__(self) -> None:
        super().__init__(b"chains")

    def _next64(self) -> int:
        raise _WouldDraw


class _WouldDraw(Exception):
    pass


def chain_types(game: Game) -> frozenset[str]:
    types: object = getattr(game, "chain_types", frozenset())
    return frozenset(types) if isinstance(types, Iterable) else frozenset()


def then(game: Game, state: Any, seat: int, command: Command, depth: int = MAX_DEPTH) -> list[dict[str, Any]]:
    """The chain after `command`: each next legal command of a chain type as
    `{"type", "args", "text", "then"}`, empty where the chain ends."""
    budget = [MAX_NODES]
    return _after(game, state, seat, command, chain_types(game), depth, budget)


def _after(game: Game, state: Any, seat: int, command: Command, types: frozenset[str], depth: int,
           budget: list[int]) -> list[dict[str, Any]]:
    if depth <= 0 or budget[0] <= 0 or command.type not in types:
        return []
    try:
        decision = decide(game, state, command, _NoDraws())
    except (_WouldDraw, IllegalCommand, InvalidCommand):
        return []
    after = decision.state
    if game.is_over(after) is not None:
        return []
    prompt = getattr(after, "prompt", None)
    if prompt is None or tuple(prompt.seats) != (seat,):
        return []
    out: list[dict[str, Any]] = []
    for c in game.legal_commands(after, seat):
        if c.type not in types or budget[0] <= 0:
            continue
        budget[0] -= 1
        out.append({"type": c.type, "args": dict(c.args), "text": game.format_text(c),
                    "then": _after(game, after, seat, c, types, depth - 1, budget)})
    return out
