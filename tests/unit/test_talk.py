"""Table talk and conditional moves in the pure domain: posting, hiding, the refusals, the audit
of a game with messages, and how a queued answer is chosen (issue #15 items 6 and 7)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.domain.audit import audit
from events.domain.match import Match, created_event, decide_and_fold, fold_match
from events.domain.platform import Context
from events.domain.platform.conduct import Conduct, with_conduct
from events.domain.platform.talk import (
    HIDE,
    MAX_TEXT,
    MESSAGE_HIDDEN,
    MESSAGE_POSTED,
    POST,
    talk_of,
)
from events.domain.queued import Entry, in_force, pick, read_queue, seen_notation, void_reason
from events.records.chain import genesis, seal
from events.records.envelope import Envelope
from events.records.export import Record
from rules import catalog
from rules.core import Command, Event, IllegalCommand, SeatInfo, get_game

catalog.load(["tests.support.racegame"])
GID = "p01-abcdef"
SEED = b"s" * 32


@dataclass
class Game:
    match: Match
    events: list[tuple[str, list[Event], str]]  # per command: its id, events and time


def new(name: str = "race", **options: object) -> Game:
    game = get_game(name)
    events = created_event(GID, game, [SeatInfo(0, "ann"), SeatInfo(1, "bob")], options, SEED, ["e"])
    return Game(fold_match(events, GID), [("", events, "2026-12-01T10:00:00.000Z")])


def run(g: Game, command: Command, cid: str, at: str = "2026-12-01T10:00:01.000Z") -> list[Event]:
    events, g.match = decide_and_fold(g.match, command, cid, SEED, Context(at=at))
    g.events.append((cid, events, at))
    return events


def test_a_message_is_an_event_folded_into_the_match() -> None:
    g = new()
    events = run(g, Command(POST, {"text": "good luck <b>all</b>"}, 1), "m1")
    assert [e.type for e in events] == ["boardlog.CommandAccepted", MESSAGE_POSTED]
    assert events[1].data == {"seat": 1, "text": "good luck <b>all</b>", "at": "2026-12-01T10:00:01.000Z"}
    (m,) = talk_of(g.match).messages
    assert (m.seq, m.seat, m.text, m.hidden) == (g.match.seq, 1, "good luck <b>all</b>", False)
    assert g.match.prompt is not None and g.match.prompt.seats == (0,)  # talk moves no prompt


@pytest.mark.parametrize(("text", "code"), [
    ("x" * (MAX_TEXT + 1), "message_too_long"), ("", "message_empty"), ("  \n ", "message_empty"),
    ("nul\x00", "bad_message"), ("rtl\u202etxt", "bad_message"), (17, "bad_message"),
])
def test_a_message_that_is_not_1_to_2000_characters_of_text_is_refused(text: object, code: str) -> None:
    g = new()
    with pytest.raises(IllegalCommand) as e:
        run(g, Command(POST, {"text": text}, 0), "m1")
    assert e.value.code == code


def test_exactly_2000_characters_with_line_breaks_are_a_message() -> None:
    g = new()
    run(g, Command(POST, {"text": "a\tb\n" + "x" * (MAX_TEXT - 4)}, 0), "m1")
    assert len(talk_of(g.match).messages[0].text) == MAX_TEXT


def test_a_message_needs_a_seat() -> None:
    with pytest.raises(IllegalCommand) as e:
        run(new(), Command(POST, {"text": "hi"}, None), "m1")
    assert e.value.code == "seat_required"


def test_the_admin_hides_a_message_once_and_the_original_stays_in_the_log() -> None:
    g = new()
    run(g, Command(POST, {"text": "rude words"}, 0), "m1")
    seq = talk_of(g.match).messages[0].seq
    events = run(g, Command(HIDE, {"seq": seq, "reason": "abuse"}, None), "h1")
    assert events[-1].type == MESSAGE_HIDDEN and events[-1].data["seq"] == seq
    assert talk_of(g.match).messages[0].hidden and talk_of(g.match).messages[0].text == "rude words"
    for args, code in (({"seq": seq}, "already_hidden"), ({"seq": 2}, "unknown_message"), ({}, "bad_args")):
        with pytest.raises(IllegalCommand) as e:
            run(g, Command(HIDE, args, None), "h2")
        assert e.value.code == code


def test_talk_goes_on_after_the_end_and_the_audit_re_runs_it() -> None:
    g = new(target=1)
    run(g, Command(POST, {"text": "gl"}, 0), "m1")
    run(g, Command("race.roll", {}, 0), "r1")
    assert g.match.over
    run(g, Command(POST, {"text": "gg"}, 1), "m2")
    seq = talk_of(g.match).messages[0].seq
    run(g, Command(HIDE, {"seq": seq}, None), "h1")
    report = audit(Record(_sealed(g.events), None))
    assert report.ok, report.line()
    # A message edited and the chain sealed again: the re-run gives the text its command gave.
    edited = [(cid, [Event(e.type, {**e.data, "text": "edited"}, e.seat) if e.type == MESSAGE_POSTED else e
                     for e in events], at) for cid, events, at in g.events]
    report = audit(Record(_sealed(edited), None))
    assert not report.ok and "MessagePosted" in report.reason


def _sealed(commands: list[tuple[str, list[Event], str]]) -> list[Envelope]:
    envs: list[Envelope] = []
    prev, first = genesis(GID), 1
    for cid, events, at in commands:
        done = seal(GID, first, prev, events, cid or None, at)
        envs += done
        prev, first = done[-1].hash, done[-1].seq + 1
    return envs


# --- conditional moves ----------------------------------------------------------------------

def test_a_queue_is_read_in_the_games_notation_and_refused_with_a_reason() -> None:
    g = new("rite")
    rules = g.match.rules
    entries = read_queue(rules, 2, 1, [{"if": " summon   knight g1 ", "then": "summon fighter b3"}, {"then": "pass"}])
    assert entries == [Entry("summon knight g1", "summon fighter b3"), Entry(None, "pass")]
    for bad in ([{"then": "fly away"}], [{"if": "nonsense here", "then": "pass"}], [{"when": "x"}], "pass",
                [{"then": "pass"}] * 21, [{"then": "x" * 300}]):
        with pytest.raises(IllegalCommand) as e:
            read_queue(rules, 2, 1, bad)
        assert e.value.code == "bad_queue"


def _rite_after_knight(where: str) -> Match:
    g = new("rite")
    legal = {g.match.rules.format_text(c): c for c in g.match.rules.legal_commands(g.match.state, 0)}
    run(g, legal[f"summon knight {where}"], "c1")
    return g.match


def test_the_first_entry_whose_guard_matches_and_is_legal_is_chosen() -> None:
    match = _rite_after_knight("g1")
    entries = [Entry("summon knight c2", "summon fighter b3"),   # guard does not match
               Entry("summon knight g1", "summon fighter z9"),   # not legal
               Entry("summon knight g1", "summon fighter g4"),
               Entry(None, "pass")]
    i, cmd = pick(match, 1, entries, "summon knight g1") or (None, None)
    assert i == 2 and cmd is not None and match.rules.format_text(cmd) == "summon fighter g4"
    assert cmd in list(match.rules.legal_commands(match.state, 1))
    # Another opponent move: only the unguarded entry fits; with none, nothing.
    assert (pick(match, 1, entries, "summon knight a5") or (None,))[0] == 3
    assert pick(match, 1, entries[:3], "summon knight a5") is None
    # A hidden (or no) last command matches no guard.
    assert pick(match, 1, entries[:3], None) is None


def test_a_takeback_voids_a_queue_set_on_the_undone_position_or_whose_answer_it_undid() -> None:
    # A TakenBack at seq 20 undid seqs 11-15 (back to seq 10).
    match = with_conduct(_rite_after_knight("g1"), Conduct(undone=((11, 15, 20),)))
    assert [in_force(match, s) for s in (10, 11, 15, 16)] == [True, False, False, True]
    assert void_reason(match, 10, []) is None  # set on the position returned to: it still answers it
    assert void_reason(match, 5, [8]) is None  # set before, its answer before the undone seqs
    assert "seq 10" in (void_reason(match, 12, []) or "")  # set on a position that is gone
    assert "seq 10" in (void_reason(match, 17, []) or "")  # set while the takeback was asked
    assert "undid the answer" in (void_reason(match, 5, [11]) or "")
    assert void_reason(match, 20, [11]) is None  # set after the TakenBack: it saw the game as it is
    assert void_reason(with_conduct(match, Conduct()), 12, [11]) is None  # no takeback, nothing void


def test_a_guard_sees_another_seats_command_only_as_its_seat_saw_it() -> None:
    rules = get_game("dragondale")
    hidden = [c for c in _dragondale_commands() if rules.redact_command(c, 1) != c]
    assert hidden, "Dragon Dale has commands another seat sees redacted"
    assert seen_notation(rules, hidden[0], 1) is None
    public = Command("race.roll", {}, 0)
    assert seen_notation(get_game("race"), public, 1) == "roll"


def _dragondale_commands() -> list[Command]:
    """Commands of a short random Dragon Dale opening, for a redacted one."""
    import random

    g = new("dragondale")
    bot, out = random.Random(3), []
    for i in range(60):
        prompt = g.match.prompt
        if prompt is None:
            break
        seat = prompt.seats[0]
        cmd = bot.choice(list(g.match.rules.legal_commands(g.match.state, seat)))
        out.append(cmd)
        run(g, cmd, f"d{i}")
    return out


# --- any input: a clear refusal or an accepted message, never a crash ----------------------

@settings(max_examples=60, deadline=None)
@given(st.one_of(st.text(max_size=2100), st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=2)))
def test_any_text_is_a_message_or_refused_with_a_code(text: object) -> None:
    g = new()
    try:
        events = run(g, Command(POST, {"text": text}, 0), "m1")
    except IllegalCommand as e:
        assert e.code in {"bad_message", "message_empty", "message_too_long"}
        return
    assert isinstance(text, str) and 1 <= len(text) <= MAX_TEXT and text.strip()
    assert events[-1].data["text"] == text and talk_of(g.match).messages[-1].text == text


_notation = st.one_of(st.none(), st.text(max_size=30), st.sampled_from(["pass", "summon knight g1", "summon fighter b3"]))


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.lists(st.fixed_dictionaries({"then": _notation}, optional={"if": _notation}), max_size=4),
                 st.lists(st.dictionaries(st.text(max_size=5), _notation, max_size=3), max_size=3),
                 st.text(max_size=10), st.integers()))
def test_any_queue_reads_or_is_refused_as_bad_queue(raw: object) -> None:
    rules = get_game("rite")
    try:
        entries = read_queue(rules, 2, 1, raw)
    except IllegalCommand as e:
        assert e.code == "bad_queue" and e.message
        return
    for entry in entries:  # what reads is in the game's own notation, and reads again the same
        assert rules.format_text(rules.parse_text(entry.then, 1)) == entry.then


def test_a_snapshot_holds_the_talk_as_folded() -> None:
    from events.records.snapshot import decode, encode
    from events.store.store import snapshot_classes

    g = new()
    run(g, Command(POST, {"text": "hi <b>"}, 0), "m1")
    run(g, Command(HIDE, {"seq": g.match.seq}, None), "h1")
    back = decode(encode(g.match), snapshot_classes)
    assert back == g.match and talk_of(back).messages[0].hidden


def test_a_game_made_before_the_one_name_rule_keeps_its_talk_rule_so_its_record_re_runs() -> None:
    """Games made now carry GameCreated's platform "talk_rule": "names" (events.domain.names:
    private-use characters and line separators refused, an emoji family kept); one made before
    has none and keeps the rule it was played under, which took them."""
    older = "a private \ue000 mark\u2028and a line separator"
    g = new()  # made without the platform settings: as a record from before
    assert "talk_rule" not in g.match.settings
    run(g, Command(POST, {"text": older}, 0), "old-1")
    assert talk_of(g.match).messages[-1].text == older
    made = created_event(GID, get_game("race"), [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {}, SEED, ["e"],
                         platform={"talk_rule": "names"})
    now = Game(fold_match(made, GID), [("", made, "2026-12-01T10:00:00.000Z")])
    with pytest.raises(IllegalCommand) as refused:
        run(now, Command(POST, {"text": older}, 0), "new-1")
    assert refused.value.code == "bad_message" and "U+E000" in refused.value.message
    family = "the \U0001f468\u200d\U0001f469\u200d\U0001f467 are here"
    run(now, Command(POST, {"text": family}, 0), "new-2")
    assert talk_of(now.match).messages[-1].text == family
