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
