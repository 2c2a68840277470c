"""What a platform capability (clock, conduct, talk, ...) plugs into the match with.

A capability is a module of this package with three tables, gathered in `__init__.py`:
`COMMANDS` (the `boardlog.*` commands it decides), `EVENTS` (how the `boardlog.*` events it
appends fold into the match) and `AUTOMATIC` (commands the platform sends by itself for a seat:
a resigned seat's pass, a queued conditional move). Capability modules import `Match` from
`events.domain.matchstate`, never `events.domain.match` (which imports this package), and keep
their folded state under their own name in `match.platform`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from events.domain.matchstate import Match
from rules.core import Command, Event


@dataclass(frozen=True, slots=True)
class Context:
    """What a platform command may know beyond the match. Time enters here as data: the worker
    gives the time it stamps on the envelopes, and the audit gives the same from the record, so
    re-running a platform command gives the same events."""

    at: str
    # The match as it was after event `seq` (for takebacks and voided disputes): the worker
    # reads it from the store, the audit folds it from the record. None where nobody can.
    match_at: Callable[[int], Match] | None = None


# seat_or_referee: a seat, or the game's referee, whose command the HTTP layer marks with the
# argument "referee": true (a seat's own "referee" argument is dropped).
Who = Literal["seat", "admin", "seat_or_admin", "seat_or_referee", "platform"]


@dataclass(frozen=True, slots=True)
class PlatformCommand:
    """A `boardlog.*` command: who may send it over HTTP (`platform`: nobody, only the platform's
    own workers), whether it may be sent once the game is over, and how it is decided."""

    decide: Callable[[Match, Command, Context], list[Event]]
    who: Who = "seat"
    after_end: bool = False


# Folds a capability's own event into the match (its `seq` is already counted by the caller).
Fold = Callable[[Match, Event], Match]
# A command the platform sends by itself on this match, with a stable id part, or None.
Automatic = Callable[[Match], tuple[str, Command] | None]
# Checks one platform option's value (a game-creation option the platform reads, never the
# rules: `takeback`, `clock`) and gives it in its normal form; raises InvalidCommand.
OptionCheck = Callable[[Any], Any]


# What every game made now is played under besides its chosen options, written into its
# GameCreated's "platform" so that a record says which rule it was made under and audits by it
# (a record without one was made before: events.domain.platform.disputes, "void_draws").
NEW_GAMES: Mapping[str, Any] = {"void_draws": "onward", "talk_rule": "names"}


def split_options(options: Mapping[str, Any], checks: Mapping[str, OptionCheck]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A create request's options as (the game's own, the platform's checked ones, with the
    settings every new game is made under)."""
    game = {k: v for k, v in options.items() if k not in checks}
    platform = {**NEW_GAMES, **{k: checks[k](v) for k, v in options.items() if k in checks}}
    return game, platform

