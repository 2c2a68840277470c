"""Disputes: a seat contests a command; the referee, or every other seat, settles it.

`boardlog.dispute {"seq", "note"}` opens one on the command whose CommandAccepted is at `seq`
(`DisputeOpened`). `boardlog.resolve {"verdict": "upheld" | "voided"}` settles it: in a refereed
game only the referee may (the HTTP layer marks the referee's command `"referee": true`), and it
is settled at once; in an unrefereed game each remaining seat other than the one that opened
it votes (`DisputeVoted`), and it is settled when all of them name the same verdict.

`DisputeResolved` says the verdict. Upheld changes nothing. Voided is followed by the same
compensating `TakenBack` a takeback appends: the game returns to the state before `seq`, the
undone commands stay in the log (conduct's `undone`, which replay strikes through), and the
draws counter returns with it, so a re-played command draws the same values at the same
indexes (docs/conduct.md, "What a takeback undoes", says why). One dispute is open at a time; while it
is, the clock stops (events.domain.platform.clock reads `Conduct.dispute_open`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from events.domain.matchstate import Match
from events.domain.platform.base import Context, Fold, PlatformCommand
from events.domain.platform.conduct import (
    Dispute,
    conduct_of,
    remaining,
    require_seat,
    with_conduct,
)
from events.domain.platform.takeback import compensating
from rules.core import Command, Event, IllegalCommand

OPEN = "boardlog.dispute"
RESOLVE = "boardlog.resolve"
DISPUTE_OPENED = "boardlog.DisputeOpened"
DISPUTE_VOTED = "boardlog.DisputeVoted"
DISPUTE_RESOLVED = "boardlog.DisputeResolved"
UPHELD, VOIDED = "upheld", "voided"
MAX_NOTE = 1000


def open_dispute(match: Match) -> Dispute | None:
    return next((d for d in conduct_of(match).disputes if d.verdict is None), None)


def decide_open(match: Match, command: Command, context: Context) -> list[Event]:
    extra = set(command.args) - {"seq", "note"}
    if extra:
        raise IllegalCommand("bad_args", f"{OPEN} takes seq and note, not {sorted(extra)}")
    seat = require_seat(match, command)
    seq, note = command.args.get("seq"), command.args.get("note", "")
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq <= match.seq:
        raise IllegalCommand("bad_seq", f"seq: the seq of a command of this game, 1 to {match.seq}")
    if not isinstance(note, str) or not note.strip() or len(note) > MAX_NOTE:
        raise IllegalCommand("bad_note", f"note: why, in 1 to {MAX_NOTE} characters")
    if open_dispute(match) is not None:
        raise IllegalCommand("dispute_open", "a dispute is open: it is settled first")
    if any(a <= seq <= b for a, b, _ in conduct_of(match).undone):
        raise IllegalCommand("already_undone", f"seq {seq} was already undone")
    if context.match_at is None:
        raise IllegalCommand("dispute_unavailable", "the game's past cannot be read here")
    last = context.match_at(seq).last_command
    if last is None or last[1] != seq:
        raise IllegalCommand("not_a_command", f"seq {seq} is not a command's (open a dispute on the "
                                              "CommandAccepted of the move you contest)")
    return [Event(DISPUTE_OPENED, {"seat": seat, "on": seq, "note": note}, seat)]


def fold_opened(match: Match, event: Event) -> Match:
    c = conduct_of(match)
    d = Dispute(match.seq, int(event.data["seat"]), int(event.data["on"]), str(event.data["note"]))
    return with_conduct(match, replace(c, disputes=(*c.disputes, d)))


def decide_resolve(match: Match, command: Command, context: Context) -> list[Event]:
    extra = set(command.args) - {"verdict", "dispute", "referee"}
    if extra:
        raise IllegalCommand("bad_args", f"{RESOLVE} takes verdict (and dispute), not {sorted(extra)}")
    verdict = command.args.get("verdict")
    if verdict not in (UPHELD, VOIDED):
        raise IllegalCommand("bad_args", f"verdict: {UPHELD!r} or {VOIDED!r}")
    d = open_dispute(match)
    if d is None:
        raise IllegalCommand("no_dispute", "there is no open dispute")
    named = command.args.get("dispute")
    if named is not None and named != d.seq:
        raise IllegalCommand("dispute_changed", f"the open dispute is the one of seq {d.seq}, not {named}")
    by_referee = command.args.get("referee") is True and command.seat is None
    if match.referee is not None:
        if not by_referee:
            raise IllegalCommand("referee_resolves", f"the referee, {match.referee}, settles this game's disputes")
        return _resolved(match, d, str(verdict), "referee", context)
    if by_referee:
        raise IllegalCommand("not_refereed", "this game has no referee: its other seats settle disputes")
    seat = require_seat(match, command)
    if seat == d.by:
        raise IllegalCommand("own_dispute", "the seat that opened the dispute does not vote on it")
    votes = {**dict(d.votes), seat: str(verdict)}
    events = [Event(DISPUTE_VOTED, {"seat": seat, "dispute": d.seq, "verdict": verdict}, seat)]
    voters = [s for s in remaining(match) if s != d.by]
    if all(votes.get(s) == verdict for s in voters):
        events += _resolved(match, d, str(verdict), "seats", context)
    return events


def _resolved(match: Match, d: Dispute, verdict: str, by: str, context: Context) -> list[Event]:
    resolved = Event(DISPUTE_RESOLVED, {"dispute": d.seq, "on": d.on, "verdict": verdict, "by": by})
    if verdict == UPHELD:
        return [resolved]
    if context.match_at is None:
        raise IllegalCommand("dispute_unavailable", "the game's past cannot be read here")
    last = match.last_command
    assert last is not None  # a command was disputed, so there is a last one
    return [resolved, compensating(context.match_at(d.on - 1), d.on, last[2], {"dispute": d.seq})]


def fold_voted(match: Match, event: Event) -> Match:
    c = conduct_of(match)
    seat, verdict = int(event.data["seat"]), str(event.data["verdict"])
    disputes = tuple(
        replace(d, votes=(*((s, v) for s, v in d.votes if s != seat), (seat, verdict)))
        if d.seq == event.data["dispute"] else d for d in c.disputes)
    return with_conduct(match, replace(c, disputes=disputes))


def fold_resolved(match: Match, event: Event) -> Match:
    c = conduct_of(match)
    disputes = tuple(replace(d, verdict=str(event.data["verdict"])) if d.seq == event.data["dispute"] else d
                     for d in c.disputes)
    return with_conduct(match, replace(c, disputes=disputes))


COMMANDS: Mapping[str, PlatformCommand] = {
    OPEN: PlatformCommand(decide_open),
    RESOLVE: PlatformCommand(decide_resolve, who="seat_or_referee"),
}
EVENTS: Mapping[str, Fold] = {
    DISPUTE_OPENED: fold_opened,
    DISPUTE_VOTED: fold_voted,
    DISPUTE_RESOLVED: fold_resolved,
}
