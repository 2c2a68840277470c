"""Factions: Battlegrounds rules core; `GAME` is the rules.core.Game object."""

from rules.factions.game import GAME

__all__ = ["GAME"]
