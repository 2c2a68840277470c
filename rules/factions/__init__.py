"""Factions: Battlegrounds rules core; `GAME` is the rules.core.Game object."""

from rules.core import register
from rules.factions.game import GAME, GAME_V1, RULES_VERSION

register(GAME_V1)  # the rules of records and games made before version 2 (CHANGELOG.md)
register(GAME)

__all__ = ["GAME", "RULES_VERSION"]
