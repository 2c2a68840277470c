"""Dragon Dale rules core: territories, hidden units and stances, insight, the Dragon and its Fury."""

from rules.dragondale.game import GAME

__all__ = ["GAME"]
