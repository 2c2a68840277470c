"""Factions: Battlegrounds rules core; `GAME` is the rules.core.Game object."""

from rules.factions.game import GAME, RULES_VERSION

__all__ = ["GAME", "RULES_VERSION"]
