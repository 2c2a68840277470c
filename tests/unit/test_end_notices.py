"""The last mail of a game (issue #36 item 6): who won and why, the final scores as the rules
counted them, the replay from the start, the record and its audit, and where to play again.
Pure, from hand-built matches of the test game (tests/support/racegame.py)."""

from __future__ import annotations

from events.domain.match import Match, created_event, decide_and_fold, fold_match
from events.records.envelope import Envelope
from rules.core import Command, SeatInfo, get_game
from service.usecases.notifications.notices import Notice, notices_for

GID = "p01-abcdef654321"
URL = "http://x.test"


def envelopes(events: list, start: int = 1) -> list[Envelope]:
    return [Envelope(GID, start + i, e.type, dict(e.data), e.seat, None, f"2026-12-01T10:00:{i:02d}.000Z", "", "")
            for i, e in enumerate(events)]


def won_by_ann() -> tuple[Match, list[Notice]]:
    """ann rolls first in a race to 1: her roll ends the game."""
    events = created_event(GID, get_game("race"), [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {"target": 1},
                           b"s" * 32, [])
    match = fold_match((e.event for e in envelopes(events)), GID)
    step, after = decide_and_fold(match, Command("race.roll", {}, 0), "c1", b"s" * 32)
    return after, notices_for(match, after, envelopes(step, match.seq + 1))


def test_the_end_mail_says_who_won_with_the_reason_and_the_final_scores() -> None:
    after, notices = won_by_ann()
    out = after.outcome()
    assert out is not None and out.scores
    said = ", ".join(f"{n} {v}" for n, v in zip(("ann", "bob"), out.scores, strict=True))
    to = {n.seat: n for n in notices}
    assert to[0].lines(URL)[:2] == ["ann, the game is over: you won (reached the target).", f"Final scores: {said}."]
    assert to[1].lines(URL)[:2] == ["bob, the game is over: ann won (reached the target).", f"Final scores: {said}."]
    assert Notice.from_json(to[1].to_json()) == to[1]


def test_the_end_mail_links_the_replay_from_the_start_the_record_its_audit_and_the_board() -> None:
    _, notices = won_by_ann()
    bob = next(n for n in notices if n.seat == 1)
    text = bob.text(URL)
    for line in (f"Replay it from the start: {URL}/games/{GID}/replay?seq=1",
                 f"Download the record: {URL}/v1/games/{GID}/export",
                 f"Its audit (verified, unverifiable or failed): {URL}/v1/games/{GID}/audit",
                 f"Play again, from the board: {URL}/games/{GID}#seat=1"):
        assert line in text.splitlines(), text
    page = bob.html(URL)
    assert f'<a href="{URL}/v1/games/{GID}/export">Download the record</a>' in page
    assert "Final scores: ann" in page


def test_an_end_without_scores_says_none() -> None:
    bare = Notice(GID, "race", 9, 0, "ann", "over", "bob won (resigned: ann)", "", "2026-12-01T10:00:00.000Z")
    assert not any(line.startswith("Final scores") for line in bare.lines(URL))
