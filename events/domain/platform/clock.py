"""The clock: a deadline for every prompt, what a timeout does, and seats away on vacation.

A game created with the platform option `clock` (`{"per_move": s, "bank": s, "increment": s,
"reminder": s, "on_timeout": "skip" | "forfeit" | "pause", "abandon_after": n}`, in seconds) has
a clock. Time enters
as data: every change of the clock is an event written by a platform command that reads the
envelope's own time (`Context.at`), so the audit, re-running it with the record's time, gets the
same deadlines. No clock is read here.

- `boardlog.clock` (sent by the platform itself, an AUTOMATIC rule, after any command that moved
  the prompt or changed what stops the clock) appends `ClockStarted` (a new prompt: each of its
  seats gets `per_move` plus its reserve bank), `ClockStopped` (a seat went on vacation, a
  dispute opened, a timeout paused the game: the time left is kept) or `ClockResumed` (the
  deadline is the time left from now). Each names the deadlines in ISO time; its seq is what a
  scheduled deadline carries, so a deadline set for an older clock is a no-op.
- `boardlog.timeout {clock, seat}` (the deadlines worker, once the deadline passed) appends
  `TurnTimedOut`; then by the game's choice the platform answers for the seat with the game's
  default answer (skip: an AUTOMATIC rule), the seat resigns (forfeit: conduct's resign, in the
  same command) or every clock stops until the seat moves (pause).
  A seat's `abandon_after`-th timeout in a row (turns of its own it let run out, skipped or
  paused; a turn it plays in time starts the count again) is a forfeit whatever `on_timeout`
  says. A record whose clock has no `abandon_after` was made before the rule and keeps the old
  one (no count), so it still audits as it was played.
- `boardlog.idle_end {since, moved_at, after}` (the deadlines worker, once no game command came
  for `after` seconds since the one at seq `since`, played at `moved_at`) appends
  `GameAbandoned`: the game ends without a winner, every seat is told.
- A timeout may be disputed (events.domain.platform.disputes); voided, it is followed by
  `TimeoutVoided` (`voided_timeout`): the turn is the timed-out seat's again, with a fresh period.
- `boardlog.remind {clock, seat}` appends `ReminderDue`; the notifier tells the seat.
- `boardlog.vacation {on}` (the API, for every game of a player who starts or ends a vacation)
  appends `VacationStarted` / `VacationEnded`; a seat on vacation has its clock stopped.

Fischer-like bank: a seat's deadline is `per_move + bank` after the prompt reaches it; time used
beyond `per_move` comes out of the bank, and every move adds `increment` to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any

from events.domain.matchstate import Match
from events.domain.platform.base import Automatic, Context, Fold, OptionCheck, PlatformCommand
from events.domain.platform.conduct import conduct_of, with_conduct
from rules.core import Command, Event, IllegalCommand, InvalidCommand, Outcome

KEY = "clock"
OPTION = "clock"

CLOCK = "boardlog.clock"
TIMEOUT = "boardlog.timeout"
REMIND = "boardlog.remind"
IDLE_END = "boardlog.idle_end"
VACATION = "boardlog.vacation"
RESIGN = "boardlog.resign"  # conduct's: a forfeit resigns the seat

CLOCK_STARTED = "boardlog.ClockStarted"
CLOCK_STOPPED = "boardlog.ClockStopped"
CLOCK_RESUMED = "boardlog.ClockResumed"
TURN_TIMED_OUT = "boardlog.TurnTimedOut"
REMINDER_DUE = "boardlog.ReminderDue"
VACATION_STARTED = "boardlog.VacationStarted"
VACATION_ENDED = "boardlog.VacationEnded"
GAME_ABANDONED = "boardlog.GameAbandoned"
TIMEOUT_VOIDED = "boardlog.TimeoutVoided"

ACTIONS = ("skip", "forfeit", "pause")
HOUR, DAY = 3600, 86400
MIN_SECONDS, MAX_SECONDS = HOUR, 14 * DAY
MAX_BANK = 60 * DAY
# Timeouts in a row that end a seat's play; a new game's clock always says its own.
ABANDON_AFTER, MAX_ABANDON_AFTER = 3, 100


@dataclass(frozen=True, slots=True)
class Clock:
    """The folded clock of a match."""

    seq: int = 0  # the seq of the last ClockStarted / Stopped / Resumed: what a deadline carries
    last: tuple[int | None, int, int] | None = None  # the match's last_command when the clock started
    seats: tuple[int, ...] = ()  # the seats the prompt waited on then
    deadlines: tuple[tuple[int, str], ...] = ()  # running seats: (seat, ISO deadline)
    left: tuple[tuple[int, int], ...] = ()  # stopped seats: (seat, ms left)
    banks: tuple[int, ...] = ()  # each seat's reserve, ms
    vacation: frozenset[int] = frozenset()
    paused: bool = False  # a timeout under `pause`: every clock waits until the prompt moves
    owed: frozenset[int] = frozenset()  # timed-out seats the platform answers for (skip)
    timed_out: frozenset[int] = frozenset()
    reminded: frozenset[int] = frozenset()
    stopped_by: str = ""  # why clocks are stopped (words for the views), "" while they run
    # (seat, timeouts in a row): turns of its own the seat let run out since it last moved in time
    in_a_row: tuple[tuple[int, int], ...] = ()

    def deadline(self, seat: int) -> str | None:
        return dict(self.deadlines).get(seat)

    def timeouts(self, seat: int) -> int:
        return dict(self.in_a_row).get(seat, 0)


@dataclass(frozen=True, slots=True)
class Setting:
    """The `clock` option, checked."""

    per_move: int
    bank: int = 0
    increment: int = 0
    reminder: int = 0
    on_timeout: str = "skip"
    abandon_after: int = 0  # 0: a clock made before the rule, which never counts timeouts

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"per_move": self.per_move, "bank": self.bank, "increment": self.increment,
                               "reminder": self.reminder, "on_timeout": self.on_timeout}
        if self.abandon_after:
            out["abandon_after"] = self.abandon_after
        return out


def _seconds(raw: Any, name: str, lo: int, hi: int) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool) or not lo <= raw <= hi:
        raise InvalidCommand("bad_options", f"clock.{name} is a whole number of seconds from {lo} to {hi}")
    return raw


def parse_setting(raw: Any, min_seconds: int = MIN_SECONDS) -> dict[str, Any]:
    """The `clock` option as stored (every field written), or InvalidCommand saying why not.
    `min_seconds`: the shortest per-move time this deployment allows (an hour unless set)."""
    if not isinstance(raw, Mapping):
        raise InvalidCommand("bad_options", "clock is an object: {\"per_move\": seconds, \"bank\"?, "
                                            "\"increment\"?, \"reminder\"?, \"on_timeout\"?, "
                                            "\"abandon_after\"?}")
    extra = set(raw) - {"per_move", "bank", "increment", "reminder", "on_timeout", "abandon_after"}
    if extra:
        raise InvalidCommand("bad_options", f"unknown clock fields: {sorted(extra)}")
    lo = max(1, min(min_seconds, MIN_SECONDS))
    if "per_move" not in raw:
        raise InvalidCommand("bad_options", "clock.per_move (seconds a move) is required")
    per_move = _seconds(raw["per_move"], "per_move", lo, MAX_SECONDS)
    bank = _seconds(raw.get("bank", 0), "bank", 0, MAX_BANK)
    increment = _seconds(raw.get("increment", 0), "increment", 0, MAX_SECONDS)
    reminder = _seconds(raw.get("reminder", 0), "reminder", 0, MAX_SECONDS)
    if reminder and reminder >= per_move + bank:
        raise InvalidCommand("bad_options", "clock.reminder must be shorter than the time a move has")
    action = raw.get("on_timeout", "skip")
    if action not in ACTIONS:
        raise InvalidCommand("bad_options", f"clock.on_timeout is one of {list(ACTIONS)}")
    abandon_after = raw.get("abandon_after", ABANDON_AFTER)
    if (not isinstance(abandon_after, int) or isinstance(abandon_after, bool)
            or not 1 <= abandon_after <= MAX_ABANDON_AFTER):
        raise InvalidCommand("bad_options", "clock.abandon_after (timeouts in a row that forfeit a seat) is a "
                                            f"whole number from 1 to {MAX_ABANDON_AFTER}")
    return Setting(per_move, bank, increment, reminder, action, abandon_after).to_json()


# The shortest per-move time this deployment allows (BOARDLOG_CLOCK_MIN_SECONDS), set once by the
# composition root; only creating a game reads it (a stored game's clock is never checked again).
_min_seconds = MIN_SECONDS


def allow_seconds(minimum: int) -> None:
    global _min_seconds
    _min_seconds = max(1, int(minimum))


def check_option(raw: Any) -> dict[str, Any]:
    return parse_setting(raw, _min_seconds)


def setting_of(match: Match) -> Setting | None:
    raw = match.settings.get(OPTION) if isinstance(match.settings, Mapping) else None
    if not isinstance(raw, Mapping):
        return None
    return Setting(int(raw["per_move"]), int(raw.get("bank", 0)), int(raw.get("increment", 0)),
                   int(raw.get("reminder", 0)), str(raw.get("on_timeout", "skip")),
                   int(raw.get("abandon_after", 0)))


# A match with no clock: one shared (frozen) value, as conduct's NONE. Asked on every fold and
# every automatic check, making a new one cost ~4 us each time (the worker's profile under load).
NO_CLOCK = Clock()


def clock_of(match: Match) -> Clock:
    found = match.platform.get(KEY)
    return found if isinstance(found, Clock) else NO_CLOCK


# Time as the envelopes write it: ISO 8601 UTC with milliseconds.
def to_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def to_iso(ms: int) -> str:
    t = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _dispute_open(match: Match) -> bool:
    """Whether conduct's state holds an open dispute (it stops every clock)."""
    return bool(getattr(match.platform.get("conduct"), "dispute_open", False))


def _stopped_by(match: Match, clock: Clock) -> str:
    if clock.paused:
        return "timeout"
    if _dispute_open(match):
        return "dispute"
    return ""


def _running(match: Match, clock: Clock, seat: int) -> bool:
    return not _stopped_by(match, clock) and seat not in clock.vacation


def _prompt_seats(match: Match) -> tuple[int, ...]:
    prompt = match.prompt
    return () if prompt is None else tuple(prompt.seats)


def due_change(match: Match) -> str | None:
    """The clock event the match calls for now (CLOCK_STARTED / STOPPED / RESUMED), or None."""
    setting = setting_of(match)
    if setting is None or match.over:
        return None
    clock = clock_of(match)
    seats = _prompt_seats(match)
    if clock.owed and clock.last == match.last_command:
        return None  # the skip answer comes first
    if clock.last != match.last_command or clock.seats != seats or clock.seq == 0:
        return CLOCK_STARTED
    running = {s for s, _ in clock.deadlines}
    want = {s for s in seats if _running(match, clock, s)}
    if running == want and clock.stopped_by == _stopped_by(match, clock):
        return None
    return CLOCK_RESUMED if want - running else CLOCK_STOPPED


def _remaining(clock: Clock, seat: int, now: int) -> int | None:
    """The ms `seat` had left at `now` on the clock as it is (None: not on it)."""
    d = clock.deadline(seat)
    if d is not None:
        return max(0, to_ms(d) - now)
    left = dict(clock.left)
    return left.get(seat)


def _decide_clock(match: Match, command: Command, context: Context) -> list[Event]:
    change = due_change(match)
    if change is None:
        raise IllegalCommand("clock_unchanged", "the clock already stands as the game calls for")
    setting = setting_of(match)
    assert setting is not None
    clock = clock_of(match)
    now = to_ms(context.at)
    seats = _prompt_seats(match)
    n = len(match.seats)
    banks = list(clock.banks) if len(clock.banks) == n else [setting.bank * 1000] * n
    budget: dict[int, int] = {}
    if change == CLOCK_STARTED:
        # A seat still prompted that did not make the move (another seat of a prompt they share
        # did) keeps the time it had: its move is still to come.
        mover = match.last_command[0] if match.last_command is not None else None
        waiting = {s for s in seats if clock.seq and s in clock.seats and s != mover}
        if clock.seq:
            # The seats that were on the clock and moved (or the prompt moved past them): time
            # used beyond the move's own comes out of the bank, and each move adds the increment.
            for s in clock.seats:
                r = _remaining(clock, s, now)
                if r is not None and 0 <= s < n and s not in waiting:
                    banks[s] = min(banks[s], r) + setting.increment * 1000
        for s in seats:
            kept = _remaining(clock, s, now) if s in waiting else None
            budget[s] = kept if kept is not None else setting.per_move * 1000 + (banks[s] if 0 <= s < n else 0)
    else:
        for s in seats:
            r = _remaining(clock, s, now)
            budget[s] = r if r is not None else setting.per_move * 1000
    deadlines, left = {}, {}
    for s in seats:
        if _running(match, clock, s):
            deadlines[str(s)] = to_iso(now + budget[s])
        else:
            left[str(s)] = budget[s]
    data = {"seats": list(seats), "deadlines": deadlines, "left": left, "banks": banks, "at": context.at}
    why = _stopped_by(match, clock) or ("vacation" if any(s in clock.vacation for s in seats) else "")
    if why:
        data["why"] = why
    return [Event(change, data, None)]


def _clock_arg(match: Match, command: Command) -> tuple[Clock, int]:
    args = command.args
    seat = args.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(match.seats):
        raise IllegalCommand("bad_args", "'seat' is the seat whose deadline it is")
    clock = clock_of(match)
    if setting_of(match) is None:
        raise IllegalCommand("no_clock", "this game has no clock")
    if args.get("clock") != clock.seq or clock.seq == 0:
        raise IllegalCommand("deadline_moved_on", f"the clock was set again since step {args.get('clock')}")
    return clock, seat


def _decide_timeout(match: Match, command: Command, context: Context) -> list[Event]:
    clock, seat = _clock_arg(match, command)
    setting = setting_of(match)
    assert setting is not None
    deadline = clock.deadline(seat)
    if deadline is None or seat in clock.timed_out:
        raise IllegalCommand("deadline_moved_on", f"seat {seat} has no running deadline")
    if to_ms(context.at) < to_ms(deadline):
        raise IllegalCommand("deadline_not_reached", f"seat {seat}'s deadline is {deadline}")
    data: dict[str, Any] = {"seat": seat, "deadline": deadline, "action": setting.on_timeout, "at": context.at}
    n = clock.timeouts(seat) + 1
    if setting.abandon_after:
        # Only a clock made under the rule counts: an older record re-runs as it was played.
        data.update(in_a_row=n, abandon_after=setting.abandon_after)
        if n >= setting.abandon_after:
            data["action"] = "forfeit"
    timed_out = Event(TURN_TIMED_OUT, data, seat)
    if data["action"] != "forfeit":
        return [timed_out]
    resign = _commands.get(RESIGN)
    if resign is None:
        raise IllegalCommand("forfeit_unavailable", "this build cannot resign a seat")
    resigned = resign.decide(match, Command(RESIGN, {}, seat), context)
    if setting.abandon_after:
        # The resignation says why, so the outcome and the move list can.
        resigned = [Event(e.type, {**e.data, "timeouts": n}, e.seat) for e in resigned]
    return [timed_out, *resigned]


def last_move_seq(match: Match) -> int:
    """The seq the game last moved at: its last game command's first (the game's creation before
    any). The platform's answers for a seat (a skip, a resigned seat's pass) count: a clocked
    game whose seats all vanished ends by `abandon_after` first."""
    return match.last_command[1] if match.last_command is not None else 1


def _decide_idle_end(match: Match, command: Command, context: Context) -> list[Event]:
    args = command.args
    since, moved_at, after = args.get("since"), args.get("moved_at"), args.get("after")
    if (not isinstance(since, int) or isinstance(since, bool) or not isinstance(moved_at, str)
            or not isinstance(after, int) or isinstance(after, bool) or after < 1):
        raise IllegalCommand("bad_args", "'since' is the seq of the last move, 'moved_at' its ISO time, "
                                         "'after' the seconds without a move that end a game")
    if since != last_move_seq(match):
        raise IllegalCommand("moved_since", f"the game moved at seq {last_move_seq(match)}, after seq {since}")
    try:
        idle_until = to_ms(moved_at) + after * 1000
    except ValueError:
        raise IllegalCommand("bad_args", "'moved_at' is an ISO time") from None
    if to_ms(context.at) < idle_until:
        raise IllegalCommand("not_idle_yet", f"the game is idle until {to_iso(idle_until)}")
    return [Event(GAME_ABANDONED, {"since": since, "moved_at": moved_at, "after": after, "at": context.at}, None)]


def period_words(seconds: int) -> str:
    """A span of whole days, hours, minutes or seconds in words ("30 days", "1 hour")."""
    for size, unit in ((DAY, "day"), (HOUR, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def _fold_abandoned(match: Match, event: Event) -> Match:
    after = int(event.data["after"])
    ended = Outcome((), (), f"abandoned: no seat moved for {period_words(after)}")
    return with_conduct(match, replace(conduct_of(match), proposal=None, ended=ended))


def _decide_remind(match: Match, command: Command, context: Context) -> list[Event]:
    clock, seat = _clock_arg(match, command)
    setting = setting_of(match)
    assert setting is not None
    deadline = clock.deadline(seat)
    if deadline is None or not setting.reminder or seat in clock.reminded:
        raise IllegalCommand("deadline_moved_on", f"no reminder is due for seat {seat}")
    if to_ms(context.at) < to_ms(deadline) - setting.reminder * 1000:
        raise IllegalCommand("reminder_not_due", f"seat {seat}'s reminder is due {setting.reminder} s before {deadline}")
    return [Event(REMINDER_DUE, {"seat": seat, "deadline": deadline, "at": context.at}, seat)]


def _decide_vacation(match: Match, command: Command, context: Context) -> list[Event]:
    seat = command.seat
    if seat is None or not 0 <= seat < len(match.seats):
        raise IllegalCommand("seat_required", "a vacation is a seat's")
    on = command.args.get("on")
    if not isinstance(on, bool):
        raise IllegalCommand("bad_args", "'on' is true (the vacation starts) or false (it ends)")
    away = seat in clock_of(match).vacation
    if on == away:
        raise IllegalCommand("vacation_unchanged", f"seat {seat} is {'already' if away else 'not'} on vacation")
    data: dict[str, Any] = {"seat": seat, "at": context.at}
    until = command.args.get("until")
    if on and isinstance(until, str):
        data["until"] = until
    return [Event(VACATION_STARTED if on else VACATION_ENDED, data, seat)]


def _with(match: Match, clock: Clock) -> Match:
    return replace(match, platform=MappingProxyType({**match.platform, KEY: clock}))


def _fold_set(match: Match, event: Event) -> Match:
    d = event.data
    clock = clock_of(match)
    started = event.type == CLOCK_STARTED
    in_a_row = clock.in_a_row
    if started and match.last_command is not None and match.last_command != clock.last:
        # A turn the mover played itself, in time, ends its run of timeouts; a skip played for it,
        # or a move it made late under `pause`, does not.
        mover = match.last_command[0]
        if mover not in clock.timed_out:
            in_a_row = tuple((s, n) for s, n in in_a_row if s != mover)
    clock = replace(
        clock,
        seq=match.seq,
        last=match.last_command if started else clock.last,
        seats=tuple(int(s) for s in d["seats"]),
        deadlines=tuple(sorted((int(s), str(v)) for s, v in d["deadlines"].items())),
        left=tuple(sorted((int(s), int(v)) for s, v in d["left"].items())),
        banks=tuple(int(b) for b in d["banks"]),
        paused=False if started else clock.paused,
        owed=frozenset() if started else clock.owed,
        timed_out=frozenset() if started else clock.timed_out,
        reminded=frozenset() if started else clock.reminded,
        stopped_by=str(d.get("why", "")) if d.get("why") in ("timeout", "dispute") else "",
        in_a_row=in_a_row,
    )
    return _with(match, clock)


def _fold_timed_out(match: Match, event: Event) -> Match:
    d = event.data
    clock = clock_of(match)
    seat = int(d["seat"])
    counts = dict(clock.in_a_row)
    counts[seat] = counts.get(seat, 0) + 1
    clock = replace(clock, timed_out=clock.timed_out | {seat}, in_a_row=tuple(sorted(counts.items())),
                    owed=clock.owed | {seat} if d["action"] == "skip" else clock.owed,
                    paused=clock.paused or d["action"] == "pause")
    return _with(match, clock)


def timed_out_at(match_at: Callable[[int], Match], seq: int, head: int) -> int | None:
    """The seat whose turn timed out by the command whose CommandAccepted is at `seq` (None: no
    timeout's). Its TurnTimedOut follows at once and is the only event that adds a seat to the
    clock's `timed_out`, so the two matches either side of it tell, with no event at hand."""
    if not 1 <= seq < head:
        return None
    new = clock_of(match_at(seq + 1)).timed_out - clock_of(match_at(seq)).timed_out
    return next(iter(new)) if len(new) == 1 else None


def voided_timeout(before: Match, now: Match, seat: int, on: int) -> Event:
    """What a voided timeout does to the clock and the seat, beside the TakenBack that returns the
    game to `before` (the match just before the timeout at `on`): the timed-out turn is given back
    with a fresh period, `per_move` plus the seat's bank as it stood when that turn began (every
    seat's bank returns to then, as the moves after it are undone too), and the timeout no longer
    counts towards `abandon_after`. `forfeit`: whether the timeout resigned the seat, which the
    void undoes (a timeout that ended the game is past disputing: the seed is revealed)."""
    clock = clock_of(before)
    forfeit = seat in conduct_of(now).resigned and seat not in conduct_of(before).resigned
    return Event(TIMEOUT_VOIDED, {"seat": seat, "timeout": on, "banks": list(clock.banks),
                                  "in_a_row": clock.timeouts(seat), "forfeit": forfeit}, seat)


def _fold_timeout_voided(match: Match, event: Event) -> Match:
    d = event.data
    seat = int(d["seat"])
    clock = clock_of(match)
    counts = {**dict(clock.in_a_row), seat: int(d["in_a_row"])}
    # No seats on the clock and the last command as it stands: the next clock change is a
    # ClockStarted that settles no bank and keeps no time left, so every prompted seat gets
    # `per_move` plus its bank, and nobody's run of timeouts is ended by the restored move.
    clock = replace(clock, seq=match.seq, last=match.last_command, seats=(), deadlines=(), left=(),
                    banks=tuple(int(b) for b in d["banks"]), paused=False, owed=frozenset(),
                    timed_out=frozenset(), reminded=frozenset(), stopped_by="",
                    in_a_row=tuple(sorted((s, n) for s, n in counts.items() if n)))
    match = _with(match, clock)
    if d.get("forfeit") is True:
        c = conduct_of(match)
        match = with_conduct(match, replace(c, resigned=tuple(s for s in c.resigned if s != seat)))
    return match


def _fold_reminded(match: Match, event: Event) -> Match:
    clock = clock_of(match)
    return _with(match, replace(clock, reminded=clock.reminded | {int(event.data["seat"])}))


def _fold_vacation(match: Match, event: Event) -> Match:
    clock = clock_of(match)
    seat = int(event.data["seat"])
    away = clock.vacation | {seat} if event.type == VACATION_STARTED else clock.vacation - {seat}
    return _with(match, replace(clock, vacation=away))


def _clock_due(match: Match) -> tuple[str, Command] | None:
    if due_change(match) is None:
        return None
    return "clock", Command(CLOCK, {}, None)


def _skip_due(match: Match) -> tuple[str, Command] | None:
    """The game's default answer for a seat that timed out under `skip`, once."""
    clock = clock_of(match)
    if not clock.owed or clock.last != match.last_command or match.over:
        return None
    waiting = [s for s in _prompt_seats(match) if s in clock.owed]
    if not waiting:
        return None
    seat = waiting[0]
    answer = default_answer(match, seat)
    if answer is None:
        return None
    return f"skip-{seat}", Command(answer.type, dict(answer.args), seat)


def default_answer(match: Match, seat: int) -> Command | None:
    """The game's own default answer for `seat` (conduct's `default_answer` on each Game: a pass
    where the rules allow one, else the rule each game's RULINGS.md writes)."""
    rules = match.rules
    pick = getattr(rules, "default_answer", None)
    if pick is None:
        return None
    found = pick(match.state, seat)
    return found if isinstance(found, Command) else None


# The platform's whole command table, given by the package (events.domain.platform) so that a
# forfeit runs conduct's own resign without this module importing the package.
_commands: dict[str, PlatformCommand] = {}


def use_commands(table: dict[str, PlatformCommand]) -> None:
    global _commands
    _commands = table


COMMANDS: dict[str, PlatformCommand] = {
    CLOCK: PlatformCommand(_decide_clock, who="platform"),
    TIMEOUT: PlatformCommand(_decide_timeout, who="platform"),
    REMIND: PlatformCommand(_decide_remind, who="platform"),
    VACATION: PlatformCommand(_decide_vacation, who="platform"),
    IDLE_END: PlatformCommand(_decide_idle_end, who="platform"),
}
EVENTS: dict[str, Fold] = {
    CLOCK_STARTED: _fold_set,
    CLOCK_STOPPED: _fold_set,
    CLOCK_RESUMED: _fold_set,
    TURN_TIMED_OUT: _fold_timed_out,
    REMINDER_DUE: _fold_reminded,
    VACATION_STARTED: _fold_vacation,
    VACATION_ENDED: _fold_vacation,
    GAME_ABANDONED: _fold_abandoned,
    TIMEOUT_VOIDED: _fold_timeout_voided,
}
OPTIONS: dict[str, OptionCheck] = {OPTION: check_option}
# The skip answer before the clock's own change: the clock starts for whoever the answer leaves.
AUTOMATIC: list[Automatic] = [_skip_due, _clock_due]


def deadline_view(match: Match) -> dict[str, Any] | None:
    """The clock as the summary, the board and /me show it (public: times only)."""
    setting = setting_of(match)
    if setting is None:
        return None
    clock = clock_of(match)
    return {
        "per_move": setting.per_move, "bank": setting.bank, "increment": setting.increment,
        "reminder": setting.reminder, "on_timeout": setting.on_timeout,
        "seq": clock.seq,
        "deadlines": {} if match.over else {str(s): d for s, d in clock.deadlines},  # none runs after the end
        "left_ms": {str(s): ms for s, ms in clock.left},
        "banks_ms": list(clock.banks),
        "vacation": sorted(clock.vacation),
        "paused": clock.paused,
        "stopped_by": clock.stopped_by,
        "timed_out": sorted(clock.timed_out),
        "abandon_after": setting.abandon_after or None,  # None: a clock from before the rule
        "in_a_row": {str(s): n for s, n in clock.in_a_row},
    }
