"""Dragon Dale rules core: territories, hidden units and stances, insight, the Dragon and its Fury."""

from rules.dragondale.game import GAME, RULES_VERSION

__all__ = ["GAME", "RULES_VERSION"]
