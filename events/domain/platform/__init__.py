"""The platform's capabilities around a game: their commands, events and automatic answers.

Each capability module adds its tables here, in one line each, so that this file is the one
list of what the platform does besides creating, joining, aborting and revealing the seed
(those stay in `events.domain.match`).
"""

from __future__ import annotations

from events.domain.platform.base import Automatic, Context, Fold, PlatformCommand

COMMANDS: dict[str, PlatformCommand] = {}
EVENTS: dict[str, Fold] = {}
AUTOMATIC: list[Automatic] = []

__all__ = ["AUTOMATIC", "COMMANDS", "EVENTS", "Automatic", "Context", "Fold", "PlatformCommand"]
