"""The platform's capabilities around a game: their commands, events and automatic answers.

Each capability module adds its tables here, in one line each, so that this file is the one
list of what the platform does besides creating, joining, aborting and revealing the seed
(those stay in `events.domain.match`).
"""

from __future__ import annotations

from events.domain.platform import agreements, clock, conduct, disputes, takeback, talk
from events.domain.platform.base import Automatic, Context, Fold, OptionCheck, PlatformCommand

COMMANDS: dict[str, PlatformCommand] = {}
EVENTS: dict[str, Fold] = {}
AUTOMATIC: list[Automatic] = []
OPTIONS: dict[str, OptionCheck] = {}  # the platform's game-creation options

COMMANDS.update(talk.COMMANDS)
EVENTS.update(talk.EVENTS)
COMMANDS.update(clock.COMMANDS)
EVENTS.update(clock.EVENTS)
OPTIONS.update(clock.OPTIONS)
AUTOMATIC.extend(conduct.AUTOMATIC)  # a resigned seat's answers
AUTOMATIC.extend(clock.AUTOMATIC)  # last: the clock starts once the other answers are in
COMMANDS.update(conduct.COMMANDS)
EVENTS.update(conduct.EVENTS)
COMMANDS.update(takeback.COMMANDS)
COMMANDS.update(agreements.COMMANDS)
EVENTS.update(takeback.EVENTS)
OPTIONS.update(takeback.OPTIONS)
COMMANDS.update(disputes.COMMANDS)
EVENTS.update(disputes.EVENTS)
clock.use_commands(COMMANDS)  # a forfeit resigns through conduct's own command

__all__ = ["AUTOMATIC", "COMMANDS", "EVENTS", "OPTIONS", "Automatic", "Context", "Fold", "PlatformCommand"]
