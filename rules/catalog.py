"""Which game modules ship, and loading them (plus any extra ones named in settings)."""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from rules.core import Game, register

# A module listed here exposes a module-level `GAME` satisfying rules.core.Game.
SHIPPED: tuple[str, ...] = ("rules.rite", "rules.factions", "rules.dragondale")


def load(extra: Iterable[str] = ()) -> list[Game]:
    """Import and register the shipped games and any extra `module` or `module:attr` specs."""
    loaded: list[Game] = []
    for spec in (*SHIPPED, *extra):
        module_name, _, attr = spec.partition(":")
        module = importlib.import_module(module_name)
        game = getattr(module, attr or "GAME")
        loaded.append(register(game))
    return loaded
