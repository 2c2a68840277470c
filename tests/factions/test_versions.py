"""Factions rules version 2 (issue #38 items 7 and 8) beside version 1: a record made under
version 1 still re-runs under its own rules, and a new game gets version 2 (CHANGELOG.md)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

import pytest

import rules.core as core
from events.domain.audit import audit
from events.records.envelope import Envelope
from events.records.export import export_lines, read_record
from rules.core import get_game, rules_version
from rules.factions import GAME
from rules.factions.game import GAME_V1
from tests.support.records import play_offline


@pytest.fixture
def v1_current() -> Iterator[None]:
    """A build as it was before version 2: new games get version 1 while the fixture lasts."""
    saved = core._REGISTRY["factions"]
    core._REGISTRY["factions"] = GAME_V1
    yield
    core._REGISTRY["factions"] = saved


def _twice_recruited(envs: list[Envelope]) -> bool:
    """Whether a seat recruited twice in a row during a round (version 2 refuses the second)."""
    types = [(e.type, e.data.get("seat")) for e in envs if e.type.startswith("factions.")]
    started = False
    for a, b in pairwise(types):
        started = started or a[0] == "factions.RoundStarted"
        if started and a[0] == b[0] == "factions.UnitRecruited" and a[1] == b[1]:
            return True
    return False


def test_a_version_1_record_reruns_under_version_1(v1_current: None) -> None:
    envs = next(e for e in (play_offline("factions", ["ann", "bob"], {}, seed=s, max_commands=400)
                            for s in range(1, 30)) if _twice_recruited(e))
    assert envs[0].data["rules_version"] == 1
    assert "rules" not in next(e for e in envs if e.type == "factions.GameSetUp").data
    core._REGISTRY["factions"] = GAME  # this build: version 2 current, version 1 kept
    rep = audit(read_record(export_lines(envs)))
    assert rep.ok and rep.not_rerun is None, rep.line()


def test_new_games_play_version_2() -> None:
    assert rules_version(get_game("factions")) == 2 and get_game("factions", 1) is GAME_V1
    envs = play_offline("factions", ["ann", "bob"], {}, seed=3, max_commands=5)
    assert envs[0].data["rules_version"] == 2
    assert next(e for e in envs if e.type == "factions.GameSetUp").data["rules"] == 2
