"""Disputes that mean something and rulings with reasons (issue #37, items 3 to 5).

Each from a hand-written position of the test game "race" (seats take turns rolling one die):
ann rolls, bob rolls, ann rolls, and bob disputes ann's last roll. Played through the same
`decide_and_fold` and automatic answers the worker runs, sealed as the worker seals them, so
that the audit re-runs every ruling exactly as it would an export.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
import pytest

from events.domain.audit import audit
from events.domain.describe import timed_out_words
from events.domain.match import Match, automatic, created_event, decide_and_fold, fold_match
from events.domain.platform import OPTIONS, Context
from events.domain.platform.base import split_options
from events.domain.platform.clock import clock_of, parse_setting, to_iso, to_ms
from events.domain.platform.conduct import conduct_of
from events.domain.platform.disputes import redraws
from events.domain.platform.talk import talk_of
from events.records.chain import genesis, link, seal
from events.records.envelope import Envelope
from events.records.export import export_lines, read_record
from projections.moves import move_entries
from rules.core import EVERYTHING_SHOWN, Command, Event, IllegalCommand, SeatInfo, get_game

SEED = b"d" * 32
GID = "p01-disputes0000"
AT = "2026-12-06T10:00:00.000Z"
ONWARD = {"void_draws": "onward"}


class Table:
    def __init__(self, referee: str | None = "rex", platform: dict[str, Any] | None = None, seats: int = 2) -> None:
        infos = [SeatInfo(i, n) for i, n in enumerate(["ann", "bob", "cyd", "dan"][:seats])]
        events = created_event(GID, get_game("race"), infos, {"target": 10_000}, SEED, [""] * seats,
                               referee, platform)
        self.envs: list[Envelope] = seal(GID, 1, genesis(GID), events, None, AT)
        self.match: Match = fold_match(events, GID)
        self.n = 0
        self.now = AT  # the time of the commands sent next (a clock reads it as data)

    def at(self, seq: int) -> Match:
        return fold_match((e.event for e in self.envs[:seq]), GID)

    def _append(self, command: Command, cid: str) -> list[Event]:
        context = Context(at=self.now, match_at=self.at)
        events, self.match = decide_and_fold(self.match, command, cid, SEED, context)
        self.envs += seal(GID, self.envs[-1].seq + 1, self.envs[-1].hash, events, cid, self.now)
        return events

    def send(self, ctype: str, seat: int | None, **args: Any) -> list[Event]:
        self.n += 1
        events = self._append(Command(ctype, args, seat), f"c{self.n}")
        while (due := automatic(self.match)) is not None:
            events += self._append(due[1], f"auto-{self.match.seq}-{due[0]}")
        return events

    def roll(self, seat: int) -> int:
        """The seq of the roll's CommandAccepted."""
        self.send("race.roll", seat)
        assert self.match.last_command is not None
        return self.match.last_command[1]

    def refused(self, ctype: str, seat: int | None, **args: Any) -> IllegalCommand:
        """The refusal of a command, which writes nothing."""
        before, envs = self.match, list(self.envs)
        with pytest.raises(IllegalCommand) as e:
            self.send(ctype, seat, **args)
        assert self.match == before and self.envs == envs
        return e.value


def disputed(referee: str | None = "rex", platform: dict[str, Any] | None = None) -> tuple[Table, int]:
    """ann rolls, bob rolls, ann rolls; bob disputes ann's last roll (at the returned seq)."""
    t = Table(referee, platform)
    t.roll(0)
    t.roll(1)
    on = t.roll(0)
    t.send("boardlog.dispute", 1, seq=on, note="she rolled twice")
    return t, on


def rule(t: Table, verdict: str, reason: str = "the die was rolled twice") -> list[Event]:
    return t.send("boardlog.resolve", None, verdict=verdict, reason=reason, referee=True)


def audited(envs: list[Envelope]) -> Any:
    return audit(read_record(export_lines(envs)))


def end(t: Table) -> None:
    t.send("boardlog.abort", None, reason="test")  # reveals the seed: the audit re-runs every draw


def edited(envs: list[Envelope], event_type: str, change: Any) -> tuple[list[Envelope], int]:
    """The record with the first `event_type` event's data changed, every hash recomputed."""
    i = next(k for k, e in enumerate(envs) if e.type == event_type)
    out = list(envs)
    out[i] = replace(envs[i], data=change(orjson.loads(orjson.dumps(dict(envs[i].data)))))
    prev, chained = envs[0].prev, []
    for e in out:
        e = replace(e, prev=prev)
        e = replace(e, hash=link(prev, e.body()))
        chained.append(e)
        prev = e.hash
    return chained, envs[i].seq


def said(t: Table, viewer: int | None = None) -> list[str]:
    entries, _ = move_entries(t.envs, GID, viewer)
    return [e["text"] for e in entries] + [x["text"] for e in entries for x in e["events"]]


# -- rulings with reasons ------------------------------------------------------------------


def test_the_referees_ruling_carries_its_reason_into_the_event_and_the_move_list() -> None:
    t, on = disputed()
    events = rule(t, "voided")
    resolved = next(e for e in events if e.type == "boardlog.DisputeResolved")
    assert resolved.data == {"dispute": on + 3, "on": on, "verdict": "voided", "by": "referee",
                             "reason": "the die was rolled twice"}
    entries, _ = move_entries(t.envs, GID, None)
    move = next(e["move"] for e in entries if e["seq_from"] == on)
    assert move == 3
    assert "The referee (rex) voids move 3: the die was rolled twice" in said(t)
    ruling = next(e for e in entries if e["text"].startswith("The referee (rex) rules"))
    assert ruling["who"] == "rex (referee)" and ruling["seat"] is None
    # the entry's own line says why too: the replay's step list shows it beside the step number
    assert ruling["text"] == "The referee (rex) rules the dispute voided: the die was rolled twice"
    end(t)
    assert audited(t.envs).ok
    forged, seq = edited(t.envs, "boardlog.DisputeResolved", lambda d: {**d, "reason": "another reason"})
    report = audited(forged)
    assert not report.ok and report.seq == seq, report.line()


def test_an_upheld_ruling_says_its_reason() -> None:
    t, _ = disputed()
    rule(t, "upheld", "the roll stands")
    assert "The referee (rex) upholds move 3: the roll stands" in said(t)
    assert conduct_of(t.match).disputes[0].verdict == "upheld"


@pytest.mark.parametrize("reason", [None, "", "   ", "x" * 501, "bell\x07", "abc\u202edef", "zero\u200bwidth"],
                         ids=["missing", "empty", "blank", "501", "control", "bidi", "format"])
def test_a_referees_ruling_without_a_fit_reason_is_refused_and_writes_nothing(reason: str | None) -> None:
    t, _ = disputed()
    args = {"verdict": "voided", "referee": True, **({"reason": reason} if reason is not None else {})}
    e = t.refused("boardlog.resolve", None, **args)
    assert e.code == "bad_reason" and "reason" in e.message and "500" in e.message
    assert conduct_of(t.match).dispute_open


def test_a_reason_of_500_characters_with_line_breaks_is_taken() -> None:
    t, _ = disputed()
    reason = ("a\n\t" * 167)[:500]
    rule(t, "upheld", reason)
    assert conduct_of(t.match).disputes[0].verdict == "upheld"


def test_a_ruling_by_a_seat_in_a_refereed_game_is_refused() -> None:
    t, _ = disputed()
    e = t.refused("boardlog.resolve", 0, verdict="upheld", reason="mine stands")
    assert e.code == "referee_resolves" and "rex" in e.message


def test_a_ruling_on_a_settled_dispute_is_refused() -> None:
    t, on = disputed()
    rule(t, "upheld", "the roll stands")
    e = t.refused("boardlog.resolve", None, verdict="voided", reason="second thoughts", referee=True, dispute=on + 3)
    assert e.code == "dispute_settled" and "upheld" in e.message
    e = t.refused("boardlog.resolve", None, verdict="voided", reason="second thoughts", referee=True)
    assert e.code == "no_dispute"


def test_a_seats_vote_may_carry_a_reason_and_the_players_ruling_says_it() -> None:
    t, on = disputed(referee=None)
    events = t.send("boardlog.resolve", 0, verdict="voided", reason="yes, I rolled twice")
    assert [e.type for e in events][-3:] == ["boardlog.DisputeVoted", "boardlog.DisputeResolved", "boardlog.TakenBack"]
    assert events[-2].data["reason"] == "yes, I rolled twice" and events[-2].data["by"] == "seats"
    assert "The players void move 3: yes, I rolled twice" in said(t)
    e = Table(referee=None)
    e.roll(0)
    on = e.roll(1)
    e.send("boardlog.dispute", 0, seq=on, note="misclick")
    assert e.refused("boardlog.resolve", 1, verdict="voided", reason="\u202e").code == "bad_reason"


def test_the_referee_posts_to_table_talk_as_the_referee() -> None:
    t, _ = disputed()
    [_, posted] = t.send("boardlog.post", None, text="I am looking at it", referee=True)
    assert posted.type == "boardlog.MessagePosted" and posted.seat is None
    assert posted.data == {"referee": True, "text": "I am looking at it", "at": AT}
    [message] = talk_of(t.match).messages
    assert message.seat is None and message.referee
    assert "The referee (rex) writes: I am looking at it" in said(t)
    end(t)
    assert audited(t.envs).ok


def test_talk_marked_as_the_referees_in_a_game_without_one_is_refused() -> None:
    t = Table(referee=None)
    assert t.refused("boardlog.post", None, text="hello", referee=True).code == "seat_required"


# -- disputes that mean something ------------------------------------------------------------


def test_a_seat_may_not_dispute_its_own_move() -> None:
    t = Table()
    t.roll(0)
    on = t.roll(1)
    e = t.refused("boardlog.dispute", 1, seq=on, note="I misclicked")
    assert e.code == "own_move" and "takeback" in e.message


def test_while_a_dispute_is_open_the_game_takes_no_moves() -> None:
    t, on = disputed()
    waiting = "bob disputes ann's move ('she rolled twice'): the game waits for the referee's ruling"
    e = t.refused("race.roll", 1)
    assert e.code == "dispute_open" and e.message == waiting
    assert t.refused("boardlog.takeback", 0).code == "dispute_open"
    assert t.refused("boardlog.propose", 0, kind="draw").code == "dispute_open"
    e = t.refused("boardlog.dispute", 0, seq=on - 1, note="and this one")
    assert e.code == "dispute_open" and e.message.startswith(waiting)
    t.send("boardlog.post", 0, text="it was one roll")  # talk goes on
    rule(t, "upheld", "the roll stands")
    assert t.send("race.roll", 1)[0].type == "boardlog.CommandAccepted"


def test_an_unrefereed_dispute_waits_for_the_other_seats_votes() -> None:
    t, _ = disputed(referee=None)
    assert t.refused("race.roll", 1).message.endswith("the game waits for the other seats' votes")


def test_an_agreement_waits_for_the_ruling_too() -> None:
    t = Table(seats=3)
    t.roll(0)
    on = t.roll(1)
    t.send("boardlog.propose", 2, kind="draw")
    t.send("boardlog.dispute", 0, seq=on, note="misclick")
    assert t.refused("boardlog.accept", 1).code == "dispute_open"
    t.send("boardlog.refuse", 1)  # refusing (or withdrawing) one is no move


# -- draws never rewind ---------------------------------------------------------------------


def test_new_games_are_made_under_void_draws_onward() -> None:
    assert split_options({"takeback": False}, OPTIONS)[1] == {"takeback": False, "void_draws": "onward",
                                                              "talk_rule": "names"}
    assert split_options({}, OPTIONS)[1] == {**ONWARD, "talk_rule": "names"}


def test_a_void_keeps_the_draws_counter_so_the_move_played_instead_draws_afresh() -> None:
    t, on = disputed(platform=ONWARD)
    voided = t.envs[on]  # the die ann rolled, which everyone has seen
    assert voided.type == "race.DieRolled"
    drawn = t.match.draws
    rule(t, "voided")
    assert t.match.draws == drawn and t.match.state == t.at(on - 1).state
    [accepted, rolled] = t.send("race.roll", 0)
    assert accepted.data["rng"] == [drawn, drawn + 1] and rolled.type == "race.DieRolled"
    end(t)
    report = audited(t.envs)
    assert report.ok, report.line()
    # The compensating event is re-derived: a record that rewound the counter does not audit.
    forged, seq = edited(t.envs, "boardlog.TakenBack", lambda d: {**d, "draws": d["draws"] - 1})
    report = audited(forged)
    assert not report.ok and report.seq == seq, report.line()


def test_a_record_made_before_void_draws_still_audits_by_its_own_rule() -> None:
    t, on = disputed(platform=None)
    voided = t.envs[on]
    rule(t, "voided")
    assert t.match.draws == t.at(on - 1).draws  # this record's rule: the counter returned
    [_, rolled] = t.send("race.roll", 0)
    assert rolled.data == voided.data  # ... and the re-played roll drew the same die
    end(t)
    assert audited(t.envs).ok
    # Claiming the new rule for it makes its TakenBack wrong: the audit re-derives it.
    forged, _ = edited(t.envs, "boardlog.GameCreated", lambda d: {**d, "platform": ONWARD})
    report = audited(forged)
    taken_back = next(e.seq for e in t.envs if e.type == "boardlog.TakenBack")
    assert not report.ok and report.seq == taken_back, report.line()


def test_the_ruling_view_says_which_draws_a_void_would_redraw() -> None:
    t, on = disputed(platform=ONWARD)
    die = t.envs[on].data["die"]
    tail = [e.event for e in t.envs[on - 1:]]
    assert redraws(t.at(on - 1), t.match, tail, EVERYTHING_SHOWN) == [
        f"voiding re-rolls the die {die} (seq {on + 1}): what is played instead draws afresh"]
    assert redraws(t.at(on - 1), t.match, tail, 0) == redraws(t.at(on - 1), t.match, tail, None)
    old, on = disputed(platform=None)
    tail = [e.event for e in old.envs[on - 1:]]
    [kept] = redraws(old.at(on - 1), old.match, tail, EVERYTHING_SHOWN)
    assert kept.startswith(f"voiding keeps the die {old.envs[on].data['die']} (seq {on + 1})")


def test_a_move_that_drew_nothing_has_nothing_to_redraw() -> None:
    t = Table(platform=ONWARD)
    t.roll(0)
    t.send("race.note", 1, text="thinking")
    on = t.match.last_command[1]  # type: ignore[index]
    t.send("boardlog.dispute", 0, seq=on, note="not a move")
    tail = [e.event for e in t.envs[on - 1:]]
    assert redraws(t.at(on - 1), t.match, tail, EVERYTHING_SHOWN) == []


# -- disputing a timeout (issue #37 item 4: "a game step (a die roll, a timeout)") ----------------

T0 = to_ms(AT)
ANN, BOB, CYD, DAN = 0, 1, 2, 3


def clocked(on_timeout: str, referee: str | None = "rex", seats: int = 2) -> Table:
    """A race with a clock of 60 s a move, its first clock set at T0 (as the deadlines worker sets it)."""
    t = Table(referee, {"clock": parse_setting({"per_move": 60, "on_timeout": on_timeout}, 1), **ONWARD}, seats)
    t.send("boardlog.clock", None)
    return t


def time_out(t: Table) -> int:
    """The seat to move lets its deadline pass and the deadlines worker times it out, 1 ms after
    the deadline; the seq of the timeout's CommandAccepted."""
    assert t.match.prompt is not None
    seat, c = t.match.prompt.seats[0], clock_of(t.match)
    t.now = to_iso(to_ms(c.deadline(seat) or "") + 1)
    on = t.match.seq + 1
    t.n += 1
    t._append(Command("boardlog.timeout", {"clock": c.seq, "seat": seat}, None), f"c{t.n}")
    while (due := automatic(t.match)) is not None:
        t._append(due[1], f"auto-{t.match.seq}-{due[0]}")
    return on


def later(t: Table, seconds: int) -> None:
    t.now = to_iso(to_ms(t.now) + seconds * 1000)


def test_a_seat_disputes_its_own_timeout_and_the_referees_void_gives_the_turn_back() -> None:
    t = clocked("skip")
    t.roll(ANN)
    on = time_out(t)  # bob's turn runs out: the platform rolls for him, then ann is on the clock
    before = t.at(on - 1)
    assert t.match.prompt is not None and t.match.prompt.seats == (ANN,)
    later(t, 10)
    [_, opened, *_] = t.send("boardlog.dispute", BOB, seq=on, note="the clock was wrong, I was on vacation")
    assert opened.data == {"seat": BOB, "on": on, "note": "the clock was wrong, I was on vacation", "of": BOB,
                           "step": "timeout"}
    assert clock_of(t.match).stopped_by == "dispute"
    e = t.refused("race.roll", ANN)
    assert e.code == "dispute_open" and e.message.startswith("bob disputes their timeout ('the clock was wrong")
    later(t, 3600)
    events = rule(t, "voided", "the deadline was set during bob's vacation")
    assert [x.type for x in events][1:4] == ["boardlog.DisputeResolved", "boardlog.TakenBack",
                                            "boardlog.TimeoutVoided"]
    assert events[1].data["step"] == "timeout" and events[1].data["of"] == BOB
    # The position before the timeout: bob's turn again, his clock afresh from the ruling.
    assert t.match.state == before.state and t.match.prompt is not None and t.match.prompt.seats == (BOB,)
    c = clock_of(t.match)
    assert c.deadline(BOB) == to_iso(to_ms(t.now) + 60_000) and c.timeouts(BOB) == 0 and not c.timed_out
    entries, _ = move_entries(t.envs, GID, None)
    n = next(x["move"] for x in entries if x["seq_from"] == on)
    words = said(t)
    assert f"bob disputes their timeout (move {n}): the clock was wrong, I was on vacation" in words
    assert f"The referee (rex) voids bob's timeout (move {n}): the deadline was set during bob's vacation" in words
    assert "bob's timed-out turn is theirs again: their clock starts afresh." in words
    assert next(x for x in entries if x["seq_from"] == on)["undone"]  # struck through, kept in the record
    t.roll(BOB)  # bob plays his turn; the roll the platform made for him is not drawn again
    end(t)
    report = audited(t.envs)
    assert report.ok, report.line()
    forged, seq = edited(t.envs, "boardlog.TimeoutVoided", lambda d: {**d, "in_a_row": 2})
    report = audited(forged)
    assert not report.ok and report.seq == seq, report.line()


def test_an_upheld_timeout_stands() -> None:
    t = clocked("skip")
    on = time_out(t)
    t.send("boardlog.dispute", BOB, seq=on, note="ann's timeout was early")
    state = t.match.state
    events = rule(t, "upheld", "the deadline was right")
    assert "boardlog.TakenBack" not in [x.type for x in events]
    assert t.match.state == state and clock_of(t.match).timeouts(ANN) == 1
    assert "The referee (rex) upholds ann's timeout (move 1): the deadline was right" in said(t)
    assert clock_of(t.match).deadline(BOB) is not None  # the clock runs again for bob


def test_the_other_seats_vote_a_timeout_void_under_pause() -> None:
    t = clocked("pause", referee=None)
    on = time_out(t)  # ann's turn runs out: the game waits for her
    assert clock_of(t.match).paused
    t.send("boardlog.dispute", BOB, seq=on, note="ann's clock was never shown")
    assert t.refused("boardlog.resolve", BOB, verdict="voided").code == "own_dispute"
    later(t, 100)
    events = t.send("boardlog.resolve", ANN, verdict="voided", reason="it was not")
    assert events[-1].type == "boardlog.ClockStarted"
    taken = next(e.seq for e in t.envs if e.type == "boardlog.TakenBack")
    assert conduct_of(t.match).undone == ((on, on, taken),)  # no game command came after it
    c = clock_of(t.match)
    assert not c.paused and c.deadline(ANN) == to_iso(to_ms(t.now) + 60_000) and c.timeouts(ANN) == 0
    end(t)
    assert audited(t.envs).ok


def test_a_seat_forfeited_by_its_timeout_may_dispute_it_and_a_void_seats_it_again() -> None:
    t = clocked("forfeit", seats=4)
    on = time_out(t)  # ann forfeits; the platform answers for her, then bob is on the clock
    assert conduct_of(t.match).resigned == (ANN,)
    auto = on + 3
    assert t.envs[auto - 1].data["id"].endswith("resigned0")
    e = t.refused("boardlog.dispute", BOB, seq=auto, note="that roll")
    assert e.code == "automatic_step" and "resigned" in e.message
    t.send("boardlog.resign", DAN)
    assert t.refused("boardlog.dispute", DAN, seq=on, note="for ann").code == "resigned"
    t.send("boardlog.dispute", ANN, seq=on, note="my clock ran on my vacation")
    events = rule(t, "voided", "the vacation was declared")
    voided = next(x for x in events if x.type == "boardlog.TimeoutVoided")
    assert voided.data["forfeit"] is True
    assert conduct_of(t.match).resigned == (DAN,) and t.match.prompt is not None and t.match.prompt.seats == (ANN,)
    assert "ann is back at the table and ann's timed-out turn is theirs again: their clock starts afresh." in said(t)
    end(t)
    assert audited(t.envs).ok


def test_the_skip_played_for_a_timed_out_seat_is_disputed_through_its_timeout() -> None:
    t = clocked("skip")
    on = time_out(t)
    skip = on + 2
    assert t.envs[skip - 1].data["type"] == "race.roll" and t.envs[skip - 1].seat == ANN
    for seat in (ANN, BOB):
        e = t.refused("boardlog.dispute", seat, seq=skip, note="that roll")
        assert e.code == "automatic_step" and f"dispute the timeout at seq {on} instead" in e.message
    e = t.refused("boardlog.dispute", BOB, seq=on + 1, note="the TurnTimedOut")
    assert e.code == "not_a_command" and "timeout" in e.message


def test_a_timeout_that_ended_the_game_is_past_disputing() -> None:
    t = clocked("forfeit")
    on = time_out(t)
    assert t.match.over and t.match.seed is not None  # the seed is out: a game brought back has no secret draws
    assert t.refused("boardlog.dispute", ANN, seq=on, note="I was away").code == "game_over"


def test_the_ruling_view_words_a_disputed_timeout_and_what_a_void_redraws() -> None:
    t = clocked("skip")
    on = time_out(t)
    die = t.envs[on + 2].data["die"]  # the platform's roll for ann
    t.send("boardlog.dispute", ANN, seq=on, note="too early")
    tail = [e.event for e in t.envs[on - 1:]]
    assert redraws(t.at(on - 1), t.match, tail, EVERYTHING_SHOWN) == [
        f"voiding re-rolls the die {die} (seq {on + 3}), drawn by the platform's answer for ann after their turn "
        "timed out: what is played instead draws afresh"]
    timed = t.envs[on].data
    assert timed_out_words(timed, ["ann", "bob"]) == (
        f"ann's turn timed out at {timed['deadline'][:16].replace('T', ' ')} UTC (their deadline): "
        "the platform answered for them")


@pytest.mark.parametrize("appointed", ["player", "mail", "creator"])
def test_a_game_whose_first_event_says_how_its_referee_was_appointed_audits_verified(appointed: str) -> None:
    """The audit re-makes GameCreated from the record's own fields: the appointment is one."""
    t = Table()
    made = created_event(GID, get_game("race"), [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {"target": 10_000},
                         SEED, ["", ""], "rex", None, appointed)
    assert made[0].data["referee"] == {"name": "rex", "appointed": appointed}
    t.envs = seal(GID, 1, genesis(GID), made, None, AT)
    t.match = fold_match(made, GID)
    t.roll(0)
    end(t)
    report = audited(t.envs)
    assert report.ok, report.line()
