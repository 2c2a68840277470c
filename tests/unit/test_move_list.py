"""The move list (projections.moves) over offline records of every shipped game: one entry per
command, every event the viewer may see in exactly one entry, paging, and redaction as /events."""

from __future__ import annotations

from functools import cache

import pytest

from events.domain.match import COMMAND_ACCEPTED
from events.records.envelope import Envelope
from projections.moves import MoveList, move_entries, page
from rules import catalog
from tests.support.records import play_offline

catalog.load()
GID = "p01-abcdef012345"
GAMES = ["rite", "factions", "dragondale"]


@cache
def _record(game: str, seats: int = 3) -> list[Envelope]:
    return play_offline(game, ["ann", "bob", "cat", "dan"][:seats], {}, 5, gid=GID, max_commands=80)


@pytest.mark.parametrize("game", GAMES)
def test_one_entry_per_command_and_each_event_in_one_entry(game: str) -> None:
    envs = _record(game)
    entries, match = move_entries(envs, GID, None)
    assert match is not None and match.seq == len(envs)
    commands = [e for e in envs if e.type == COMMAND_ACCEPTED]
    moves = [e for e in entries if e["seat"] is not None]
    assert [m["seq_from"] for m in moves] == [c.seq for c in commands]
    assert [m["move"] for m in moves] == list(range(1, len(commands) + 1))
    assert [e["n"] for e in entries] == list(range(1, len(entries) + 1))
    names = {0: "ann", 1: "bob", 2: "cat"}
    for m in moves:
        assert m["who"] == names[m["seat"]] and m["text"]
        assert m["notation"] or m.get("redacted"), "a notation unless part of the command is hidden"
    for e in entries:
        if e["seat"] is None:
            assert e["heading"] and e["who"] is None
        seqs = [x["seq"] for x in e["events"]]
        assert seqs == sorted(seqs) and all(e["seq_from"] <= s <= e["seq_to"] for s in seqs)
        assert all(x["text"] for x in e["events"])
    covered = [s for e in entries for s in range(e["seq_from"], e["seq_to"] + 1)]
    assert covered == list(range(1, len(envs) + 1)), "the entries tile the log"


@pytest.mark.parametrize("game", GAMES)
def test_cells_are_ids_of_the_board_the_view_draws(game: str) -> None:
    entries, match = move_entries(_record(game), GID, None)
    assert match is not None
    board = match.rules.view(match.state, None)["board"]
    ids = {c["id"] for c in board.get("cells", [])} | {a["id"] for a in board.get("areas", [])}
    touched = [c for e in entries for c in e["cells"]]
    assert touched, "some move touched the board"
    assert set(touched) <= ids, sorted(set(touched) - ids)


def test_pages_run_back_to_the_first_entry() -> None:
    entries, _ = move_entries(_record("rite"), GID, None)
    got: list[int] = []
    before = None
    while True:
        p = page(entries, before, 7)
        got = [e["n"] for e in p["entries"]] + got
        if p["older"] is None:
            break
        before = p["older"]
    assert got == list(range(1, len(entries) + 1))
    assert page(entries, 1, 7)["entries"] == [] and page(entries, 10_000, 3)["entries"] == entries[-3:]


def test_a_seat_reads_its_secret_and_the_others_do_not() -> None:
    envs = _record("dragondale")
    mine, _ = move_entries(envs, GID, 0)
    theirs, _ = move_entries(envs, GID, 1)
    public, _ = move_entries(envs, GID, None)
    stance_0 = [e for e in mine if e["seat"] == 0 and e["notation"] and e["notation"].startswith("stance")]
    assert stance_0, "seat 0 chose stances"
    seen_by_1 = {e["n"]: e for e in theirs}
    for e in stance_0:
        other = seen_by_1[e["n"]]
        assert other["notation"] is None and other.get("redacted")
        assert {x["text"] for x in other["events"]} == {x["text"] for x in public[e["n"] - 1]["events"]}


@pytest.mark.parametrize("game", GAMES)
def test_a_kept_list_fed_in_parts_equals_one_built_at_once(game: str) -> None:
    envs = _record(game)
    whole, _ = move_entries(envs, GID, 0)
    kept = MoveList(GID, 0)
    for cut in range(0, len(envs), 17):
        kept.feed(envs[cut:cut + 17])
        assert kept.seq == min(cut + 17, len(envs))
        kept.entries()  # reading between parts changes nothing
    assert kept.entries() == whole


def test_a_kept_list_refuses_a_gap_in_the_log() -> None:
    envs = _record("rite")
    kept = MoveList(GID, None)
    kept.feed(envs[:5])
    with pytest.raises(ValueError):
        kept.feed(envs[6:8])


def test_only_moves_are_numbered_chat_and_table_actions_stand_unnumbered_at_their_place() -> None:
    """A chat line or a table action took the next move number ("47. ann writes a message."), so
    the numbers players quote drifted from the moves (issue #40): only the game's commands (and a
    timeout, which plays a turn) are numbered; the others keep their place in the list, and a
    dispute names its move by the moves' numbers."""
    from tests.unit.test_disputes import GID as RACE
    from tests.unit.test_disputes import Table

    t = Table(referee=None)
    t.roll(0)
    t.send("boardlog.post", 0, text="your turn")
    t.send("boardlog.propose", 0, kind="draw")
    t.send("boardlog.refuse", 1)
    t.roll(1)
    on = t.roll(0)
    t.send("boardlog.dispute", 1, seq=on, note="twice")
    entries, _ = move_entries(t.envs, RACE, None)
    said = [(e["move"], e["text"].split(".")[0]) for e in entries if e["seat"] is not None]
    assert said == [(1, "ann rolls the die"), (None, "ann writes a message"), (None, "ann proposes a draw"),
                    (None, "bob refuses the proposal"), (2, "bob rolls the die"), (3, "ann rolls the die"),
                    (None, "bob disputes move 3")], said
    assert [e["n"] for e in entries] == list(range(1, len(entries) + 1))  # steps (the replay's ?at=) count all
