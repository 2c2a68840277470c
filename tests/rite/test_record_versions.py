"""Rite's rules version 2 records the end of the round without its bookkeeping (issue #18 item 1):
no `FlowStepped` event a step; a prompt that pauses the end of the round names the steps left.
Version 1's records, such as `data/rite-v1-two-seats.jsonl.zst` (exported by the build before
the change, commit adf4e10), still audit, and its games in progress play on under it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard

import rules.core as core
from events.domain.audit import audit
from events.domain.match import decide_and_fold, fold_match
from events.records.chain import seal
from events.records.envelope import Envelope
from events.records.export import export_lines, read_record
from rules.core import get_game, rules_version
from rules.rite import GAME, RULES_VERSION
from rules.rite.engine import EOR_STEPS
from rules.rite.game import GAME_V1, GAME_V2
from tests.support.records import play_offline

from .bot import seeking

RECORD = Path(__file__).parent / "data" / "rite-v1-two-seats.jsonl.zst"
TWO = {"factions": ["humans", "goblins"]}
SEED = 29  # the seeking bot's game that RECORD holds (163 commands, 946 events under version 1)


@pytest.fixture
def v1_newest() -> Iterator[None]:
    """The registry handing new games version 1, as the build before the change did."""
    saved = dict(core._REGISTRY)
    core._REGISTRY["rite"] = GAME_V1
    yield
    core._REGISTRY.clear()
    core._REGISTRY.update(saved)


def _record() -> list[bytes]:
    return zstandard.ZstdDecompressor().decompress(RECORD.read_bytes()).splitlines(keepends=True)


def _game(seed: int = SEED, max_commands: int = 5000) -> list[Envelope]:
    return play_offline("rite", ["ann", "bob"], TWO, seed=seed, policy=seeking(), max_commands=max_commands)


def test_new_rite_games_get_rules_version_3_and_versions_1_and_2_are_kept() -> None:
    assert RULES_VERSION == 3 and get_game("rite") is GAME
    assert get_game("rite", 1) is GAME_V1 and rules_version(GAME_V1) == 1
    assert get_game("rite", 2) is GAME_V2 and rules_version(GAME_V2) == 2


def test_a_record_made_under_rules_version_1_before_the_change_still_audits() -> None:
    lines = _record()
    report = audit(read_record(lines))
    assert report.ok, report.line()
    assert "163 commands re-run" in report.line() and "946 events" in report.line()
    envs = read_record(lines).envelopes
    assert envs[0].data["rules_version"] == 1
    assert sum(e.type == "rite.FlowStepped" for e in envs) == 98


def test_version_2_records_the_same_game_without_the_end_of_the_rounds_steps(v1_newest: None) -> None:
    old = _game()  # the recorded game, made again under version 1
    core._REGISTRY["rite"] = GAME_V2
    new = _game()
    assert old[0].data["rules_version"] == 1 and new[0].data["rules_version"] == 2
    assert not any(e.type == "rite.FlowStepped" for e in new)
    assert len(new) == len(old) - 98

    def facts(envs: list[Envelope]) -> list[tuple[str, dict[str, object], int | None, str | None]]:
        return [(e.type, {k: v for k, v in e.data.items() if k not in ("queue", "rules_version", "commitment")},
                 e.seat, e.command) for e in envs if e.type != "rite.FlowStepped"]

    # every decision, draw and prompt is the same; the final positions read the same to every seat
    assert facts(new) == facts(old)
    a, b = fold_match([e.event for e in old], old[0].game), fold_match([e.event for e in new], new[0].game)
    for seat in (None, 0, 1):
        assert GAME_V2.view(b.state, seat) == GAME_V1.view(a.state, seat)
    assert audit(read_record(export_lines(new))).ok


def test_a_prompt_that_pauses_the_end_of_the_round_names_the_steps_still_to_come() -> None:
    envs = _game()
    paused = [e for e in envs if e.type == "rite.ModeSet" and "queue" in e.data]
    assert paused, "the game has prompts in the end of the round"
    for e in paused:
        left = tuple(e.data["queue"])
        assert e.data["mode"] not in ("flow", "turn") and left == EOR_STEPS[len(EOR_STEPS) - len(left):]
    # and the fold picks the end of the round up where it paused: replayed, each prompt's state
    # holds the steps it named
    match = fold_match([envs[0].event], envs[0].game)
    for e in envs[1:]:
        match = fold_match([e.event], envs[0].game, match)
        if e in paused:
            assert match.state.queue == tuple(e.data["queue"])


def test_a_version_1_game_in_progress_plays_on_under_version_1(v1_newest: None) -> None:
    envs = _game(max_commands=10)
    core._REGISTRY["rite"] = GAME  # the build with version 2 takes over the running game
    match = fold_match([e.event for e in envs], envs[0].game)
    assert match.rules_version == 1
    bot = random.Random(SEED)
    secret = bot.randbytes(32)  # as play_offline drew it
    seen = False
    for n in range(400):
        if match.over or seen:
            break
        seat = bot.choice(list(match.prompt.seats))  # type: ignore[union-attr]
        cmd = seeking()(match.state, seat, list(GAME_V1.legal_commands(match.state, seat)), bot)
        new = decide_and_fold(match, cmd, f"later-{n}", secret)[0]
        envs += seal(envs[0].game, match.seq + 1, envs[-1].hash, new, f"later-{n}", "2026-12-01T12:00:00.000Z")
        match = fold_match(new, envs[0].game, match)
        seen = any(e.type == "rite.FlowStepped" for e in new)
    assert seen, "the round ended under version 1's rules, step by step"


def test_a_version_2_game_plays_on_under_version_2_with_the_same_events() -> None:
    """Version 3 (issue #38) changes play; a game set up under version 2 names no `rules` in its
    GameStarted, so its state reads as version 2 and the same commands give the same events."""
    core_saved = core._REGISTRY["rite"]
    core._REGISTRY["rite"] = GAME_V2
    try:
        old = _game(max_commands=300)
    finally:
        core._REGISTRY["rite"] = core_saved
    assert old[0].data["rules_version"] == 2 and "rules" not in old[1].data
    assert audit(read_record(export_lines(old))).ok
    match = fold_match([e.event for e in old], old[0].game)
    assert match.rules_version == 2 and match.state.rules == 2

