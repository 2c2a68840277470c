"""Rite: hex-map faction war around a volcano for 2 to 5 players (Humans, Goblins, Undead, Chaos,
Primals), as a rules.core.Game.

Where to start reading: `game.py` wires the parts; `state.py` is the position, `setup.py` lays out
a match, `decide.py` maps each prompt to its command handlers (`actions`, `powers`, `chaos`,
`primals`), `engine.py` resolves what follows on its own, `evolve.py` folds the events, `legal.py`
lists the legal commands, `view.py` shows the board and `notation.py` reads and prints commands.
"""

from rules.core import register

from .game import GAME, GAME_V1, GAME_V2, RULES_VERSION

register(GAME_V1)  # the rules of records and games made before version 2 (CHANGELOG.md)
register(GAME_V2)  # and before version 3
register(GAME)

__all__ = ["GAME", "RULES_VERSION"]
