"""Disputes: a seat contests another seat's command; the referee, or every other seat, settles it.

`boardlog.dispute {"seq", "note"}` opens one on the command whose CommandAccepted is at `seq`
(`DisputeOpened`), never on the seat's own (`own_move`: that is a takeback, which needs the
other seats' consent). A seat may also dispute a game step: the platform's timeout of a turn
(`step: "timeout"`), its own timeout too, since a timeout is no choice the seat made; voided, it
is followed by the clock's `TimeoutVoided` as well (the turn given back with a fresh period).
The platform's automatic answers for a seat are refused (`automatic_step`): a skip is part of
its timeout, and a resigned seat's default answer would only be played again. `boardlog.resolve {"verdict": "upheld" | "voided", "reason"}` settles
it: in a refereed game only the referee may (the HTTP layer marks the referee's command
`"referee": true`), with a reason, and it is settled at once; in an unrefereed game each
remaining seat other than the one that opened it votes (`DisputeVoted`, a reason optional), and
it is settled when all of them name the same verdict.

`DisputeResolved` says the verdict and the reason. Upheld changes nothing. Voided is followed by
the compensating `TakenBack` a takeback appends: the game returns to the state before `seq` and
the undone commands stay in the log (conduct's `undone`, which replay strikes through). The
draws counter does not return with it in a game made with the platform setting `void_draws:
"onward"` (every game made since it exists): the next draw index continues past every draw
made, so what is played instead draws fresh values nobody has seen. A record made before keeps
the rule it was played under (the counter returned, a re-played command drew the same values),
so it still audits as it did. `redraws` says, before the ruling, which draws a void would undo.

One dispute is open at a time; while it is, the game waits: its commands, takebacks and
agreements are refused (`dispute_open`, conduct's `waiting_on_dispute`), and the clock stops
(events.domain.platform.clock reads `Conduct.dispute_open`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from events.domain.matchstate import Match
from events.domain.platform.base import Context, Fold, PlatformCommand
from events.domain.platform.clock import clock_of, timed_out_at, voided_timeout
from events.domain.platform.conduct import (
    Dispute,
    conduct_of,
    remaining,
    require_seat,
    waiting_on_dispute,
    with_conduct,
)
from events.domain.platform.takeback import compensating, fold_taken_back
from events.domain.platform.talk import text_problem
from rules.core import EVERYTHING_SHOWN, Command, Event, IllegalCommand

OPEN = "boardlog.dispute"
RESOLVE = "boardlog.resolve"
DISPUTE_OPENED = "boardlog.DisputeOpened"
DISPUTE_VOTED = "boardlog.DisputeVoted"
DISPUTE_RESOLVED = "boardlog.DisputeResolved"
UPHELD, VOIDED = "upheld", "voided"
TIMEOUT_STEP = "timeout"  # DisputeOpened's "step" when it contests the platform's timeout of a turn
MAX_NOTE = 1000
MAX_REASON = 500
# The platform setting (GameCreated's "platform") under which a void keeps the draws counter
# where it is; a record without it was made when a void returned the counter with the state.
VOID_DRAWS, ONWARD = "void_draws", "onward"


def open_dispute(match: Match) -> Dispute | None:
    return next((d for d in conduct_of(match).disputes if d.verdict is None), None)


def decide_open(match: Match, command: Command, context: Context) -> list[Event]:
    extra = set(command.args) - {"seq", "note"}
    if extra:
        raise IllegalCommand("bad_args", f"{OPEN} takes seq and note, not {sorted(extra)}")
    seat = command.seat
    if seat is None or not 0 <= seat < len(match.seats):
        raise IllegalCommand("seat_required", f"{OPEN} is sent by a seat")
    seq, note = command.args.get("seq"), command.args.get("note", "")
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq <= match.seq:
        raise IllegalCommand("bad_seq", f"seq: the seq of a command of this game, 1 to {match.seq}")
    if not isinstance(note, str) or not note.strip() or len(note) > MAX_NOTE:
        raise IllegalCommand("bad_note", f"note: why, in 1 to {MAX_NOTE} characters")
    waiting = waiting_on_dispute(match)
    if waiting is not None:
        raise IllegalCommand(waiting.code, f"{waiting.message}; one dispute is settled before another opens")
    if any(a <= seq <= b for a, b, _ in conduct_of(match).undone):
        raise IllegalCommand("already_undone", f"seq {seq} was already undone")
    if context.match_at is None:
        raise IllegalCommand("dispute_unavailable", "the game's past cannot be read here")
    timed_out = timed_out_at(context.match_at, seq, match.seq)
    if timed_out is not None:
        return _open_on_timeout(match, seat, seq, note, timed_out, context.match_at)
    require_seat(match, command)
    last = context.match_at(seq).last_command
    if last is None or last[1] != seq:
        raise IllegalCommand("not_a_command", f"seq {seq} is not a command's (open a dispute on the "
                                              "CommandAccepted of the move or the timeout you contest)")
    _refuse_automatic(context.match_at(seq - 1), last[0], seq, context.match_at)
    if last[0] == seat:
        # A dispute needs nobody's consent to void a move: on one's own move it would be a
        # takeback the other seats never agreed to.
        raise IllegalCommand("own_move", "that is your own move: ask for a takeback instead")
    return [Event(DISPUTE_OPENED, {"seat": seat, "on": seq, "note": note, "of": last[0]}, seat)]


def _open_on_timeout(match: Match, seat: int, seq: int, note: str, of: int,
                     match_at: Callable[[int], Match]) -> list[Event]:
    """A dispute on the platform's timeout of seat `of`'s turn, by any seat, `of` itself too: a
    timeout is no choice of the seat's (its void is no takeback in disguise), and the seat that
    timed out is the one that knows the clock was wrong. A seat the timeout forfeited may still
    open it, though resigned; a seat resigned otherwise may not."""
    if seat in conduct_of(match).resigned and not (seat == of and seat not in conduct_of(match_at(seq)).resigned):
        raise IllegalCommand("resigned", "this seat has resigned")
    return [Event(DISPUTE_OPENED, {"seat": seat, "on": seq, "note": note, "of": of, "step": TIMEOUT_STEP}, seat)]


def _refuse_automatic(before: Match, mover: int | None, seq: int, match_at: Callable[[int], Match]) -> None:
    """The platform's own answers for a seat are no seat's move to dispute: the skip played for a
    timed-out seat is part of its timeout (dispute that: its void undoes both), and a resigned
    seat's answer is the game's default answer, which a void would only play again."""
    if mover is None:
        return
    if mover in clock_of(before).owed:
        # The skip follows its timeout at once: its CommandAccepted, then TurnTimedOut.
        where = f" at seq {seq - 2}" if timed_out_at(match_at, seq - 2, seq) == mover else ""
        raise IllegalCommand("automatic_step", f"seq {seq} is the platform's answer for a seat whose turn timed "
                                               f"out: dispute the timeout{where} instead, which it is part of")
    if mover in conduct_of(before).resigned:
        raise IllegalCommand("automatic_step", f"seq {seq} is the platform's answer for a resigned seat (the "
                                               "game's default answer), which a void would play again: dispute "
                                               "the move that led to it")


def fold_opened(match: Match, event: Event) -> Match:
    c = conduct_of(match)
    of = event.data.get("of")
    d = Dispute(match.seq, int(event.data["seat"]), int(event.data["on"]), str(event.data["note"]),
                of=of if isinstance(of, int) else None, step=str(event.data.get("step") or ""))
    return with_conduct(match, replace(c, disputes=(*c.disputes, d)))


def reason_problem(reason: Any) -> IllegalCommand | None:
    """Why `reason` cannot be a ruling's reason (None: it can): 1 to 500 characters of plain
    text, as table talk's (a reason is shown to every seat in the move list and the notices)."""
    if not isinstance(reason, str):
        return IllegalCommand("bad_reason", "reason: why, as a text of 1 to 500 characters")
    if len(reason) > MAX_REASON:
        return IllegalCommand("bad_reason", f"reason: at most {MAX_REASON} characters, not {len(reason)}")
    problem = text_problem(reason)
    if problem is not None:
        said = "it is empty" if problem.code == "message_empty" else problem.message.partition(": ")[2]
        return IllegalCommand("bad_reason", f"reason: why, in 1 to {MAX_REASON} characters of plain text ({said})")
    return None


def decide_resolve(match: Match, command: Command, context: Context) -> list[Event]:
    extra = set(command.args) - {"verdict", "dispute", "referee", "reason"}
    if extra:
        raise IllegalCommand("bad_args", f"{RESOLVE} takes verdict, reason (and dispute), not {sorted(extra)}")
    verdict = command.args.get("verdict")
    if verdict not in (UPHELD, VOIDED):
        raise IllegalCommand("bad_args", f"verdict: {UPHELD!r} or {VOIDED!r}")
    by_referee = command.args.get("referee") is True and command.seat is None
    reason = command.args.get("reason")
    if reason is not None or by_referee:  # the referee gives a reason; a seat's vote may
        problem = reason_problem(reason)
        if problem is not None:
            raise problem
    d = _the_open_one(match, command.args.get("dispute"))
    if match.referee is not None:
        if not by_referee:
            raise IllegalCommand("referee_resolves", f"the referee, {match.referee}, settles this game's disputes")
        return _resolved(match, d, str(verdict), "referee", str(reason), context)
    if by_referee:
        raise IllegalCommand("not_refereed", "this game has no referee: its other seats settle disputes")
    seat = require_seat(match, command)
    if seat == d.by:
        raise IllegalCommand("own_dispute", "the seat that opened the dispute does not vote on it")
    votes = {**dict(d.votes), seat: str(verdict)}
    voted = {"seat": seat, "dispute": d.seq, "verdict": verdict, **({"reason": reason} if reason else {})}
    events = [Event(DISPUTE_VOTED, voted, seat)]
    voters = [s for s in remaining(match) if s != d.by]
    if all(votes.get(s) == verdict for s in voters):
        events += _resolved(match, d, str(verdict), "seats", str(reason or ""), context)
    return events


def _the_open_one(match: Match, named: Any) -> Dispute:
    """The open dispute a ruling settles; refused when none is open, or it names another."""
    d = open_dispute(match)
    settled = next((x for x in conduct_of(match).disputes if x.seq == named and x.verdict is not None), None)
    if settled is not None:
        raise IllegalCommand("dispute_settled", f"the dispute of seq {named} was settled already: {settled.verdict}")
    if d is None:
        raise IllegalCommand("no_dispute", "there is no open dispute")
    if named is not None and named != d.seq:
        raise IllegalCommand("dispute_changed", f"the open dispute is the one of seq {d.seq}, not {named}")
    return d


def draws_onward(match: Match) -> bool:
    """Whether a void keeps the draws counter where it is (games made since the setting exists)."""
    return match.settings.get(VOID_DRAWS) == ONWARD


def _resolved(match: Match, d: Dispute, verdict: str, by: str, reason: str, context: Context) -> list[Event]:
    timeout = {"step": d.step, "of": d.of} if d.step == TIMEOUT_STEP else {}
    resolved = Event(DISPUTE_RESOLVED, {"dispute": d.seq, "on": d.on, "verdict": verdict, "by": by,
                                        "reason": reason, **timeout})
    if verdict == UPHELD:
        return [resolved]
    if context.match_at is None:
        raise IllegalCommand("dispute_unavailable", "the game's past cannot be read here")
    last = match.last_command
    onward = match.draws if draws_onward(match) else None
    before = context.match_at(d.on - 1)
    if not timeout:
        assert last is not None  # a command was disputed, so there is a last one
        return [resolved, compensating(before, d.on, last[2], {"dispute": d.seq}, onward)]
    # A timeout (under `pause`) may have no game command after it: the void undoes from the
    # timeout to the last game command after it, if any.
    upto = last[2] if last is not None and last[1] > d.on else d.on
    assert d.of is not None  # a timeout's dispute names the timed-out seat
    return [resolved, compensating(before, d.on, upto, {"dispute": d.seq}, onward),
            voided_timeout(before, match, d.of, d.on)]


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


def redraws(before: Match, now: Match, events: Sequence[Event], viewer: int | None) -> list[str]:
    """What a void of the open dispute would draw again, in words, one sentence a draw, told to
    `viewer` (a seat, None a spectator, EVERYTHING_SHOWN the referee) as its move list tells it:
    the referee learns before ruling that a void is a re-roll. `before` is the match just before
    the disputed command, `now` the match at the head, `events` the log between them (from the
    disputed command's CommandAccepted). Draws a takeback or an earlier void already undid are
    left out: a void cannot draw them again. A draw of the platform's answer for a seat whose turn
    timed out (a skip) says so: voiding the timeout re-draws it too."""
    rules, names = before.rules, [s.name for s in before.seats]
    undone = conduct_of(now).undone
    onward = draws_onward(now)
    state, seq = before.state, before.seq
    out: list[str] = []
    command: tuple[int, int, bool] | None = None  # (its seq, how many it drew, whether words told one)
    timed_out: int | None = None  # the seat a TurnTimedOut just named: the platform answers for it next
    for_whom = ""  # the current command's words when it is the platform's answer after a timeout
    for e in events:
        seq += 1
        if e.type == "boardlog.TakenBack":
            state = fold_taken_back(before, e).state
            continue
        if e.type == "boardlog.CommandAccepted":
            out += _untold(command, onward, for_whom)
            rng = e.data.get("rng") or [0, 0]
            command = (seq, int(rng[1]) - int(rng[0]), False)
            answered = timed_out is not None and e.seat == timed_out and not str(e.data.get("type")).startswith("boardlog.")
            for_whom = f", drawn by the platform's answer for {_name(names, timed_out)} after their turn timed out" \
                if answered else ""
            timed_out = None
            continue
        if e.type == "boardlog.TurnTimedOut":
            timed_out = e.seat
            continue
        if e.type.startswith("boardlog."):
            continue
        seen = e if viewer == EVERYTHING_SHOWN else rules.redact(e, viewer)
        if seen is not None and not any(a <= seq <= b for a, b, _ in undone):
            told = rules.describe_event(state, seen, viewer, names)
            if told.draw:
                out.append(_redraw(told.draw, seq, onward, for_whom))
                if command is not None:
                    command = (command[0], command[1], True)
        state = rules.evolve(state, e)
    return out + _untold(command, onward, for_whom)


def _name(names: Sequence[str], seat: int | None) -> str:
    return names[seat] if seat is not None and 0 <= seat < len(names) else f"seat {seat}"


def _redraw(draw: str, seq: int, onward: bool, for_whom: str = "") -> str:
    if onward:
        return f"voiding re-rolls the {draw} (seq {seq}){for_whom}: what is played instead draws afresh"
    return (f"voiding keeps the {draw} (seq {seq}){for_whom} for what is played instead: this game was made "
            "when a void drew the same values again")


def _untold(command: tuple[int, int, bool] | None, onward: bool, for_whom: str = "") -> list[str]:
    """A command that drew without an event saying what (a shuffle, a hidden pick), in words."""
    if command is None or command[1] <= 0 or command[2]:
        return []
    return [_redraw(f"{command[1]} random draw(s) of the command", command[0], onward, for_whom)]
