"""A Factions move picked space by space: the steps a seat may chain after a step
(rules/chains.py), as the board page builds a move with undo before sending it."""

from __future__ import annotations

from typing import Any

from rules.chains import then
from rules.core import Command
from rules.factions import GAME
from tests.factions.helpers import FixedRng, position, run


def paths(tree: list[dict[str, Any]], prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for node in tree:
        here = (*prefix, node["args"]["to"])
        out.add(here)
        out |= paths(node["then"], here)
    return out


def test_the_steps_after_a_step_are_the_moves_left() -> None:
    # A Militia (Movement 2 in its card) entering from Base Camp spends its first step entering.
    s, _ = run(position([(0, "MI", "base")]), "activate MI", seat=0, rng=FixedRng())
    moves = GAME.legal_commands(s, 0)
    first = next(c for c in moves if c.type == "factions.step")
    chain = then(GAME, s, 0, first)
    assert chain, "a unit with Movement left may step again"
    # Every chained step is legal when the seat gets there: the rules accept the whole path.
    for path in paths(chain):
        state = s
        for to in (first.args["to"], *path):
            state, _ = run(state, f"step {to}", seat=0, rng=FixedRng())
    # Entering the Battleground is the first of the Militia's 2 Movement: one step more, no further.
    assert s.moves_left == s.card(s.units[s.active]).movement == 2
    assert {len(p) for p in paths(chain)} == {1}


def test_a_chain_ends_where_the_activation_does() -> None:
    # Water ends the activation of a unit on the ground: nothing chains after a step into it.
    tiles = tuple((o, "WW/WW" if i == 1 else "PP/PP") for i, o in enumerate((0, 0, 0, 0, 1, 1, 1, 1, 1)))
    s, _ = run(position([(0, "MI", "base")], tiles=tiles), "activate MI", seat=0, rng=FixedRng())
    for c in GAME.legal_commands(s, 0):
        if c.type == "factions.step":
            after, _ = run(s, GAME.format_text(c), seat=0, rng=FixedRng())
            if after.active is None:
                assert then(GAME, s, 0, c) == []


def test_only_the_games_chain_types_are_followed() -> None:
    s, _ = run(position([(0, "MI", "base")]), "activate MI", seat=0, rng=FixedRng())
    assert then(GAME, s, 0, Command("factions.end", {}, 0)) == []
