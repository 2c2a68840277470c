"""The match fold around a game: joins mix entropy into later draws, aborts reveal the seed."""

from __future__ import annotations

from typing import Any

import pytest

from events.domain.audit import audit
from events.domain.match import JOIN, SEED_REVEALED, created_event, decide_and_fold, fold_match
from events.records.chain import genesis, seal
from events.records.export import export_lines, read_record
from rules.core import Command, IllegalCommand, SeatInfo, get_game

GID = "p04-0123456789ab"
SEED = b"\x07" * 32


def decide_events(*args: Any, **kw: Any) -> list[Any]:
    """The events one command appends (without the folded match)."""
    return decide_and_fold(*args, **kw)[0]


def start() -> tuple[list, object]:  # type: ignore[type-arg]
    events = created_event(GID, get_game("race"), [SeatInfo(0, "a"), SeatInfo(1, "b")], {"target": 500}, SEED, ["", ""])
    return events, fold_match(events, GID)


def rolls_after(join: bool) -> list[int]:
    _, match = start()
    if join:
        new = decide_events(match, Command(JOIN, {"entropy": "dice in my pocket"}, 1), "j", SEED)  # type: ignore[arg-type]
        match = fold_match(new, GID, match)  # type: ignore[arg-type]
    out = []
    for i in range(8):
        new = decide_events(match, Command("race.roll", {}, i % 2), f"c{i}", SEED)  # type: ignore[arg-type]
        out.append(new[1].data["die"])
        match = fold_match(new, GID, match)  # type: ignore[arg-type]
    return out


def test_a_join_changes_every_later_draw() -> None:
    assert rolls_after(join=False) != rolls_after(join=True)


def test_a_seat_joins_once_and_the_record_still_audits() -> None:
    events, match = start()
    envs = seal(GID, 1, genesis(GID), events, None, "t")
    j = decide_events(match, Command(JOIN, {"entropy": "xyz"}, 0), "j0", SEED)  # type: ignore[arg-type]
    match = fold_match(j, GID, match)  # type: ignore[arg-type]
    envs += seal(GID, len(envs) + 1, envs[-1].hash, j, "j0", "t")
    with pytest.raises(IllegalCommand) as e:
        decide_events(match, Command(JOIN, {"entropy": "again"}, 0), "j1", SEED)  # type: ignore[arg-type]
    assert e.value.code == "already_joined"
    abort = decide_events(match, Command("boardlog.abort", {"reason": "test"}, None), "a", SEED)  # type: ignore[arg-type]
    assert abort[-1].type == SEED_REVEALED
    envs += seal(GID, len(envs) + 1, envs[-1].hash, abort, "a", "t")
    report = audit(read_record(export_lines(envs)))
    assert report.ok, report.line()


def test_a_refusal_for_the_prompt_says_in_words_what_the_game_waits_for() -> None:
    """A command from a seat the prompt does not name, or of a type it does not take, is
    refused with the game's own sentence for the prompt, as the sender may see it, and the
    seats by name; the codes stay not_your_turn and wrong_prompt."""
    from rules import catalog
    from tests.support.records import play_offline

    catalog.load()
    envs = play_offline("factions", ["ann", "bob"], {}, 5, gid="p01-abcdef012345", max_commands=6)
    m = fold_match([e.event for e in envs], "p01-abcdef012345")
    assert m.state.prompt is not None
    seat = m.state.prompt.seats[0]
    waits = m.rules.describe_prompt(m.state, 1 - seat, ["ann", "bob"])
    legal = next(iter(m.rules.legal_commands(m.state, seat)))
    with pytest.raises(IllegalCommand) as e:
        decide_events(m, Command(legal.type, legal.args, 1 - seat), "c1", b"s" * 32)
    assert e.value.code == "not_your_turn"
    assert e.value.message == f"It is not your turn; the game waits on {waits}"
    assert ["ann", "bob"][seat] in e.value.message and "seat" not in e.value.message
    with pytest.raises(IllegalCommand) as e:
        decide_events(m, m.rules.parse_text("recruit MI", seat), "c2", b"s" * 32)
    assert e.value.code == "wrong_prompt"
    assert e.value.message.startswith("recruit is not a move now: the game asks ")
    assert e.value.message.endswith("(answered with: tile).") and "factions." not in e.value.message
