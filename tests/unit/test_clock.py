"""The clock's fold and decisions with explicit times (time enters as data: Context.at)."""

from __future__ import annotations

import pytest

from events.domain.match import Match, automatic, created_event, decide_and_fold, fold_match
from events.domain.platform import Context
from events.domain.platform.clock import (
    CLOCK_RESUMED,
    CLOCK_STARTED,
    CLOCK_STOPPED,
    REMIND,
    REMINDER_DUE,
    TIMEOUT,
    TURN_TIMED_OUT,
    VACATION,
    clock_of,
    deadline_view,
    parse_setting,
    to_iso,
    to_ms,
)
from rules.core import Command, IllegalCommand, InvalidCommand, SeatInfo, get_game

SEED = b"s" * 32
T0 = to_ms("2026-12-01T10:00:00.000Z")


def _new(clock: dict[str, object], game: str = "factions", seats: int = 2) -> Match:
    g = get_game(game)
    infos = [SeatInfo(i, n) for i, n in enumerate(["ann", "bob", "cyd"][:seats])]
    events = created_event("p01-clock", g, infos, {}, SEED, [""] * seats, None,
                           {"clock": parse_setting(clock, 1)})
    return fold_match(events, "p01-clock")


def _run(match: Match, command: Command, at_ms: int, cid: str = "c") -> tuple[list[str], Match]:
    """One command and then the platform's own, all at `at_ms`; the event types appended."""
    ctx = Context(at=to_iso(at_ms))
    events, match = decide_and_fold(match, command, cid, SEED, ctx)
    types = [e.type for e in events]
    for i in range(20):
        due = automatic(match)
        if due is None:
            break
        events, match = decide_and_fold(match, due[1], f"auto{i}", SEED, ctx)
        types += [e.type for e in events]
    return types, match


def _start(match: Match, at_ms: int = T0) -> Match:
    return _run(match, Command("boardlog.clock", {}, None), at_ms)[1]


def _legal(match: Match, seat: int) -> Command:
    return next(iter(match.rules.legal_commands(match.state, seat)))


def test_setting_bounds() -> None:
    assert parse_setting({"per_move": 3600})["on_timeout"] == "skip"
    with pytest.raises(InvalidCommand):
        parse_setting({"per_move": 5})  # seconds only where the deployment allows it
    assert parse_setting({"per_move": 5}, 1)["per_move"] == 5
    with pytest.raises(InvalidCommand):
        parse_setting({"per_move": 15 * 86400})
    with pytest.raises(InvalidCommand):
        parse_setting({"per_move": 3600, "on_timeout": "explode"})
    with pytest.raises(InvalidCommand):
        parse_setting({"per_move": 3600, "reminder": 3600})
    with pytest.raises(InvalidCommand):
        parse_setting({"per_move": 3600, "colour": 1})


def test_clock_starts_for_the_prompted_seat_with_its_deadline() -> None:
    m = _start(_new({"per_move": 60}))
    c = clock_of(m)
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    assert c.deadline(seat) == to_iso(T0 + 60_000)
    assert automatic(m) is None  # nothing more due: the clock stands


def test_a_move_restarts_the_clock_with_the_bank_settled() -> None:
    m = _start(_new({"per_move": 60, "bank": 100, "increment": 10}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    assert clock_of(m).deadline(seat) == to_iso(T0 + 160_000)
    # 90 s used: 30 s beyond the move's own come out of the bank, then the increment.
    types, m = _run(m, _legal(m, seat), T0 + 90_000)
    assert CLOCK_STARTED in types
    assert clock_of(m).banks[seat] == 100_000 - 30_000 + 10_000


def test_timeout_before_the_deadline_is_refused_and_after_it_skips() -> None:
    m = _start(_new({"per_move": 60, "on_timeout": "skip"}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    c = clock_of(m)
    timeout = Command(TIMEOUT, {"clock": c.seq, "seat": seat}, None)
    with pytest.raises(IllegalCommand) as e:
        decide_and_fold(m, timeout, "t", SEED, Context(at=to_iso(T0 + 59_999)))
    assert e.value.code == "deadline_not_reached"
    types, after = _run(m, timeout, T0 + 60_000)
    assert types[:2] == ["boardlog.CommandAccepted", TURN_TIMED_OUT]
    # The default answer was played for the seat, then the clock started for the next prompt.
    assert after.last_command is not None and after.last_command[0] == seat
    assert types[-1] == CLOCK_STARTED
    # The same deadline again: the clock was set since.
    with pytest.raises(IllegalCommand) as e:
        decide_and_fold(after, timeout, "t2", SEED, Context(at=to_iso(T0 + 70_000)))
    assert e.value.code == "deadline_moved_on"


def test_timeout_pause_stops_every_clock_until_the_seat_moves() -> None:
    m = _start(_new({"per_move": 60, "on_timeout": "pause"}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    types, m = _run(m, Command(TIMEOUT, {"clock": clock_of(m).seq, "seat": seat}, None), T0 + 61_000)
    assert types[1] == TURN_TIMED_OUT and CLOCK_STOPPED in types
    c = clock_of(m)
    assert c.paused and not c.deadlines and deadline_view(m)["stopped_by"] == "timeout"  # type: ignore[index]
    types, m = _run(m, _legal(m, seat), T0 + 500_000)
    assert CLOCK_STARTED in types and not clock_of(m).paused


def test_timeout_forfeit_resigns_the_seat() -> None:
    m = _start(_new({"per_move": 60, "on_timeout": "forfeit"}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    types, m = _run(m, Command(TIMEOUT, {"clock": clock_of(m).seq, "seat": seat}, None), T0 + 60_000)
    assert types[1:3] == [TURN_TIMED_OUT, "boardlog.Resigned"]
    out = m.outcome()
    assert out is not None and out.winners == (1 - seat,)


def test_vacation_stops_a_running_clock_and_restarts_it_with_the_time_left() -> None:
    m = _start(_new({"per_move": 100}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    types, m = _run(m, Command(VACATION, {"on": True}, seat), T0 + 30_000)
    assert CLOCK_STOPPED in types
    assert dict(clock_of(m).left)[seat] == 70_000 and not clock_of(m).deadlines
    # Days later the vacation ends: the deadline is the 70 s left from then.
    back = T0 + 5 * 86_400_000
    types, m = _run(m, Command(VACATION, {"on": False}, seat), back)
    assert CLOCK_RESUMED in types
    assert clock_of(m).deadline(seat) == to_iso(back + 70_000)


def test_reminder_once_and_only_when_due() -> None:
    m = _start(_new({"per_move": 60, "reminder": 20}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    remind = Command(REMIND, {"clock": clock_of(m).seq, "seat": seat}, None)
    with pytest.raises(IllegalCommand):
        decide_and_fold(m, remind, "r", SEED, Context(at=to_iso(T0 + 30_000)))
    types, m = _run(m, remind, T0 + 40_000)
    assert REMINDER_DUE in types and CLOCK_STARTED not in types
    with pytest.raises(IllegalCommand):
        decide_and_fold(m, remind, "r2", SEED, Context(at=to_iso(T0 + 41_000)))


def test_refold_equals_live() -> None:
    """The clock's state after live decisions equals the fold of the events they appended."""
    m = _new({"per_move": 60, "bank": 30, "increment": 5})
    ctx = Context(at=to_iso(T0))
    events, m = decide_and_fold(m, Command("boardlog.clock", {}, None), "a", SEED, ctx)
    log = list(events)
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    events, m = decide_and_fold(m, _legal(m, seat), "b", SEED, Context(at=to_iso(T0 + 5000)))
    log += events
    g = get_game("factions")
    opening = created_event("p01-clock", g, [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {}, SEED, ["", ""], None,
                            {"clock": parse_setting({"per_move": 60, "bank": 30, "increment": 5}, 1)})
    assert clock_of(fold_match([*opening, *log], "p01-clock")) == clock_of(m)


def _record(steps: list[tuple[Command, int]], clock: dict[str, object]) -> list[tuple[list[object], str]]:
    """The (events, at) of each command of a forfeit game, as the worker would append them."""
    from events.domain.match import created_event as made

    g = get_game("factions")
    opening = made("p01-clock", g, [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {}, SEED, ["", ""], None,
                   {"clock": parse_setting(clock, 1)})
    match = fold_match(opening, "p01-clock")
    out: list[tuple[list[object], str]] = [(list(opening), to_iso(T0))]
    for i, (command, at) in enumerate(steps):
        events, match = decide_and_fold(match, command, f"c{i}", SEED, Context(at=to_iso(at)))
        out.append((list(events), to_iso(at)))
    return out


def _sealed(groups: list[tuple[list[object], str]]) -> list[object]:
    from events.records.chain import genesis, seal

    envs: list[object] = []
    prev, seq = genesis("p01-clock"), 1
    for i, (events, at) in enumerate(groups):
        sealed = seal("p01-clock", seq, prev, events, None if i == 0 else f"c{i - 1}", at)  # type: ignore[arg-type]
        envs += sealed
        prev, seq = sealed[-1].hash, seq + len(sealed)
    return envs


def test_the_audit_re_runs_a_timeout_with_the_record_s_own_time() -> None:
    from events.domain.audit import audit
    from events.records.export import Record

    m = _start(_new({"per_move": 60, "on_timeout": "forfeit"}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    steps = [(Command("boardlog.clock", {}, None), T0),
             (Command(TIMEOUT, {"clock": clock_of(m).seq, "seat": seat}, None), T0 + 60_500)]
    groups = _record(steps, {"per_move": 60, "on_timeout": "forfeit"})
    report = audit(Record(_sealed(groups), None))  # type: ignore[arg-type]
    assert report.ok, report.reason
    # The same record with the timeout's time moved before the deadline (and the chain made
    # again, so only the re-run can tell): the audit finds the timeout refused then.
    early = [*groups[:2], (groups[2][0], to_iso(T0 + 30_000))]
    report = audit(Record(_sealed(early), None))  # type: ignore[arg-type]
    assert not report.ok and "deadline_not_reached" in report.reason


def test_an_open_dispute_stops_every_clock_and_its_verdict_restarts_them() -> None:
    m = _start(_new({"per_move": 100}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    moved_at = m.seq + 1
    _, m = _run(m, _legal(m, seat), T0 + 10_000)
    other = m.prompt.seats[0]  # type: ignore[union-attr]  # the seat on the clock now
    history = {m.seq: m}
    ctx = Context(at=to_iso(T0 + 30_000), match_at=lambda s: history.get(s, m))
    # The other seat disputes the move (its CommandAccepted's seq): the clocks stop.
    history[moved_at] = replace_last(m, moved_at)
    events, m = decide_and_fold(m, Command("boardlog.dispute", {"seq": moved_at, "note": "misclick"}, 1 - seat),
                                "d", SEED, ctx)
    due = automatic(m)
    assert due is not None
    events, m = decide_and_fold(m, due[1], "a", SEED, ctx)
    assert events[-1].type == CLOCK_STOPPED and events[-1].data["why"] == "dispute"
    left = dict(clock_of(m).left)[other]
    assert left == 100_000 - 20_000
    # Upheld by the seat that moved: nothing changes, and the clocks run again with that time.
    later = T0 + 90_000
    types, m = _run(m, Command("boardlog.resolve", {"verdict": "upheld"}, seat), later)
    assert CLOCK_RESUMED in types
    assert clock_of(m).deadline(other) == to_iso(later + left)


def replace_last(m: Match, seq: int) -> Match:
    """The match as it stood after the move at `seq`: its last command is that one."""
    from dataclasses import replace

    assert m.last_command is not None
    return replace(m, last_command=(m.last_command[0], seq, m.last_command[2]))


def test_a_snapshot_of_a_match_keeps_its_clock() -> None:
    from events.records.snapshot import decode, encode
    from events.store.store import snapshot_classes

    m = _start(_new({"per_move": 100, "bank": 50, "increment": 5, "on_timeout": "pause"}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    _, m = _run(m, Command(VACATION, {"on": True}, seat), T0 + 1000)
    again = decode(encode(m), snapshot_classes)
    assert clock_of(again) == clock_of(m) and clock_of(again).vacation == frozenset({seat})


def test_a_seat_still_to_move_keeps_its_deadline_when_another_seat_of_its_prompt_moves() -> None:
    from dataclasses import replace

    from rules.core import Prompt

    m = _new({"per_move": 100}, game="race")
    both = replace(m, state=replace(m.state, prompt=Prompt((0, 1), "roll")))
    m = _start(both)
    c = clock_of(m)
    assert c.deadline(0) == c.deadline(1) == to_iso(T0 + 100_000)
    # Seat 0 answers 30 s later; the prompt now waits on seat 1 alone.
    moved = replace(m, state=replace(m.state, prompt=Prompt((1,), "roll")), last_command=(0, m.seq + 1, m.seq + 1),
                    seq=m.seq + 1)
    _, after = _run(moved, Command("boardlog.clock", {}, None), T0 + 30_000)
    assert clock_of(after).deadline(1) == to_iso(T0 + 100_000)  # not a fresh 100 s
    assert clock_of(after).seats == (1,)


def test_no_deadline_is_shown_once_the_game_is_over() -> None:
    m = _start(_new({"per_move": 60, "on_timeout": "forfeit"}))
    seat = m.prompt.seats[0]  # type: ignore[union-attr]
    assert deadline_view(m)["deadlines"]  # type: ignore[index]
    _, m = _run(m, Command(TIMEOUT, {"clock": clock_of(m).seq, "seat": seat}, None), T0 + 60_000)
    assert m.over and deadline_view(m)["deadlines"] == {}  # type: ignore[index]


# -- abandon_after and the idle end (issue #36) -----------------------------------------------

ANN, BOB = 0, 1


class _Table:
    """A game played as the worker plays it: each command, then the platform's own ones, every
    group of events kept with its time, so the record can be sealed and audited."""

    def __init__(self, platform: dict[str, object], game: str = "factions") -> None:
        infos = [SeatInfo(0, "ann"), SeatInfo(1, "bob")]
        opening = created_event("p01-clock", get_game(game), infos, {}, SEED, ["", ""], None, platform)
        self.match = fold_match(opening, "p01-clock")
        self.groups: list[tuple[list[object], str]] = [(list(opening), to_iso(T0))]
        self.now = T0

    def run(self, command: Command, at_ms: int) -> list[str]:
        """`command` and the platform's own after it, at `at_ms`; the event types appended."""
        self.now = at_ms
        ctx = Context(at=to_iso(at_ms), match_at=self.match_at)
        types: list[str] = []
        next_one: Command | None = command
        while next_one is not None:
            events, self.match = decide_and_fold(self.match, next_one, f"c{len(self.groups) - 1}", SEED, ctx)
            self.groups.append((list(events), to_iso(at_ms)))
            types += [e.type for e in events]
            due = automatic(self.match)
            next_one = None if due is None else due[1]
        return types

    def match_at(self, seq: int) -> Match:
        """The match after event `seq`, folded from the events so far (as the audit does)."""
        events = [e for group, _ in self.groups for e in group]
        return fold_match(events[:seq], "p01-clock")  # type: ignore[arg-type]

    def data_of(self, type_: str) -> list[dict[str, object]]:
        return [e.data for events, _ in self.groups for e in events if e.type == type_]  # type: ignore[attr-defined]

    def to_move(self) -> int:
        assert self.match.prompt is not None
        return self.match.prompt.seats[0]

    def time_out(self) -> list[str]:
        """The seat to move lets its deadline pass; the deadlines worker's timeout."""
        seat, c = self.to_move(), clock_of(self.match)
        deadline = c.deadline(seat)
        assert deadline is not None
        return self.run(Command(TIMEOUT, {"clock": c.seq, "seat": seat}, None), to_ms(deadline) + 1)

    def play(self, after_ms: int = 1000) -> list[str]:
        """The seat to move plays its first legal move `after_ms` later (in time)."""
        return self.run(_legal(self.match, self.to_move()), self.now + after_ms)

    def until_ann(self) -> None:
        """Bob plays in time until ann is to move."""
        for _ in range(50):
            if self.match.over or self.to_move() == ANN:
                return
            self.play()
        raise AssertionError("ann never came to move")

    def audit_ok(self) -> tuple[bool, str]:
        from events.domain.audit import audit
        from events.records.export import Record

        report = audit(Record(_sealed(self.groups), None))  # type: ignore[arg-type]
        return report.ok, report.reason


def _clocked(**clock: object) -> _Table:
    table = _Table({"clock": parse_setting({"per_move": 60, **clock}, 1)})
    table.run(Command("boardlog.clock", {}, None), T0)
    return table


def test_abandon_after_is_a_whole_number_of_timeouts_from_1_to_100() -> None:
    assert parse_setting({"per_move": 3600})["abandon_after"] == 3  # every new clock says its own
    assert parse_setting({"per_move": 3600, "abandon_after": 1})["abandon_after"] == 1
    assert parse_setting({"per_move": 3600, "abandon_after": 100})["abandon_after"] == 100
    for bad in (0, -1, 101, 10**9, "3", 2.5, True, None, [3]):
        with pytest.raises(InvalidCommand) as e:
            parse_setting({"per_move": 3600, "abandon_after": bad})
        assert e.value.code == "bad_options" and "clock.abandon_after" in e.value.message


def test_abandon_after_timeouts_in_a_row_under_skip_forfeit_the_seat() -> None:
    t = _clocked(on_timeout="skip", abandon_after=3)
    for n in (1, 2):
        t.until_ann()
        types = t.time_out()
        assert "boardlog.Resigned" not in types and not t.match.over
        timed = t.data_of(TURN_TIMED_OUT)[-1]
        assert (timed["action"], timed["in_a_row"], timed["abandon_after"]) == ("skip", n, 3)
        assert clock_of(t.match).timeouts(ANN) == n
    t.until_ann()
    types = t.time_out()
    assert types[1:3] == [TURN_TIMED_OUT, "boardlog.Resigned"]
    assert t.data_of(TURN_TIMED_OUT)[-1]["action"] == "forfeit"
    assert t.data_of("boardlog.Resigned") == [{"seat": ANN, "timeouts": 3}]
    out = t.match.outcome()
    assert out is not None and out.winners == (BOB,)
    assert out.reason == "resigned: ann; ann ran out of time 3 turns in a row"
    assert t.match.seed is not None  # the end reveals the seed, as a resignation's does
    ok, reason = t.audit_ok()
    assert ok, reason


def test_a_turn_played_in_time_starts_the_count_again() -> None:
    t = _clocked(on_timeout="skip", abandon_after=3)
    for _ in range(2):
        t.until_ann()
        t.time_out()
    t.until_ann()
    t.play()  # ann is back, in time
    t.until_ann()
    assert clock_of(t.match).timeouts(ANN) == 0
    types = t.time_out()
    assert "boardlog.Resigned" not in types and t.data_of(TURN_TIMED_OUT)[-1]["in_a_row"] == 1


def test_bob_s_timeouts_are_counted_apart_from_ann_s() -> None:
    t = _clocked(on_timeout="skip", abandon_after=3)
    # Factions opens with ann's advantage choice, then her tile, then bob's: nobody answers.
    assert [t.to_move() for _ in range(3) if t.time_out()] and t.to_move() == ANN
    c = clock_of(t.match)
    assert (c.timeouts(ANN), c.timeouts(BOB)) == (2, 1) and not t.match.over


def test_abandon_after_under_pause_counts_the_turns_played_late() -> None:
    t = _clocked(on_timeout="pause", abandon_after=2)
    t.until_ann()
    types = t.time_out()
    assert CLOCK_STOPPED in types and clock_of(t.match).paused
    t.play(after_ms=500_000)  # ann moves, late: the game waited for her
    assert clock_of(t.match).timeouts(ANN) == 1 and not clock_of(t.match).paused
    t.until_ann()
    types = t.time_out()
    assert types[1:3] == [TURN_TIMED_OUT, "boardlog.Resigned"]
    out = t.match.outcome()
    assert out is not None and out.winners == (BOB,)
    assert t.audit_ok()[0], t.audit_ok()[1]


def test_a_clock_made_before_abandon_after_keeps_the_old_rule_and_audits() -> None:
    old = parse_setting({"per_move": 60, "on_timeout": "skip"}, 1)
    del old["abandon_after"]  # a record from before the rule
    t = _Table({"clock": old})
    t.run(Command("boardlog.clock", {}, None), T0)
    for _ in range(5):
        t.until_ann()
        assert "boardlog.Resigned" not in t.time_out()
    assert not t.match.over
    assert all("in_a_row" not in d for d in t.data_of(TURN_TIMED_OUT))  # written as it was then
    assert deadline_view(t.match)["abandon_after"] is None  # type: ignore[index]
    ok, reason = t.audit_ok()
    assert ok, reason


def test_a_game_nobody_moves_in_ends_as_abandoned() -> None:
    from events.domain.platform.clock import GAME_ABANDONED, IDLE_END, last_move_seq

    t = _Table({})  # no clock: an idle game ends all the same
    t.play()
    since = last_move_seq(t.match)
    moved_at = to_iso(t.now)
    day = 86400
    end = Command(IDLE_END, {"since": since, "moved_at": moved_at, "after": 30 * day}, None)
    with pytest.raises(IllegalCommand) as e:
        decide_and_fold(t.match, end, "x", SEED, Context(at=to_iso(t.now + 30 * day * 1000 - 1)))
    assert e.value.code == "not_idle_yet"
    stale = Command(IDLE_END, {"since": since - 1, "moved_at": moved_at, "after": 30 * day}, None)
    with pytest.raises(IllegalCommand) as e:
        decide_and_fold(t.match, stale, "x", SEED, Context(at=to_iso(t.now + 31 * day * 1000)))
    assert e.value.code == "moved_since"
    for bad in ({"since": since}, {"since": since, "moved_at": "never", "after": day},
                {"since": since, "moved_at": moved_at, "after": 0}):
        with pytest.raises(IllegalCommand) as e:
            decide_and_fold(t.match, Command(IDLE_END, bad, None), "x", SEED, Context(at=to_iso(t.now + 40 * day * 1000)))
        assert e.value.code == "bad_args"
    types = t.run(end, t.now + 30 * day * 1000)
    assert types[1] == GAME_ABANDONED and types[-1] == "boardlog.SeedRevealed"
    out = t.match.outcome()
    assert out is not None and out.winners == () and out.reason == "abandoned: no seat moved for 30 days"
    ok, reason = t.audit_ok()
    assert ok, reason


def test_the_idle_end_and_the_forfeit_in_words() -> None:
    from events.domain.describe import describe_platform_event

    names = ["ann", "bob"]
    said = describe_platform_event("boardlog.GameAbandoned", {"since": 3, "moved_at": "x", "after": 2592000}, names)
    assert said.text == "No seat moved for 30 days: the game ends as abandoned." and said.heading == "The end"
    said = describe_platform_event("boardlog.Resigned", {"seat": 0, "timeouts": 3}, names)
    assert said.text == "ann forfeits: out of time 3 turns in a row."
    said = describe_platform_event(TURN_TIMED_OUT, {"seat": 1, "action": "skip", "in_a_row": 2, "abandon_after": 3},
                                   names)
    assert said.text == "bob ran out of time (2 of 3 in a row): the platform answers for them."


def test_the_seat_that_timed_out_is_told_how_many_more_forfeit_it() -> None:
    from events.records.envelope import Envelope
    from service.usecases.notifications.notices import clock_notices, notices_for

    t = _clocked(on_timeout="skip", abandon_after=3)
    t.until_ann()
    before, c = t.match, clock_of(t.match)
    at = to_iso(to_ms(c.deadline(ANN) or "") + 1)
    timeout = Command(TIMEOUT, {"clock": c.seq, "seat": ANN}, None)
    events, after = decide_and_fold(before, timeout, f"c{len(t.groups) - 1}", SEED, Context(at=at))
    envs: list[Envelope] = _sealed([*t.groups, (list(events), at)])  # type: ignore[assignment]
    group = envs[-len(events):]
    told = {n.seat: n for n in notices_for(before, after, group)}
    assert told[ANN].kind == "timeout"
    assert told[ANN].asked == "you ran out of time; the game passed for you; 2 more and you forfeit"
    assert told[BOB].asked == "ann ran out of time: the platform answered for them"
    assert "2 more and you forfeit" in told[ANN].text("http://x")
    pause = {"seat": 0, "action": "pause", "in_a_row": 2, "abandon_after": 3}
    env = Envelope("g", 9, TURN_TIMED_OUT, pause, 0, "c", to_iso(T0), "", "")
    own = [n for n in clock_notices(t.match, [env]) if n.seat == ANN]
    assert own[0].asked == "you ran out of time; the game waits for your move; 1 more and you forfeit"


def test_a_voided_timeout_gives_the_turn_back_with_per_move_plus_the_bank_it_began_with() -> None:
    """Hand-written: 60 s a move, a 100 s bank, 10 s increment. Ann moves after 90 s (bank 80 s);
    bob lets his 160 s run out and the platform rolls for him (his bank: 0 + 10 s); ann disputes
    bob's timeout and bob agrees it be voided, 1000 s in. His turn starts again with 60 s plus the
    100 s bank he had when it began; ann's bank is hers before the voided turn (80 s)."""
    t = _Table({"clock": parse_setting({"per_move": 60, "bank": 100, "increment": 10, "on_timeout": "skip"}, 1)},
               game="race")
    t.run(Command("boardlog.clock", {}, None), T0)
    t.run(_legal(t.match, ANN), T0 + 90_000)
    assert clock_of(t.match).banks == (80_000, 100_000) and clock_of(t.match).deadline(BOB) == to_iso(T0 + 250_000)
    on = t.match.seq + 1
    t.time_out()
    assert clock_of(t.match).banks == (80_000, 10_000) and clock_of(t.match).timeouts(BOB) == 1
    t.run(Command("boardlog.dispute", {"seq": on, "note": "the clock ran while bob was away"}, ANN), T0 + 260_000)
    types = t.run(Command("boardlog.resolve", {"verdict": "voided"}, BOB), T0 + 1_000_000)
    assert types[-4:] == ["boardlog.TakenBack", "boardlog.TimeoutVoided", "boardlog.CommandAccepted", CLOCK_STARTED]
    c = clock_of(t.match)
    assert c.deadline(BOB) == to_iso(T0 + 1_000_000 + 160_000) and c.deadline(ANN) is None
    assert c.banks == (80_000, 100_000) and c.timeouts(BOB) == 0 and not c.timed_out and not c.owed
    # Bob plays 5 s in: within his 60 s, so his bank keeps its 100 s and gains the increment.
    t.run(_legal(t.match, BOB), T0 + 1_005_000)
    assert clock_of(t.match).banks == (80_000, 110_000)
    ok, reason = t.audit_ok()
    assert ok, reason


def test_an_upheld_timeout_keeps_its_count_and_the_clock_runs_on_from_where_it_stopped() -> None:
    t = _Table({"clock": parse_setting({"per_move": 60, "on_timeout": "skip"}, 1)}, game="race")
    t.run(Command("boardlog.clock", {}, None), T0)
    on = t.match.seq + 1
    t.time_out()  # ann's turn: the platform rolls for her, bob's 60 s start at T0 + 60.001 s
    t.run(Command("boardlog.dispute", {"seq": on, "note": "early"}, ANN), T0 + 70_001)
    assert dict(clock_of(t.match).left) == {BOB: 50_000}
    t.run(Command("boardlog.resolve", {"verdict": "upheld"}, BOB), T0 + 500_000)
    c = clock_of(t.match)
    assert c.deadline(BOB) == to_iso(T0 + 550_000) and c.timeouts(ANN) == 1
