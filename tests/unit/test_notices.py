"""What a notice says and which notices a step calls for (service/usecases/notifications/notices.py), and quiet
hours (service/usecases/notifications/quiet.py): pure, from hand-built matches of the test game."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from events.domain.match import Match, created_event, decide_and_fold, fold_match
from events.domain.platform.base import Context
from events.records.envelope import Envelope
from rules.core import Command, SeatInfo, get_game
from service.stores.notifications import Quiet
from service.usecases.notifications.channels import (
    MailSettings,
    digest_mail,
    masked,
    message_id,
    notice_mail,
)
from service.usecases.notifications.notices import (
    REFEREE,
    MoveWords,
    Notice,
    deadline_words,
    notices_for,
    referee_move,
    step_groups,
)
from service.usecases.notifications.quiet import check_quiet, held_for_ms

GID = "p01-abcdef123456"


def envelopes(events: list, start: int = 1) -> list[Envelope]:
    return [Envelope(GID, start + i, e.type, dict(e.data), e.seat, None, f"2026-12-01T10:00:{i:02d}.000Z", "", "")
            for i, e in enumerate(events)]


def new_game(target: int = 1000) -> tuple[Match, list[Envelope]]:
    events = created_event(GID, get_game("race"), [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {"target": target},
                           b"s" * 32, [])
    envs = envelopes(events)
    return fold_match((e.event for e in envs), GID), envs


def play(match: Match, seat: int, n: int) -> tuple[Match, list[Envelope]]:
    events, after = decide_and_fold(match, Command("race.roll", {}, seat), f"c{n}", b"s" * 32)
    return after, envelopes(events, match.seq + 1)


def test_a_turn_arriving_notifies_the_seat_now_prompted_with_the_move_in_words() -> None:
    start, envs = new_game()
    first = notices_for(None, start, step_groups(envs)[0])
    assert [(n.seat, n.kind, n.last) for n in first] == [(0, "turn", "")]  # the first turn, no move yet
    after, step = play(start, 0, 1)
    [n] = notices_for(start, after, step)
    assert (n.seat, n.seat_name, n.kind, n.asked, n.seq) == (1, "bob", "turn", "roll the die", after.seq)
    assert "ann" in n.last and n.last
    assert n.key("pl", "tg") == f"{GID}:{after.seq}:pl:tg"
    assert n.subject() == f"Race {GID}: your turn — roll the die"
    assert f"http://x.test/games/{GID}" in n.text("http://x.test") and "<a href" in n.html("http://x.test")
    assert Notice.from_json(n.to_json()) == n


def test_a_note_that_keeps_the_prompt_on_its_own_seat_notifies_nobody() -> None:
    start, _ = new_game()
    events, after = decide_and_fold(start, Command("race.note", {"text": "hi"}, 0), "c1", b"s" * 32)
    assert notices_for(start, after, envelopes(events, start.seq + 1)) == []


def test_the_end_of_a_game_notifies_every_seat_once() -> None:
    match, _ = new_game(target=1)
    after, step = play(match, 0, 1)
    notices = notices_for(match, after, step)
    assert sorted((n.seat, n.kind) for n in notices) == [(0, "over"), (1, "over")]
    # Each seat reads the outcome as told to it, with the game's reason.
    reason = after.outcome().reason  # type: ignore[union-attr]
    assert {n.seat: n.asked for n in notices} == {0: f"you won ({reason})" if reason else "you won",
                                                 1: f"ann won ({reason})" if reason else "ann won"}
    over = next(n for n in notices if n.seat == 1)
    assert over.subject() == f"Race {GID}: the game is over, {over.asked}"
    assert over.lines("http://x.test")[0] == f"bob, the game is over: {over.asked}."
    assert notices_for(after, after, step) == []  # already over: nothing again


def test_steps_are_cut_where_each_command_begins() -> None:
    start, envs = new_game()
    m1, s1 = play(start, 0, 1)
    _, s2 = play(m1, 1, 2)
    groups = step_groups([*envs, *s1, *s2])
    assert [len(g) for g in groups] == [len(envs), len(s1), len(s2)]


def test_quiet_hours_hold_a_notice_until_they_end_in_the_players_zone() -> None:
    paris = ZoneInfo("Europe/Paris")
    at = datetime(2026, 12, 1, 23, 30, tzinfo=paris).timestamp()
    quiet = Quiet("Europe/Paris", "22:00", "07:30")
    assert held_for_ms(quiet, at) == 8 * 3600 * 1000  # 23:30 -> 07:30 the next morning
    early = datetime(2026, 12, 2, 6, 0, tzinfo=paris).timestamp()
    assert held_for_ms(quiet, early) == 90 * 60 * 1000
    assert held_for_ms(quiet, datetime(2026, 12, 2, 12, 0, tzinfo=paris).timestamp()) == 0
    day = Quiet("UTC", "09:00", "17:00")
    assert held_for_ms(day, datetime(2026, 12, 1, 10, 0, tzinfo=ZoneInfo("UTC")).timestamp()) == 7 * 3600 * 1000
    assert held_for_ms(Quiet(), at) == 0


def test_quiet_hours_across_a_clock_change_end_at_the_local_time() -> None:
    paris = ZoneInfo("Europe/Paris")
    # The night of 28-29 March 2026 loses an hour at 02:00: 23:00 to 07:00 is 7 hours long.
    at = datetime(2026, 3, 28, 23, 0, tzinfo=paris).timestamp()
    assert held_for_ms(Quiet("Europe/Paris", "22:00", "07:00"), at) == 7 * 3600 * 1000


def test_bad_quiet_hours_say_why() -> None:
    assert "time zone" in (check_quiet("Mars/Olympus", "22:00", "07:00") or "")
    assert "HH:MM" in (check_quiet("UTC", "24:00", "07:00") or "")
    assert "both" in (check_quiet("UTC", "22:00", "") or "")
    assert check_quiet("UTC", "", "") is None and check_quiet("Europe/Paris", "22:00", "07:00") is None


def test_logs_hold_no_address_in_full() -> None:
    assert masked("annabel@example.org") == "an***@example.org"
    assert masked("https://hooks.example.org/secret/path?token=x") == "https://hooks.example.org/…"
    assert masked("discord://webhook_id/webhook_token") == "discord://webhook_id/…"
    assert message_id("k") == message_id("k") != message_id("j")  # a resend is the same message


def test_a_turn_notice_says_what_is_asked_in_the_games_own_words() -> None:
    """A Rite turn answers a dozen command types: the notice says the game's sentence for the
    prompt ("take an action, use a power or pass (round 2)"), not "act, breathe, charge, ...",
    not the commands that answer it."""
    from rules import catalog
    from tests.support.records import play_offline

    catalog.load()
    envs = play_offline("rite", ["ann", "bob"], {}, 5, gid=GID, max_commands=6)
    groups = step_groups(envs)
    before = fold_match((e.event for e in envs[: groups[-1][0].seq - 1]), GID)
    after = fold_match((e.event for e in envs), GID)
    assert after.prompt is not None
    notices = [n for n in notices_for(before, after, groups[-1]) if n.kind == "turn"]
    assert notices
    for n in notices:
        said = after.rules.describe_prompt(after.state, n.seat, ["ann", "bob"])
        assert n.asked and n.asked == said.partition(": ")[2].rstrip(".")
        assert "breathe" not in n.asked
        assert n.subject() == f"Rite {GID}: your turn — {n.asked}"


def test_a_reminder_names_its_deadline_on_the_players_own_clock() -> None:
    """A reminder said "your time runs out at 2026-12-03T14:00:00.000Z": an instant a player
    had to turn into their own time. It names the clock time in the player's zone (their quiet
    hours' zone, UTC until they set one), with seconds only for a clock of seconds."""
    assert deadline_words("2026-12-03T14:00:00.000Z") == "at 14:00 on Thu 3 Dec (UTC)"
    assert deadline_words("2026-12-03T23:30:00Z", "Europe/Paris") == "at 00:30 on Fri 4 Dec (Europe/Paris)"
    assert deadline_words("2026-07-01T12:00:00Z", "Europe/Paris") == "at 14:00 on Wed 1 Jul (Europe/Paris)"
    assert deadline_words("2026-12-03T14:00:07.250Z", "America/New_York") == "at 09:00:07 on Thu 3 Dec (America/New_York)"
    assert deadline_words("2026-12-03T14:00:00Z", "Not/AZone") == "at 14:00 on Thu 3 Dec (UTC)"
    assert deadline_words("soon") == "at soon"  # not an instant: told as it came

    n = Notice("g1", "rite", 9, 0, "ann", "reminder", deadline_words("2026-12-03T14:00:00Z"), "",
               "2026-12-03T13:00:00.000Z", "2026-12-03T14:00:00Z")
    paris = n.in_zone("Europe/Paris")
    assert paris.subject() == "Rite g1: reminder, your turn ends at 15:00 on Thu 3 Dec (Europe/Paris)"
    assert "your time runs out at 15:00 on Thu 3 Dec (Europe/Paris)." in paris.text("http://x")
    assert paris.key("p", "t") == n.key("p", "t")  # the same notice, sent once
    turn = Notice("g1", "rite", 9, 0, "ann", "turn", "roll", "", "2026-12-03T13:00:00.000Z")
    assert turn.in_zone("Europe/Paris") is turn
    # A notice queued before reminders carried their deadline still reads.
    old = {k: v for k, v in n.to_json().items() if k != "deadline"}
    assert Notice.from_json(old).in_zone("Europe/Paris").asked == n.asked


def test_a_seat_name_in_a_mail_is_text_not_markup() -> None:
    """Players choose seat names, and a notice's subject and lines hold them: in a mail's HTML
    part a name like '<a href=…>' is shown as written, never a link (a digest's headings
    held the subject unescaped)."""
    name = '<a href="https://evil.example/signin">bob</a>'
    n = Notice("g1", "rite", 9, 1, name, "turn", f"{name}: take an action", f"{name}: pass", "2026-12-03T13:00:00.000Z")
    for msg in (notice_mail(MailSettings(), n, "bob@example.org", "http://x", "http://x/unsubscribe/t", "k"),
                digest_mail(MailSettings(), [n, n], "bob@example.org", "http://x", "http://x/unsubscribe/t", "k")):
        page = msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
        assert "evil.example" in page and '<a href="https://evil' not in page, page
        assert "&lt;a href=&quot;https://evil.example/signin&quot;&gt;bob&lt;/a&gt;" in page


# -- disputes, rulings and table talk: the referee is told, and a conduct step is no turn ----------

class Table:
    """A race game played step by step, each step's envelopes kept (a dispute reads the past)."""

    def __init__(self, referee: str | None = None) -> None:
        events = created_event(GID, get_game("race"), [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {"target": 1000},
                               b"s" * 32, [], referee)
        self.envs = envelopes(events)
        self.match = fold_match((e.event for e in self.envs), GID)
        self.n = 0

    def send(self, type_: str, seat: int | None, **args: object) -> tuple[Match, Match, list[Envelope]]:
        """One command; the match before, after, and its step's envelopes."""
        self.n += 1
        before = self.match
        ctx = Context(at="2026-12-01T10:00:00.000Z",
                      match_at=lambda seq: fold_match((e.event for e in self.envs[:seq]), GID))
        events, self.match = decide_and_fold(before, Command(type_, dict(args), seat), f"c{self.n}", b"s" * 32, ctx)
        step = envelopes(events, before.seq + 1)
        self.envs += step
        return before, self.match, step


def disputed_words(t: Table) -> MoveWords:
    return lambda on: referee_move(fold_match((e.event for e in t.envs[: on - 1]), GID), t.envs[on - 1])


def test_a_dispute_in_a_refereed_game_tells_the_referee_with_the_move_the_note_and_the_ruling_link() -> None:
    t = Table(referee="carol")
    _, _, rolled = t.send("race.roll", 0)
    on = rolled[0].seq  # ann's roll: its CommandAccepted
    before, after, step = t.send("boardlog.dispute", 1, seq=on, note="the die fell off the table")
    notices = notices_for(before, after, step, disputed=disputed_words(t))
    [ref] = [n for n in notices if n.seat == REFEREE]
    assert (ref.kind, ref.seat_name, ref.dispute) == ("dispute", "carol", step[-1].seq)
    assert ref.asked == f"bob disputes the move at seq {on}: the die fell off the table"
    assert "ann" in ref.last and "roll" in ref.last  # the disputed move, in words
    text = ref.text("http://x.test")
    assert f"http://x.test/games/{GID}#dispute={ref.dispute}" in text and "the die fell off the table" in text
    assert ref.subject().startswith(f"Race {GID}: a dispute for you to rule — bob disputes")
    body = ref.payload("http://x.test", "k")
    assert (body["type"], body["role"], body["seat"], body["dispute"]) == (
        "boardlog.notice.dispute", "referee", None, ref.dispute)
    # bob's dispute is no move: ann reads that the game waits for the ruling; bob, who opened it
    # (and whose turn it stays), is told nothing, not his turn again.
    seats = [n for n in notices if n.seat != REFEREE]
    assert [(n.seat, n.kind) for n in seats] == [(0, "conduct")]
    assert seats[0].asked.endswith(": the game waits for the referee's ruling")


def test_a_ruling_with_its_reason_reaches_every_seat_once_and_names_the_seat_it_gives_the_turn() -> None:
    t = Table(referee="carol")
    _, _, rolled = t.send("race.roll", 0)
    t.send("boardlog.dispute", 1, seq=rolled[0].seq, note="misread")
    before, after, step = t.send("boardlog.resolve", None, verdict="voided", reason="the roll was mis-entered",
                                 referee=True)
    notices = notices_for(before, after, step)
    assert sorted((n.seat, n.kind) for n in notices) == [(0, "conduct"), (1, "conduct")]
    assert len({n.key("p", "t") for n in notices if n.seat == 0}) == 1
    for n in notices:
        assert n.asked.startswith("The referee (carol) voids") and n.asked.endswith(": the roll was mis-entered")
        assert "someone" not in n.text("http://x.test")
    # the void gives ann her turn back: she reads it in the same notice, never a bare "your turn"
    ann = next(n for n in notices if n.seat == 0)
    assert ann.turn == "roll the die" and "It is your turn: roll the die." in ann.text("http://x.test")
    assert next(n for n in notices if n.seat == 1).turn == ""


def test_a_message_while_a_seat_is_to_move_is_told_to_it_in_words_not_as_its_turn_again() -> None:
    t = Table()
    t.send("race.roll", 0)
    before, after, step = t.send("boardlog.post", 0, text="good luck")  # ann writes; bob is to move
    [n] = notices_for(before, after, step)
    assert (n.seat, n.kind, n.asked) == (1, "conduct", "ann writes: good luck")
    before, after, step = t.send("boardlog.post", 1, text="thanks")  # the seat to move writes itself
    assert notices_for(before, after, step) == []


def test_a_message_is_for_the_referee_when_it_names_them_or_while_a_dispute_is_open() -> None:
    t = Table(referee="carol")
    for text, told in (("nice roll", False), ("@referee is this legal?", True), ("@Carol look", True),
                       ("carol?", False), ("mail me@carolina.org", False)):
        before, after, step = t.send("boardlog.post", 1, text=text)
        got = [n for n in notices_for(before, after, step) if n.seat == REFEREE]
        assert bool(got) is told, text
        if got:
            assert (got[0].kind, got[0].asked, got[0].dispute) == ("message", f"bob writes: {text}", 0)
    _, _, rolled = t.send("race.roll", 0)
    _, _, opened = t.send("boardlog.dispute", 1, seq=rolled[0].seq, note="x")
    before, after, step = t.send("boardlog.post", 0, text="it was fine")  # any seat's, while a dispute is open
    [ref] = [n for n in notices_for(before, after, step) if n.seat == REFEREE]
    assert ref.dispute == opened[-1].seq and "#dispute=" in ref.seat_link("http://x.test")
    # the referee's own message is told to the seat to move (bob, to roll), never to the referee
    before, after, step = t.send("boardlog.post", None, text="I am looking at it", referee=True)
    assert [(n.seat, n.asked) for n in notices_for(before, after, step)] == [
        (1, "The referee (carol) writes: I am looking at it")]


def test_a_dispute_in_an_unrefereed_game_asks_the_other_seat_and_tells_no_referee() -> None:
    t = Table()
    _, _, rolled = t.send("race.roll", 0)
    before, after, step = t.send("boardlog.dispute", 1, seq=rolled[0].seq, note="x")
    assert [(n.seat, n.kind) for n in notices_for(before, after, step)] == [(0, "ask")]


def test_a_disputes_reminder_has_a_key_of_its_own_and_says_it_still_waits() -> None:
    n = Notice(GID, "race", 9, REFEREE, "carol", "dispute", "bob disputes move 3: x", "ann rolls", "t", dispute=9)
    reminder = replace(n, kind="dispute_reminder")
    assert reminder.key("p", "t") == f"{GID}:9:p:t:reminder" != n.key("p", "t")
    assert "still waits for your ruling" in reminder.text("http://x.test")
    assert reminder.subject().startswith(f"Race {GID}: reminder, a dispute waits for your ruling")
    assert Notice.from_json(reminder.to_json()) == reminder


def test_a_referees_mail_offers_reply_to_rule() -> None:
    n = Notice(GID, "race", 9, REFEREE, "carol", "dispute", "bob disputes move 3: x", "ann rolls", "t", dispute=9)
    msg = notice_mail(MailSettings(), n, "carol@example.org", "http://x.test", "http://x.test/u", "k",
                      "play+ab@play.test")
    assert msg["Reply-To"] == "play+ab@play.test"
    assert '"uphold: <your reason>" or "void: <your reason>"' in msg.get_body(("plain",)).get_content()


def clocked_race() -> tuple[Match, list[Envelope]]:
    """The test game with an hour's clock a move (no clock step folded yet: as the notifier
    sees a move before the clock's own step that follows it)."""
    events = created_event(GID, get_game("race"), [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {"target": 1000},
                           b"s" * 32, [], platform={"clock": {"per_move": 3600}})
    envs = envelopes(events)
    return fold_match((e.event for e in envs), GID), envs


def test_a_turn_mail_holds_the_moves_since_the_position_the_legal_moves_and_the_deadline() -> None:
    start, _ = clocked_race()
    after, step = play(start, 0, 1)
    [n] = notices_for(start, after, step, since=lambda seat, seq: [f"1. seat {1 - seat} rolls", "the wind blows"])
    # The clock's step, made at the move's time, gives an hour from it (the step's own "at").
    assert n.deadline == "2026-12-01T11:00:01.000Z"
    assert n.since == "1. seat 0 rolls\nthe wind blows"
    assert n.legal_count == len(n.legal.splitlines()) > 0
    mail = notice_mail(MailSettings(), n.in_zone("Europe/Paris"), "bob@example.org", "http://b", "http://b/u", "k",
                       "play+0@play.test")
    text = mail.get_body(("plain",)).get_content()
    assert "Your time for it ends at 12:00:01 on Tue 1 Dec (Europe/Paris)." in text
    assert "Since your last move:\n  1. seat 0 rolls\n  the wind blows" in text
    assert "Your legal moves (reply with one of them):\n  " + n.legal.splitlines()[0] in text
    assert "Stop these mails:" in text.strip().splitlines()[-1]  # a reply pasting it unmarked is read below it
    html_body = mail.get_body(("html",)).get_content()
    assert "<pre>" in html_body and "the wind blows" in html_body


def test_a_turn_mail_of_many_legal_moves_lists_the_first_thirty_and_links_to_the_rest() -> None:
    from events.domain.positiontext import position_text
    from projections.readmodels import view_of
    from rules import catalog
    from tests.support.records import play_offline

    catalog.load()
    envs = play_offline("rite", ["ann", "bob"], {}, 5, gid=GID, max_commands=3)
    groups = step_groups(envs)
    before = fold_match((e.event for e in envs[: groups[-1][0].seq - 1]), GID)
    after = fold_match((e.event for e in envs), GID)
    told = 0
    for n in notices_for(before, after, groups[-1]):
        if n.kind != "turn":
            continue
        every = [after.rules.format_text(c) for c in after.rules.legal_commands(after.state, n.seat)]
        assert n.legal.splitlines() == every[:30] and n.legal_count == len(every)
        lines = n.sheet("http://b")
        if len(every) > 30:
            assert f"  … and {len(every) - 30} more: http://b/games/{GID}" in lines
        assert "The position as you see it:" in lines  # Rite's text board
        # The same text as the board page's "Board as text" and GET …/view.txt, line for line.
        served = position_text(after.rules, view_of(after, n.seat), ["ann", "bob"])
        at = lines.index("The position as you see it:")
        assert lines[at + 1: at + 1 + len(served.splitlines())] == [f"  {x}" for x in served.splitlines()]
        assert served.splitlines()[0] == f"Rite: ann vs bob, round {view_of(after, n.seat)['board']['round']}"
        told += 1
    assert told


def test_the_text_board_of_each_game_tells_only_what_the_seats_view_holds() -> None:
    """Built from `view(state, seat)` alone: in Dragon Dale the other tribe's hidden unit is "a
    hidden unit", never its type; Rite's face-down power cards of the other seat are "face down"."""
    from events.domain.positiontext import position_text
    from projections.readmodels import view_of
    from rules import catalog
    from tests.support.records import play_offline

    catalog.load()
    for game in ("rite", "factions", "dragondale"):
        envs = play_offline(game, ["ann", "bob"], {}, 7, gid=GID, max_commands=12)
        match = fold_match((e.event for e in envs), GID)
        for seat in (0, 1):
            view = match.rules.view(match.state, seat)
            board = position_text(match.rules, view_of(match, seat), ["ann", "bob"])
            assert board and "None" not in board, (game, board)
            if game == "dragondale":
                other = next(t for t in view["tribes"] if t["seat"] != seat)
                for u in other["units"]:
                    if u["hidden"] and u["type"] is None:
                        assert "a hidden unit (" in board
            if game == "rite":
                theirs = view["players"][1 - seat]["powers"]
                assert all(c["power"] is None for c in theirs if not c["face_up"])
                assert "face down" in board
