"""Conduct: resign, agreed draws and abandonments, takebacks with consent, disputes.

Offline: each game is played through the same `decide_and_fold` and automatic answers the
worker runs, sealed into a record as the worker seals it, so the audit re-runs every platform
command (its time and past from the record itself) exactly as it would an export.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import orjson
import pytest

from events.domain.audit import audit
from events.domain.match import Match, automatic, created_event, decide_and_fold, fold_match
from events.domain.platform import Context
from events.domain.platform.conduct import conduct_of
from events.records.chain import genesis, link, seal
from events.records.envelope import Envelope
from events.records.export import export_lines, read_record
from rules.core import Command, Event, IllegalCommand, SeatInfo, get_game

SEED = b"c" * 32
GID = "p01-conduct00000"
AT = "2026-12-01T10:00:00.000Z"
GAMES = ["rite", "factions", "dragondale"]


class Table:
    """One offline game: its events as sealed envelopes and the match folded so far."""

    def __init__(self, game: str, seats: int, platform: dict[str, Any] | None = None,
                 referee: str | None = None) -> None:
        infos = [SeatInfo(i, n) for i, n in enumerate(["ann", "bob", "cyd", "dee"][:seats])]
        events = created_event(GID, get_game(game), infos, {}, SEED, [f"e{i}" for i in range(seats)],
                               referee, platform)
        self.envs: list[Envelope] = seal(GID, 1, genesis(GID), events, None, AT)
        self.match: Match = fold_match(events, GID)
        self.n = 0

    def context(self) -> Context:
        return Context(at=AT, match_at=lambda seq: fold_match((e.event for e in self.envs[:seq]), GID))

    def _append(self, command: Command, cid: str) -> list[Event]:
        events, self.match = decide_and_fold(self.match, command, cid, SEED, self.context())
        self.envs += seal(GID, self.envs[-1].seq + 1, self.envs[-1].hash, events, cid, AT)
        return events

    def send(self, command: Command) -> list[str]:
        """The command, then the platform's automatic ones (as the worker appends them); the
        event types appended."""
        self.n += 1
        types = [e.type for e in self._append(command, f"c{self.n}")]
        for _ in range(500):
            due = automatic(self.match)
            if due is None:
                break
            types += [e.type for e in self._append(due[1], f"auto-{self.match.seq}-{due[0]}")]
        return types

    def play(self, bot: random.Random, commands: int, skip: frozenset[int] = frozenset()) -> None:
        for _ in range(commands):
            if self.match.over:
                return
            assert self.match.prompt is not None
            seats = [s for s in self.match.prompt.seats if s not in skip]
            seat = seats[0]
            self.send(bot.choice(list(self.match.rules.legal_commands(self.match.state, seat))))

    def at(self, seq: int) -> Match:
        return fold_match((e.event for e in self.envs[:seq]), GID)


def conduct(ctype: str, seat: int | None, **args: Any) -> Command:
    return Command(f"boardlog.{ctype}", args, seat)


def audited(envs: list[Envelope]) -> Any:
    return audit(read_record(export_lines(envs)))


def rechain(envs: list[Envelope]) -> list[Envelope]:
    """Every hash recomputed, as a forger who knows the scheme would."""
    out: list[Envelope] = []
    prev = envs[0].prev
    for e in envs:
        e = replace(e, prev=prev)
        e = replace(e, hash=link(prev, e.body()))
        out.append(e)
        prev = e.hash
    return out


def edited(envs: list[Envelope], event_type: str, change: Any) -> tuple[list[Envelope], int]:
    """The record with the first `event_type` event's data changed by `change`, rechained."""
    i = next(k for k, e in enumerate(envs) if e.type == event_type)
    data = change(orjson.loads(orjson.dumps(dict(envs[i].data))))
    out = list(envs)
    out[i] = replace(envs[i], data=data)
    return rechain(out), envs[i].seq


def end_by_resign(t: Table, seat: int = 0) -> None:
    """End a two-seat game so that its seed is revealed and the audit re-runs everything."""
    t.send(conduct("resign", seat))
    assert t.match.over and t.match.seed is not None


# -- resign -------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_resign_in_a_two_seat_game_the_other_seat_wins(game: str) -> None:
    t = Table(game, 2)
    t.play(random.Random(1), 6)
    types = t.send(conduct("resign", 0))
    assert types[:2] == ["boardlog.CommandAccepted", "boardlog.Resigned"]
    assert types[-1] == "boardlog.SeedRevealed"
    outcome = t.match.outcome()
    assert outcome is not None and outcome.winners == (1,) and "resigned: ann" in outcome.reason
    assert t.match.status == "over"
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("resign", 1))
    assert e.value.code == "game_over"
    assert audited(t.envs).ok


@pytest.mark.parametrize("game", GAMES)
def test_resign_in_a_three_seat_game_goes_on_with_the_default_answer(game: str) -> None:
    t = Table(game, 3)
    bot = random.Random(2)
    t.play(bot, 4)
    t.send(conduct("resign", 1))
    assert not t.match.over and conduct_of(t.match).resigned == (1,)
    resigned_at = t.match.seq
    t.play(bot, 40, skip=frozenset({1}))
    # Seat 1 still answers its prompts: only the platform's automatic commands, each the
    # game's default answer at that point.
    autos = [e for e in t.envs[resigned_at:] if e.type == "boardlog.CommandAccepted" and e.seat == 1]
    assert autos, "the resigned seat was never prompted"
    for env in autos:
        assert str(env.data["id"]).startswith("auto-") and str(env.data["id"]).endswith("-resigned1")
        before = t.at(env.seq - 1)
        expected = before.rules.default_answer(before.state, 1)
        assert (env.data["type"], dict(env.data["args"])) == (expected.type, dict(expected.args))
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("resign", 1))
    assert e.value.code == "resigned"
    if not t.match.over:  # the last seat standing wins
        t.send(conduct("resign", 2))
        outcome = t.match.outcome()
        assert outcome is not None and outcome.winners == (0,)
    assert audited(t.envs).ok
    assert fold_match((e.event for e in t.envs), GID) == t.match  # the fold from the log equals live


@pytest.mark.parametrize("game", GAMES)
def test_default_answer_is_a_legal_command_anywhere(game: str) -> None:
    t = Table(game, 2)
    bot = random.Random(3)
    for _ in range(60):
        if t.match.over:
            break
        assert t.match.prompt is not None
        for seat in t.match.prompt.seats:
            answer = t.match.rules.default_answer(t.match.state, seat)
            assert answer in list(t.match.rules.legal_commands(t.match.state, seat))
        t.play(bot, 1)


# -- agreements ---------------------------------------------------------------------------


def test_a_draw_agreed_by_every_seat_ends_the_game() -> None:
    t = Table("factions", 3)
    t.play(random.Random(4), 3)
    types = t.send(conduct("propose", 0, kind="draw"))
    assert types[-1] == "boardlog.AgreementProposed"
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("accept", 0))
    assert e.value.code == "already_accepted"
    assert t.send(conduct("accept", 1))[-1] == "boardlog.ProposalAccepted"
    assert not t.match.over
    types = t.send(conduct("accept", 2))
    assert types[-2:] == ["boardlog.DrawAgreed", "boardlog.SeedRevealed"]
    outcome = t.match.outcome()
    assert outcome is not None and outcome.winners == () and "draw" in outcome.reason
    assert audited(t.envs).ok


def test_a_refused_proposal_closes_and_abandonment_needs_every_remaining_seat() -> None:
    t = Table("rite", 3)
    t.send(conduct("propose", 0, kind="draw"))
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("propose", 1, kind="abandon"))
    assert e.value.code == "proposal_open"
    t.send(conduct("refuse", 2))
    assert conduct_of(t.match).proposal is None
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("accept", 1))
    assert e.value.code == "no_proposal"
    t.send(conduct("resign", 2))  # the resigned seat is not asked
    t.send(conduct("propose", 1, kind="abandon"))
    assert t.send(conduct("accept", 0))[-2:] == ["boardlog.AbandonmentAgreed", "boardlog.SeedRevealed"]
    assert t.match.status == "over" and "abandoned" in t.match.outcome().reason  # type: ignore[union-attr]
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("propose", 0, kind="surrender"))
    assert e.value.code == "game_over"


# -- takebacks ----------------------------------------------------------------------------


def _until(t: Table, bot: random.Random, done: Any, limit: int = 400) -> None:
    """Random play until `done(table)` holds after a command."""
    for _ in range(limit):
        if t.match.over:
            break
        t.play(bot, 1)
        if done(t):
            return
    raise AssertionError("no such position in the random game")


def _last_drew(t: Table) -> bool:
    last = t.match.last_command
    return last is not None and t.at(last[1] - 1).draws != t.match.draws


@pytest.mark.parametrize("game", ["factions", "rite"])
def test_takeback_accepted_returns_to_the_state_before_and_the_audit_checks_it(game: str) -> None:
    t = Table(game, 2)
    bot = random.Random(5)
    t.play(bot, 8)
    _until(t, bot, lambda t: not _last_drew(t) and t.match.last_command is not None
           and t.match.last_command[2] > t.match.last_command[1])  # a move with events of its own
    last = t.match.last_command
    assert last is not None and last[0] is not None
    seat, other = last[0], 1 - last[0]
    before = t.at(last[1] - 1)
    types = t.send(conduct("takeback", seat))
    assert types[-1] == "boardlog.TakebackAsked"
    types = t.send(conduct("accept", other))
    assert types[-1] == "boardlog.TakenBack"
    assert t.match.state == before.state and t.match.draws == before.draws
    assert t.match.prompt == before.prompt
    assert conduct_of(t.match).undone == ((last[1], last[2], t.match.seq),)
    assert fold_match((e.event for e in t.envs), GID) == t.match
    t.play(bot, 3)
    end_by_resign(t)
    assert audited(t.envs).ok
    # The TakenBack edited (the state it returns to), the chain rebuilt: the re-run catches it.
    def forge(d: dict[str, Any]) -> dict[str, Any]:
        return {**d, "draws": d["draws"] + 1}
    forged, seq = edited(t.envs, "boardlog.TakenBack", forge)
    rep = audited(forged)
    assert not rep.ok and rep.seq == seq, rep.line()


def test_takeback_refused_after_a_die_roll() -> None:
    t = Table("rite", 2)
    bot = random.Random(6)
    _until(t, bot, _last_drew)
    seat = t.match.last_command[0]  # type: ignore[index]
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("takeback", seat))
    assert e.value.code == "takeback_after_draw"


def test_takeback_refused_in_dragon_dale_after_a_hidden_unit_was_revealed() -> None:
    t = Table("dragondale", 2)
    bot = random.Random(7)

    def revealed_units(t: Table) -> bool:
        last = t.match.last_command
        return last is not None and not _last_drew(t) and any(
            e.type == "dragondale.UnitsRevealed" for e in t.envs[last[1]:last[2]])

    _until(t, bot, revealed_units, limit=1500)
    seat = t.match.last_command[0]  # type: ignore[index]
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("takeback", seat))
    assert e.value.code == "takeback_after_reveal"


def test_takeback_refused_in_dragon_dale_after_a_peek() -> None:
    """A tree's underside checked or the Dragon's deck peeked at shows the seat itself something
    nobody saw: taking the command back would keep what it learned."""
    t = Table("dragondale", 2)
    bot = random.Random(14)

    def peeked(t: Table) -> bool:
        last = t.match.last_command
        return last is not None and not _last_drew(t) and any(
            e.type in ("dragondale.TreeChecked", "dragondale.DragonPeeked") for e in t.envs[last[1]:last[2]])

    _until(t, bot, peeked, limit=3000)
    seat = t.match.last_command[0]  # type: ignore[index]
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("takeback", seat))
    assert e.value.code == "takeback_after_reveal"


def test_takeback_only_of_the_seats_own_last_command_and_only_when_on() -> None:
    t = Table("factions", 2)
    t.play(random.Random(8), 5)
    last = t.match.last_command
    assert last is not None and last[0] is not None
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("takeback", 1 - last[0]))
    assert e.value.code == "takeback_not_last"
    t.send(conduct("takeback", last[0]))
    t.send(conduct("refuse", 1 - last[0]))
    assert conduct_of(t.match).proposal is None and t.match.last_command == last
    off = Table("factions", 2, {"takeback": False})
    off.play(random.Random(8), 5)
    with pytest.raises(IllegalCommand) as e:
        off.send(conduct("takeback", off.match.last_command[0]))  # type: ignore[index]
    assert e.value.code == "takeback_off"


def test_an_unanswered_takeback_lapses_once_anyone_else_acts() -> None:
    t = Table("factions", 2)
    bot = random.Random(9)
    t.play(bot, 5)
    _until(t, bot, lambda t: t.match.prompt is not None and t.match.last_command is not None
           and t.match.last_command[0] not in t.match.prompt.seats)
    seat = t.match.last_command[0]  # type: ignore[index]
    t.send(conduct("takeback", seat))
    t.play(bot, 1)  # the other seat moves instead of answering
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("accept", 1 - seat))  # type: ignore[operator]
    assert e.value.code == "no_proposal"


# -- disputes -----------------------------------------------------------------------------


def _a_command_seq(t: Table, index: int, other_than: int | None = None) -> int:
    """The seq of the `index`th game command (of a seat other than `other_than`: a seat disputes
    another's move, never its own)."""
    seqs = [e.seq for e in t.envs if e.type == "boardlog.CommandAccepted"
            and not str(e.data["type"]).startswith("boardlog.") and (other_than is None or e.seat != other_than)]
    return seqs[index]


def test_dispute_voided_in_rite_returns_to_the_state_before_the_seq() -> None:
    t = Table("rite", 2)
    bot = random.Random(10)
    t.play(bot, 40)
    on = _a_command_seq(t, 10, other_than=0)
    before = t.at(on - 1)
    last = t.match.last_command
    assert last is not None
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("dispute", 0, seq=on + 1, note="not a command's seq"))
    assert e.value.code == "not_a_command"
    t.send(conduct("dispute", 0, seq=on, note="the rules engine let a Knight through Sacred Grounds"))
    assert conduct_of(t.match).dispute_open
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("resolve", 0, verdict="voided"))
    assert e.value.code == "own_dispute"
    types = t.send(conduct("resolve", 1, verdict="voided"))
    assert types[-3:] == ["boardlog.DisputeVoted", "boardlog.DisputeResolved", "boardlog.TakenBack"]
    assert t.match.state == before.state and t.match.draws == before.draws
    assert not conduct_of(t.match).dispute_open
    assert conduct_of(t.match).undone == ((on, last[2], t.match.seq),)
    # A game made before the setting "void_draws" (this one has none) keeps the rule it was made
    # under: replayed from the same position, it draws the same values at the same indexes.
    t.play(bot, 5)
    end_by_resign(t)
    assert audited(t.envs).ok
    forged, seq = edited(t.envs, "boardlog.DisputeResolved", lambda d: {**d, "verdict": "upheld"})
    rep = audited(forged)
    assert not rep.ok and rep.seq == seq, rep.line()


def test_dispute_upheld_changes_nothing_and_a_refereed_game_is_settled_by_its_referee() -> None:
    t = Table("factions", 2, referee="rex")
    t.play(random.Random(11), 10)
    on = _a_command_seq(t, 1, other_than=1)
    state = t.match.state
    t.send(conduct("dispute", 1, seq=on, note="misclick"))
    with pytest.raises(IllegalCommand) as e:
        t.send(conduct("resolve", 0, verdict="upheld"))
    assert e.value.code == "referee_resolves"
    types = t.send(conduct("resolve", None, verdict="upheld", referee=True, reason="the move stands"))
    assert types[-1] == "boardlog.DisputeResolved" and t.match.state == state
    assert conduct_of(t.match).disputes[0].verdict == "upheld"
    end_by_resign(t)
    assert audited(t.envs).ok


def test_takebacks_and_disputes_name_their_moves_as_the_move_list_numbers_them() -> None:
    """The move list says "disputes move 12", not the seq of its CommandAccepted (a number no
    page shows a player, which the replay's steps count differently)."""
    from projections.moves import move_entries

    t = Table("factions", 2)
    bot = random.Random(5)
    t.play(bot, 8)
    _until(t, bot, lambda t: not _last_drew(t) and t.match.last_command is not None
           and t.match.last_command[2] > t.match.last_command[1])
    last = t.match.last_command
    assert last is not None and last[0] is not None
    seat = last[0]
    t.send(conduct("takeback", seat))
    t.send(conduct("accept", 1 - seat))
    t.play(bot, 6)
    on = _a_command_seq(t, -2, other_than=1)
    t.send(conduct("dispute", 1, seq=on, note="misclick"))
    t.send(conduct("resolve", 0, verdict="voided"))

    entries, _ = move_entries(t.envs, GID, None)
    move = {e["seq_from"]: e["move"] for e in entries if e["seat"] is not None}
    taken, disputed = move[last[1]], move[on]
    said = [x["text"] for e in entries for x in e["events"]] + [e["text"] for e in entries if e["seat"] is not None]
    assert f"{t.match.seats[seat].name} asks to take back their last move (move {taken})." in said
    assert (f"Move {taken} is taken back: the game returns to where it was before move {taken} "
            "(it stays in the record, struck through).") in said
    assert f"bob disputes move {disputed}." in said
    assert f"bob disputes move {disputed}: misclick" in said
    assert f"The players void move {disputed} and every move after it." in said
    # The dispute voids its move and those after it, up to the dispute: the last move numbered
    # before it (a dispute is a table action, unnumbered since issue #40).
    at = next(i for i, e in enumerate(entries) if e["text"].startswith("bob disputes"))
    assert entries[at]["move"] is None
    upto = max(e["move"] for e in entries[:at] if e["move"] is not None)
    assert upto > disputed
    assert (f"Moves {disputed} to {upto} are voided: the game returns to where it was before move "
            f"{disputed} (they stay in the record, struck through).") in said
    assert not any("seq" in x for x in said if "move" in x and ("dispute" in x or "taken back" in x))
    # A notice, with no list at hand, counts the same numbers from the log.
    from projections.moves import move_number

    assert move_number(t.envs, last[1]) == taken and move_number(t.envs, on) == disputed
    assert all(move_number(t.envs, e["seq_to"]) == e["move"] for e in entries if e["move"] is not None)


def test_a_takeback_shows_no_viewer_the_state_it_carries() -> None:
    """TakenBack holds the whole position, every seat's hidden units included: /events, the move
    list and a seat's export (all through redact_envelope) leave it out for every viewer."""
    from projections.readmodels import redact_envelope

    t = Table("dragondale", 2)
    bot = random.Random(12)
    t.play(bot, 6)
    seat = -1
    for _ in range(200):
        last = t.match.last_command
        assert last is not None and last[0] is not None
        try:
            t.send(conduct("takeback", last[0]))
            seat = last[0]
            break
        except IllegalCommand:
            t.play(bot, 1)
    t.send(conduct("accept", 1 - seat))
    env = t.envs[-1]
    assert env.type == "boardlog.TakenBack" and "state" in env.data
    hidden = [u for tribe in t.match.rules.view(t.match.state, 0)["tribes"] for u in tribe["units"] if u["hidden"]]
    assert hidden, "no hidden unit in the position"
    for viewer in (None, 0, 1):
        seen = redact_envelope(t.match, env, viewer)
        assert seen is not None and "state" not in seen["data"] and seen["redacted"] is True
        assert seen["data"]["to_seq"] == env.data["to_seq"]


def test_a_resigned_seat_is_never_among_the_rules_winners() -> None:
    from events.domain.platform.conduct import Conduct
    from rules.core import Outcome

    ruled = Outcome((1,), (3, 5, 4), "25 victory points")
    assert Conduct(resigned=(1,)).outcome(ruled) == Outcome((2,), (3, 5, 4), "25 victory points")
    assert Conduct(resigned=(0,)).outcome(ruled) == ruled
    assert Conduct(resigned=(1,)).outcome(Outcome((0, 1), (5, 5, 4), "tie")) == Outcome((0,), (5, 5, 4), "tie")
    assert Conduct().outcome(None) is None


def test_a_resignation_is_told_to_each_seat_as_its_own_result() -> None:
    from service.usecases.notifications.notices import notices_for, step_groups

    t = Table("rite", 2)
    t.play(random.Random(1), 6)
    before, start = t.match, len(t.envs)
    t.send(conduct("resign", 0))
    [step] = step_groups(t.envs[start:])
    over = {n.seat: n for n in notices_for(before, t.match, step) if n.kind == "over"}
    assert {s: n.asked for s, n in over.items()} == {0: "bob won (resigned: ann)", 1: "you won (resigned: ann)"}
    assert over[1].subject().endswith(": the game is over, you won (resigned: ann)")


def test_the_seats_asked_to_answer_are_notified() -> None:
    from service.usecases.notifications.notices import notices_for, step_groups

    t = Table("factions", 3)
    t.play(random.Random(13), 3)
    before, start = t.match, len(t.envs)
    t.send(conduct("propose", 1, kind="draw"))
    [step] = step_groups(t.envs[start:])
    asks = [n for n in notices_for(before, t.match, step) if n.kind == "ask"]
    assert sorted(n.seat for n in asks) == [0, 2]
    assert asks[0].asked == "bob proposes a draw" and asks[0].choice == "turn"
    assert "accept or refuse" in asks[0].text("http://x") and asks[0].subject().endswith("bob proposes a draw")
    # A refereed game's dispute is for the referee: no seat is asked.
    r = Table("factions", 2, referee="rex")
    r.play(random.Random(13), 4)
    before, start = r.match, len(r.envs)
    r.send(conduct("dispute", 0, seq=_a_command_seq(r, 1, other_than=0), note="misclick"))
    assert [n for n in notices_for(before, r.match, step_groups(r.envs[start:])[0]) if n.kind == "ask"] == []


def test_a_dispute_notice_names_the_move_as_the_move_list_numbers_it() -> None:
    from projections.moves import move_entries, move_number
    from service.usecases.notifications.notices import notices_for, step_groups

    t = Table("factions", 2)
    t.play(random.Random(13), 6)
    on = _a_command_seq(t, 1, other_than=0)
    before, start = t.match, len(t.envs)
    t.send(conduct("dispute", 0, seq=on, note="misclick"))
    [step] = step_groups(t.envs[start:])
    entries, _ = move_entries(t.envs, GID, None)
    n = next(e["move"] for e in entries if e["seq_from"] == on)
    [ask] = [x for x in notices_for(before, t.match, step, lambda q: move_number(t.envs, q)) if x.kind == "ask"]
    assert ask.asked == f"ann disputes move {n}: misclick", ask.asked
    # Without the log to count from, the seq says which.
    [bare] = [x for x in notices_for(before, t.match, step) if x.kind == "ask"]
    assert bare.asked == f"ann disputes the move at seq {on}: misclick"


def test_the_conduct_state_is_written_and_read_back_by_snapshots() -> None:
    from events.records.snapshot import decode, encode
    from events.store.store import snapshot_classes

    t = Table("rite", 3)
    bot = random.Random(15)
    t.play(bot, 10)
    t.send(conduct("dispute", 0, seq=_a_command_seq(t, 2, other_than=0), note="void it"))
    t.send(conduct("resolve", 1, verdict="voided"))
    t.send(conduct("resolve", 2, verdict="voided"))
    t.send(conduct("resign", 2))
    t.send(conduct("propose", 0, kind="draw"))
    c = conduct_of(t.match)
    assert c.undone and c.disputes and c.resigned == (2,) and c.proposal is not None
    assert decode(encode(t.match), snapshot_classes) == t.match
