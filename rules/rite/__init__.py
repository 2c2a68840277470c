"""Rite: hex-map faction war around a volcano (Humans, Goblins, Undead), as a rules.core.Game."""

from rules.core import register

from .game import GAME

register(GAME)

__all__ = ["GAME"]
