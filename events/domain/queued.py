"""Conditional moves: a seat's queued answers for its coming prompts, each optionally guarded by
the opponent command it answers ("if `summon knight g1` then `summon fighter b3`").

Pure: reading a queue a seat sends, and choosing the entry to play on a match. The queue itself
is private to its seat (events.store.private), never in the game's log; the command chosen
is appended as an ordinary command of that seat, which the audit re-runs like any other.

When the prompt reaches the seat, the entries are tried in order: the first whose guard matches
the last command another seat made since the seat's own last one (as the seat saw it: a command
whose details are hidden from it matches no guard) and which is legal now is played; it and the
entries before it leave the queue (those were the answers to what did not happen), the ones after
it wait for the next prompts. When none fits, the whole queue is dropped and the seat is told.

A takeback or a voided dispute (`boardlog.TakenBack`) returns the game to an earlier seq; the
undone commands stay in the log. A guard is compared only with commands still in force, and a
queue is void (dropped, and its seat told) when a TakenBack after it was set undid the position
it was set in, or a command played from it: it answered a line of play that no longer stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from events.domain.matchstate import Match
from events.domain.platform.conduct import conduct_of
from rules.core import Command, Game, IllegalCommand, InvalidCommand

MAX_ENTRIES = 20
# The id part of a command played from a queue: `auto-<seq>-queued-<seat>` (workers/commands.py).
QUEUED_PART = "-queued-"
MAX_NOTATION = 200


@dataclass(frozen=True, slots=True)
class Entry:
    guard: str | None  # the opponent command's notation, as the game prints it; None: whatever came
    then: str  # the seat's command, in notation

    def to_json(self) -> dict[str, Any]:
        return {"if": self.guard, "then": self.then}


def _words(text: str) -> str:
    return " ".join(text.split())


def _notation(raw: Any, what: str, i: int) -> str:
    if not isinstance(raw, str) or not raw.strip() or len(raw) > MAX_NOTATION:
        raise IllegalCommand("bad_queue", f"entry {i + 1}: '{what}' is a command in notation, "
                             f"1 to {MAX_NOTATION} characters")
    return _words(raw)


def read_queue(rules: Game, seats: int, seat: int, raw: Any) -> list[Entry]:
    """The queue a seat sends, checked and in the game's own notation; IllegalCommand says why not.
    Each `then` must read as a command of `seat`, each `if` as a command of another seat."""
    if not isinstance(raw, list) or len(raw) > MAX_ENTRIES:
        raise IllegalCommand("bad_queue", f"'queue' is a list of at most {MAX_ENTRIES} entries "
                             "{\"if\": <opponent command>?, \"then\": <your command>}")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "then" not in item or set(item) - {"if", "then"}:
            raise IllegalCommand("bad_queue", f"entry {i + 1} is {{\"if\": <opponent command>?, \"then\": <your command>}}")
        then = _notation(item["then"], "then", i)
        try:
            mine = rules.format_text(rules.parse_text(then, seat))
        except InvalidCommand as e:
            raise IllegalCommand("bad_queue", f"entry {i + 1}: 'then' does not read: {e.message}") from None
        guard = item.get("if")
        if guard is not None:
            text = _notation(guard, "if", i)
            guard = _other_seats_notation(rules, seats, seat, text)
            if guard is None:
                raise IllegalCommand("bad_queue", f"entry {i + 1}: 'if' does not read as another seat's command")
        out.append(Entry(guard, mine))
    return out


def _other_seats_notation(rules: Game, seats: int, seat: int, text: str) -> str | None:
    for other in range(seats):
        if other == seat:
            continue
        try:
            return rules.format_text(rules.parse_text(text, other))
        except InvalidCommand:
            continue
    return None


def entries_of(raw: list[dict[str, Any]]) -> list[Entry]:
    """A stored queue (already checked when it was sent)."""
    return [Entry(e.get("if"), str(e.get("then", ""))) for e in raw if isinstance(e, dict)]


def seen_notation(rules: Game, command: Command, seat: int) -> str | None:
    """The notation of another seat's command as `seat` saw it; None when its details are
    hidden from `seat` (a guard never learns what the seat could not see)."""
    seen = rules.redact_command(command, seat)
    if seen is None or seen != command:
        return None
    return _words(rules.format_text(command))


def pick(match: Match, seat: int, entries: list[Entry], last: str | None) -> tuple[int, Command] | None:
    """The entry to play now (its index and the command, exactly as the game lists it), or None.
    `last` is the notation of the last command another seat made since `seat`'s own, as `seat`
    saw it (None: none, or hidden from it)."""
    rules = match.rules
    legal: dict[str, Command] | None = None
    for i, entry in enumerate(entries):
        if entry.guard is not None and (last is None or _words(entry.guard) != last):
            continue
        if legal is None:
            legal = {_words(rules.format_text(c)): c for c in rules.legal_commands(match.state, seat)}
        try:
            wanted = _words(rules.format_text(rules.parse_text(entry.then, seat)))
        except InvalidCommand:
            continue
        found = legal.get(wanted)
        if found is not None:
            return i, found
    return None


def in_force(match: Match, seq: int) -> bool:
    """Whether the event at `seq` still counts: no TakenBack undid it."""
    return not any(first <= seq <= last for first, last, _ in conduct_of(match).undone)


def void_reason(match: Match, since: int, played: list[int]) -> str | None:
    """Why a seat's queue, set at game seq `since`, with commands played from it at the seqs
    `played`, no longer stands after a takeback or a voided dispute; None while it does. A
    TakenBack after it was set voids it when it undid the position it was set in (`since`
    inside the undone seqs) or one of its answers: the entries were planned for a line of play
    that is gone, and one of them might be answered by a move nobody makes any more."""
    for first, last, by in conduct_of(match).undone:
        if by <= since:
            continue  # undone before the queue was set: the seat saw the game as it stood then
        if since >= first:
            return (f"a takeback returned the game to seq {first - 1}, before this queue was set "
                    f"(at seq {since}), so the queue was dropped")
        if any(first <= p <= last for p in played):
            return (f"a takeback undid the answer played from this queue (seqs {first}-{last}), "
                    "so the rest of it was dropped")
    return None
