"""The platform's own events and commands (`boardlog.*`) in words, beside each game's describe.

Pure: a sentence from the event's data and the seats' names (and, where an event names a move by
its seq, the move list's numbering of it: `MoveOf`, which a reader without one leaves out, and
the move is then named by its seq). The platform events DESIGN.md lists
that the code does not write yet (Resigned, TurnTimedOut, ...) are worded too, so that a log which
gains them reads well at once; any other `boardlog.*` type reads as its name split into words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rules.core import Command, Told
from rules.words import listing, seat_name, split_camel

from .match import ABORT, ENTROPY_ADDED, GAME_ABORTED, GAME_CREATED, JOIN, SEED_REVEALED
from .platform.clock import period_words

# The number of the move (one a command, as the move list counts them) whose entry holds a seq;
# None where none does.
MoveOf = Callable[[int], "int | None"]


def no_moves(seq: int) -> int | None:
    """A MoveOf for a reader with no move list at hand: moves are named by their seq."""
    return None


def _move_number(seq: object, move_of: MoveOf) -> int | None:
    return move_of(seq) if isinstance(seq, int) and not isinstance(seq, bool) else None


def _move(seq: object, move_of: MoveOf) -> str:
    """A move named as a player reads it: "move 12", or by its seq where no move list is at hand."""
    if not isinstance(seq, int) or isinstance(seq, bool):
        return "a move"
    n = move_of(seq)
    return f"move {n}" if n else f"the move at seq {seq}"

GAMES_BY_NAME = {"rite": "Rite", "factions": "Factions: Battlegrounds", "dragondale": "Dragon Dale"}


def _created(d: Mapping[str, Any], names: Sequence[str]) -> str:
    seats = [s.get("name", "?") for s in d.get("seats", []) if isinstance(s, Mapping)]
    game = GAMES_BY_NAME.get(str(d.get("game")), str(d.get("game")))
    fork, referee = d.get("fork"), d.get("referee")
    out = f"A game of {game} is set up for {listing(seats)}"
    if isinstance(fork, Mapping):
        out = f"An analysis game of {game} is set up for {listing(seats)}, from game {fork.get('game')} at seq {fork.get('seq')}"
    if isinstance(referee, Mapping):
        out += f", refereed by {referee.get('name')}"
    return out + "."


def _entropy(d: Mapping[str, Any], names: Sequence[str]) -> str:
    return f"{seat_name(names, d.get('seat'))} joins and adds their share of the dice's randomness."


def _aborted(d: Mapping[str, Any], names: Sequence[str]) -> str:
    reason = str(d.get("reason") or "")
    return "The game is ended by its admin" + (f": {reason}." if reason and reason != "admin" else ".")


def _seed(d: Mapping[str, Any], names: Sequence[str]) -> str:
    return "The dice's secret seed is revealed, so anyone can check every roll."


def _resigned(d: Mapping[str, Any], names: Sequence[str]) -> str:
    n = d.get("timeouts")
    if isinstance(n, int):
        return f"{seat_name(names, d.get('seat'))} forfeits: out of time {_in_a_row(n)}."
    return f"{seat_name(names, d.get('seat'))} resigns."


def _in_a_row(n: int) -> str:
    return f"{n} turns in a row" if n > 1 else "on their turn"


def _timed_out(d: Mapping[str, Any], names: Sequence[str]) -> str:
    follows = {"skip": ": the platform answers for them", "forfeit": " and forfeits",
               "pause": ": the game waits for them"}.get(str(d.get("action")), "")
    n, limit = d.get("in_a_row"), d.get("abandon_after")
    # A clock under the abandon rule counts: how far the seat is from forfeiting.
    count = f" ({n} of {limit} in a row)" if isinstance(n, int) and isinstance(limit, int) and n > 1 else ""
    return f"{seat_name(names, d.get('seat'))} ran out of time{count}{follows}."


def _idle_ended(d: Mapping[str, Any], names: Sequence[str]) -> str:
    after = d.get("after")
    span = period_words(after) if isinstance(after, int) and not isinstance(after, bool) and after > 0 else "too long"
    return f"No seat moved for {span}: the game ends as abandoned."


def _timeout_voided(d: Mapping[str, Any], names: Sequence[str]) -> str:
    who = seat_name(names, d.get("seat"))
    back = f"{who} is back at the table and " if d.get("forfeit") is True else ""
    return f"{back}{who}'s timed-out turn is theirs again: their clock starts afresh."


def timed_out_words(d: Mapping[str, Any], names: Sequence[str]) -> str:
    """A TurnTimedOut as the ruling view names a disputed timeout: "bob's turn timed out at
    2026-12-01 10:01 UTC (their deadline): the platform answered for them"."""
    at = str(d.get("deadline") or d.get("at") or "")[:16].replace("T", " ")
    follows = {"skip": ": the platform answered for them", "forfeit": " and they forfeited",
               "pause": ": the game waited for them"}.get(str(d.get("action")), "")
    when = f" at {at} UTC (their deadline)" if at else ""
    return f"{seat_name(names, d.get('seat'))}'s turn timed out{when}{follows}"


def _deadlines(d: Mapping[str, Any], names: Sequence[str]) -> str:
    """The seats and deadlines (UTC, to the minute) a clock event names."""
    parts = []
    for s, at in sorted((d.get("deadlines") or {}).items()):
        parts.append(f"{seat_name(names, int(s))} until {str(at)[:16].replace('T', ' ')} UTC")
    for s, ms in sorted((d.get("left") or {}).items()):
        parts.append(f"{seat_name(names, int(s))} stopped with {_span(int(ms))} left")
    return listing(parts) if parts else "no seat"


def _span(ms: int) -> str:
    s = ms // 1000
    if s >= 86400:
        return f"{s // 86400} d {s % 86400 // 3600} h"
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{s} s"


_WHY = {"timeout": " (the game waits after a timeout)", "dispute": " (a dispute is open)",
        "vacation": " (a seat is on vacation)"}


def _clock(verb: str) -> Callable[[Mapping[str, Any], Sequence[str]], str]:
    return lambda d, n: f"The clock {verb}: {_deadlines(d, n)}{_WHY.get(str(d.get('why', '')), '')}."


def _vacation(on: bool) -> Callable[[Mapping[str, Any], Sequence[str]], str]:
    if on:
        return lambda d, n: f"{seat_name(n, d.get('seat'))} goes on vacation: their clock stops."
    return lambda d, n: f"{seat_name(n, d.get('seat'))} is back from vacation."


def _taken_back(d: Mapping[str, Any], names: Sequence[str], move_of: MoveOf = no_moves) -> str:
    to, first, last = d.get("to_seq"), d.get("first"), d.get("last")
    one = _move_number(first, move_of)
    if one:
        upto = _move_number(last, move_of) or one
        what = f"Move {one} is" if upto == one else f"Moves {one} to {upto} are"
        what += " taken back" if "dispute" not in d else " voided"
        them = "it stays" if upto == one else "they stay"
        return f"{what}: the game returns to where it was before move {one} ({them} in the record, struck through)."
    what = "A move is taken back" if "dispute" not in d else "The disputed moves are voided"
    if isinstance(to, int):
        # seqs, not the replay's steps (one step is a command with all its events)
        what += f": the game returns to where it was at seq {to}"
        if isinstance(first, int) and isinstance(last, int):
            what += f" (seqs {first} to {last} stay in the record, struck through)"
    return what + "."


_KINDS = {"draw": "a draw", "abandon": "abandoning the game", "takeback": "taking back a move"}


def _proposed(d: Mapping[str, Any], names: Sequence[str]) -> str:
    return f"{seat_name(names, d.get('seat'))} proposes {_KINDS.get(str(d.get('kind')), 'an agreement')}."


def _answered(verb: str) -> Callable[[Mapping[str, Any], Sequence[str]], str]:
    return lambda d, n: f"{seat_name(n, d.get('seat'))} {verb} {_KINDS.get(str(d.get('kind')), 'the proposal')}."


def _takeback_asked(d: Mapping[str, Any], names: Sequence[str], move_of: MoveOf = no_moves) -> str:
    n = _move_number(d.get("first"), move_of)
    # "their last move" says which; a seq beside it would only be noise (a notice has no list)
    return f"{seat_name(names, d.get('seat'))} asks to take back their last move{f' (move {n})' if n else ''}."


def _disputed(d: Mapping[str, Any], names: Sequence[str], move_of: MoveOf, by: object = None) -> str:
    """What a dispute contests: a move ("move 12"), or a timeout ("ann's timeout (move 12)",
    "their timeout (move 12)" in the timed-out seat's own dispute)."""
    move = _move(d.get("on"), move_of)
    if d.get("step") != "timeout":
        return move
    of = d.get("of")
    whose = "their" if by is not None and of == by else f"{seat_name(names, of)}'s"
    return f"{whose} timeout ({move})"


def _dispute_opened(d: Mapping[str, Any], names: Sequence[str], move_of: MoveOf = no_moves) -> str:
    what = _disputed(d, names, move_of, d.get("seat"))
    return f"{seat_name(names, d.get('seat'))} disputes {what}: {d.get('note', '')}"


def _dispute_voted(d: Mapping[str, Any], names: Sequence[str]) -> str:
    verdict = "upheld" if d.get("verdict") == "upheld" else "voided"
    reason = str(d.get("reason") or "").strip()
    return f"{seat_name(names, d.get('seat'))} votes that the disputed move be {verdict}" + (f": {reason}" if reason else ".")


def the_referee(referee: str | None) -> str:
    """The referee as every reader names them: "The referee (carol)"."""
    return f"The referee ({referee})" if referee else "The referee"


def _dispute_resolved(d: Mapping[str, Any], names: Sequence[str], move_of: MoveOf = no_moves,
                      referee: str | None = None) -> str:
    by_referee = d.get("by") == "referee"
    who = the_referee(referee) if by_referee else "The players"
    move = _disputed(d, names, move_of)
    upheld = d.get("verdict") == "upheld"
    verb = ("upholds" if upheld else "voids") if by_referee else ("uphold" if upheld else "void")
    reason = str(d.get("reason") or "").strip()
    if reason:
        return f"{who} {verb} {move}: {reason}"
    # a record from before rulings gave reasons, or a vote without one
    return f"{who} {verb} {move}: nothing changes." if upheld else f"{who} {verb} {move} and every move after it."


def _posted(d: Mapping[str, Any], names: Sequence[str], referee: str | None = None) -> str:
    who = the_referee(referee) if d.get("referee") is True else seat_name(names, d.get("seat"))
    return f"{who} writes: {d.get('text', '')}"


# The events that name a move by its seq: worded with the move list's numbering when given one.
_NAMING_MOVES: dict[str, Callable[[Mapping[str, Any], Sequence[str], MoveOf], str]] = {
    "boardlog.TakenBack": _taken_back,
    "boardlog.TakebackAsked": _takeback_asked,
    "boardlog.DisputeOpened": _dispute_opened,
}


_EVENTS: dict[str, Callable[[Mapping[str, Any], Sequence[str]], str]] = {
    GAME_CREATED: _created,
    ENTROPY_ADDED: _entropy,
    GAME_ABORTED: _aborted,
    SEED_REVEALED: _seed,
    "boardlog.Resigned": _resigned,
    "boardlog.TurnTimedOut": _timed_out,
    "boardlog.ClockStarted": _clock("starts"),
    "boardlog.ClockStopped": _clock("stops"),
    "boardlog.ClockResumed": _clock("runs again"),
    "boardlog.ReminderDue": lambda d, n: f"{seat_name(n, d.get('seat'))} is reminded that their time runs out soon.",
    "boardlog.VacationStarted": _vacation(True),
    "boardlog.VacationEnded": _vacation(False),
    "boardlog.DrawAgreed": lambda d, n: "The players agree to a draw.",
    "boardlog.AbandonmentAgreed": lambda d, n: "The players agree to abandon the game.",
    "boardlog.GameAbandoned": _idle_ended,
    "boardlog.TimeoutVoided": _timeout_voided,
    "boardlog.AgreementProposed": _proposed,
    "boardlog.ProposalAccepted": _answered("accepts"),
    "boardlog.ProposalRefused": _answered("refuses"),
    "boardlog.DisputeVoted": _dispute_voted,
    # the hidden message itself reads "A message hidden by the admin." where it was
    "boardlog.MessageHidden": lambda d, n: "The admin hides a message.",
    "boardlog.ForkedFrom": lambda d, n: "This game starts as a copy of another game's position.",
}

# Platform events that open their own entry in the move list.
_HEADINGS = {GAME_CREATED: "Set-up", SEED_REVEALED: "The end", GAME_ABORTED: "The end",
             "boardlog.TakenBack": "Take-back", "boardlog.DrawAgreed": "The end",
             "boardlog.AbandonmentAgreed": "The end", "boardlog.GameAbandoned": "The end"}


def describe_platform_event(type: str, data: Mapping[str, Any], names: Sequence[str],
                            move_of: MoveOf = no_moves, referee: str | None = None) -> Told:
    """A `boardlog.*` event in words (CommandAccepted is described through its command).
    `referee`: the game's referee's name (Match.referee), which a ruling or the referee's
    message names them by; without it they are "The referee"."""
    naming, word = _NAMING_MOVES.get(type), _EVENTS.get(type)
    if type == "boardlog.DisputeResolved":
        text = _dispute_resolved(data, names, move_of, referee)
    elif type == "boardlog.MessagePosted":
        text = _posted(data, names, referee)
    elif naming is not None:
        text = naming(data, names, move_of)
    else:
        text = word(data, names) if word else split_camel(type.partition(".")[2]).capitalize() + "."
    return Told(text, heading=_HEADINGS.get(type), quiet=type == "boardlog.ClockStarted")


def _resolve(who: str, a: Mapping[str, Any], m: MoveOf) -> str:
    verdict = "upheld" if a.get("verdict") == "upheld" else "voided"
    reason = str(a.get("reason") or "").strip()
    return f"{who} rules the dispute {verdict}" + (f": {reason}" if reason else ".")


_CONDUCT_COMMANDS: dict[str, Callable[[str, Mapping[str, Any], MoveOf], str]] = {
    "boardlog.resign": lambda who, a, m: f"{who} resigns.",
    "boardlog.propose": lambda who, a, m: f"{who} proposes {_KINDS.get(str(a.get('kind')), 'an agreement')}.",
    "boardlog.takeback": lambda who, a, m: f"{who} asks to take back their last move.",
    "boardlog.accept": lambda who, a, m: f"{who} accepts the proposal.",
    "boardlog.refuse": lambda who, a, m: f"{who} refuses the proposal.",
    "boardlog.dispute": lambda who, a, m: f"{who} disputes {_move(a.get('seq'), m)}.",
    "boardlog.clock": lambda who, a, m: "The platform sets the clock.",
    "boardlog.timeout": lambda who, a, m: "The deadline passes.",
    "boardlog.remind": lambda who, a, m: "The platform sends a reminder.",
    "boardlog.idle_end": lambda who, a, m: "The platform ends the game nobody moves in.",
    "boardlog.vacation": lambda who, a, m: f"{who} {'starts' if a.get('on') else 'ends'} a vacation.",
    "boardlog.resolve": _resolve,
}


def describe_platform_command(command: Command, names: Sequence[str], move_of: MoveOf = no_moves,
                              referee: str | None = None) -> str:
    """A `boardlog.*` command in words; `referee` as describe_platform_event's."""
    by_referee = command.seat is None and command.args.get("referee") is True
    who = the_referee(referee) if by_referee else seat_name(names, command.seat)
    if command.type == JOIN:
        return f"{who} joins the game."
    if command.type == ABORT:
        return "The admin ends the game."
    conduct = _CONDUCT_COMMANDS.get(command.type)
    if conduct is not None:
        return conduct(who, command.args, move_of)
    if command.type == "boardlog.post":
        return f"{who} writes a message."
    if command.type == "boardlog.hide":
        return "The admin hides a message."
    return f"{who}: {split_camel(command.type.partition('.')[2]) or 'a platform command'}."
