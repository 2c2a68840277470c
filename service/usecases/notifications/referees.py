"""Whose targets a game's referee is told on.

A referee named as a player (`referee: {"player": ...}`) is told on that player's targets. A
referee who holds a token has no player: the targets they add with that token
(`POST /v1/games/{gid}/referee/targets`) are kept as those of a holder of the game's own,
`token_referee(gid)`, which no player id can be (a player's is 16 hex digits).
"""

from __future__ import annotations


def token_referee(gid: str) -> str:
    """The target holder of a game's referee token."""
    return f"referee:{gid}"
