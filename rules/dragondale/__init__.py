"""Dragon Dale rules core: territories, hidden units and stances, insight, the Dragon and its Fury."""

from rules.core import register
from rules.dragondale.game import GAME, GAME_V1, GAME_V2, RULES_VERSION

register(GAME_V1)  # the rules of records and games made before version 2 (CHANGELOG.md)
register(GAME_V2)  # before version 3
register(GAME)

__all__ = ["GAME", "RULES_VERSION"]
