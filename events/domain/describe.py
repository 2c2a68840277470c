"""The platform's own events and commands (`boardlog.*`) in words, beside each game's describe.

Pure: a sentence from the event's data and the seats' names. The platform events DESIGN.md lists
that the code does not write yet (Resigned, TurnTimedOut, ...) are worded too, so that a log which
gains them reads well at once; any other `boardlog.*` type reads as its name split into words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rules.core import Command, Told
from rules.words import listing, seat_name, split_camel

from .match import ABORT, ENTROPY_ADDED, GAME_ABORTED, GAME_CREATED, JOIN, SEED_REVEALED

GAMES_BY_NAME = {"rite": "Rite", "factions": "Factions: Battlegrounds", "dragondale": "Dragon Dale"}


def _created(d: Mapping[str, Any], names: Sequence[str]) -> str:
    seats = [s.get("name", "?") for s in d.get("seats", []) if isinstance(s, Mapping)]
    game = GAMES_BY_NAME.get(str(d.get("game")), str(d.get("game")))
    return f"A game of {game} is set up for {listing(seats)}."


def _entropy(d: Mapping[str, Any], names: Sequence[str]) -> str:
    return f"{seat_name(names, d.get('seat'))} joins and adds their share of the dice's randomness."


def _aborted(d: Mapping[str, Any], names: Sequence[str]) -> str:
    reason = str(d.get("reason") or "")
    return "The game is ended by its admin" + (f": {reason}." if reason and reason != "admin" else ".")


def _seed(d: Mapping[str, Any], names: Sequence[str]) -> str:
    return "The dice's secret seed is revealed, so anyone can check every roll."


def _resigned(d: Mapping[str, Any], names: Sequence[str]) -> str:
    return f"{seat_name(names, d.get('seat'))} resigns."


def _timed_out(d: Mapping[str, Any], names: Sequence[str]) -> str:
    return f"{seat_name(names, d.get('seat'))} ran out of time."


def _taken_back(d: Mapping[str, Any], names: Sequence[str]) -> str:
    to = d.get("to_seq")
    return "A move is taken back" + (f": the game returns to step {to}." if isinstance(to, int) else ".")


_EVENTS: dict[str, Callable[[Mapping[str, Any], Sequence[str]], str]] = {
    GAME_CREATED: _created,
    ENTROPY_ADDED: _entropy,
    GAME_ABORTED: _aborted,
    SEED_REVEALED: _seed,
    "boardlog.Resigned": _resigned,
    "boardlog.TurnTimedOut": _timed_out,
    "boardlog.TakenBack": _taken_back,
    "boardlog.DrawAgreed": lambda d, n: "The players agree to a draw.",
    "boardlog.DisputeOpened": lambda d, n: "A dispute is opened for the referee.",
    "boardlog.DisputeResolved": lambda d, n: "The referee resolves the dispute.",
    "boardlog.MessagePosted": lambda d, n: f"{seat_name(n, d.get('seat'))} writes a message.",
    "boardlog.MessageHidden": lambda d, n: "A message is hidden.",
    "boardlog.ForkedFrom": lambda d, n: "This game starts as a copy of another game's position.",
}

# Platform events that open their own entry in the move list.
_HEADINGS = {GAME_CREATED: "Set-up", SEED_REVEALED: "The end", GAME_ABORTED: "The end",
             "boardlog.TakenBack": "Take-back", "boardlog.DrawAgreed": "The end"}


def describe_platform_event(type: str, data: Mapping[str, Any], names: Sequence[str]) -> Told:
    """A `boardlog.*` event in words (CommandAccepted is described through its command)."""
    word = _EVENTS.get(type)
    text = word(data, names) if word else split_camel(type.partition(".")[2]).capitalize() + "."
    return Told(text, heading=_HEADINGS.get(type))


def describe_platform_command(command: Command, names: Sequence[str]) -> str:
    who = seat_name(names, command.seat)
    if command.type == JOIN:
        return f"{who} joins the game."
    if command.type == ABORT:
        return "The admin ends the game."
    return f"{who}: {split_camel(command.type.partition('.')[2]) or 'a platform command'}."
