"""Rules versions (issue #21 item 9): a game's first event names the rules version it was made
under; the audit re-runs a record only under that version, and says so plainly when this build
has another; a running game is never switched to other rules; older records read through the
upcaster. The "newer build" here is the test game with a rules change of our own."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import rules.core as core
from events.domain.audit import audit
from events.domain.forks import ForkRefused, check_fork
from events.domain.match import decide_and_fold, fold_match
from events.domain.verdict import judge
from events.records.chain import link
from events.records.envelope import Envelope
from events.records.export import export_lines, read_record
from rules.core import Command, Decision, Event, IllegalCommand, get_game, register, rules_version
from rules.dragondale import RULES_VERSION as DD_VERSION
from rules.factions import RULES_VERSION as F_VERSION
from rules.rite import RULES_VERSION as RITE_VERSION
from tests.support.racegame import RaceGame, RaceState
from tests.support.records import play_offline


class RaceV2(RaceGame):
    """Version 2 of the race: a die showing the seat's charm moves three extra spaces, not two."""

    rules_version = 2

    def decide(self, state: RaceState, command: Command, rng: core.Rng) -> Decision:
        decision = super().decide(state, command, rng)
        events = [Event(e.type, {**e.data, "bonus": 3}, e.seat) if e.type == "race.DieRolled" and e.data["bonus"]
                  else e for e in decision.events]
        after = state
        for e in events:
            after = self.evolve(after, e)
        return Decision(events, after)


@pytest.fixture
def registry() -> Iterator[None]:
    """The registry as it was, restored after the test (which swaps the race's versions)."""
    saved = dict(core._REGISTRY), dict(core._VERSIONS)
    yield
    core._REGISTRY.clear()
    core._REGISTRY.update(saved[0])
    core._VERSIONS.clear()
    core._VERSIONS.update(saved[1])


def newer_build_only() -> None:
    """This build as a newer release: the race at version 2, its version 1 no longer kept."""
    core._VERSIONS.pop(("race", 1), None)
    core._REGISTRY.pop("race", None)
    register(RaceV2())


def rechain(envs: list[Envelope]) -> list[Envelope]:
    out: list[Envelope] = []
    prev = envs[0].prev
    for e in envs:
        e = replace(e, prev=prev)
        e = replace(e, hash=link(prev, e.body()))
        out.append(e)
        prev = e.hash
    return out


def run(envs: list[Envelope]):  # type: ignore[no-untyped-def]
    return audit(read_record(export_lines(envs)))


def record(seed: int = 7) -> list[Envelope]:
    """A finished race in which some die showed its seat's charm (so the versions differ)."""
    for s in range(seed, seed + 50):
        envs = play_offline("race", ["ann", "bob"], {"target": 25}, seed=s)
        if any(e.type == "race.DieRolled" and e.data["bonus"] for e in envs):
            return envs
    raise AssertionError("no race with a charm roll")


def test_each_shipped_game_names_its_rules_version_in_its_first_event() -> None:
    for name, version in (("rite", RITE_VERSION), ("factions", F_VERSION), ("dragondale", DD_VERSION)):
        game = get_game(name)
        assert rules_version(game) == version >= 1
    envs = play_offline("dragondale", ["ann", "bob"], {}, seed=1, max_commands=3)
    assert envs[0].data["rules_version"] == DD_VERSION
    assert fold_match([e.event for e in envs], envs[0].game).rules_version == DD_VERSION


def test_a_record_of_older_rules_is_not_rerun_by_a_newer_build_and_says_why(registry: None) -> None:
    envs = record()
    assert envs[0].data["rules_version"] == 1 and run(envs).ok
    newer_build_only()
    rep = run(envs)
    assert not rep.ok and rep.seq is None, rep.line()  # no divergence named
    assert rep.not_rerun is not None and "race rules version 1" in rep.not_rerun and "rules version 2" in rep.not_rerun
    assert "hash chain" in rep.checked and "seed commitment" in rep.checked
    verdict = judge(read_record(export_lines(envs)))
    assert verdict.verdict == "unverifiable" and "race rules version 1" in verdict.reason, verdict.line()


def test_a_build_keeping_the_old_version_reruns_the_record_under_it(registry: None) -> None:
    envs = record()
    register(RaceV2())  # the newer version beside the old one: new games get 2
    assert rules_version(get_game("race")) == 2 and get_game("race", 1) is not get_game("race")
    assert run(envs).ok, run(envs).line()
    fresh = play_offline("race", ["ann", "bob"], {"target": 25}, seed=3)
    assert fresh[0].data["rules_version"] == 2 and run(fresh).ok


def test_a_record_claiming_the_old_version_but_played_under_the_new_one_diverges(registry: None) -> None:
    register(RaceV2())
    envs = record()  # played under version 2
    claimed = rechain([replace(envs[0], data={**envs[0].data, "rules_version": 1}), *envs[1:]])
    rep = run(claimed)
    first = next(e.seq for e in envs if e.type == "race.DieRolled" and e.data["bonus"])
    assert not rep.ok and rep.seq == first and rep.not_rerun is None, rep.line()


def test_a_running_game_of_rules_this_build_lacks_refuses_moves_but_still_reads(registry: None) -> None:
    envs = play_offline("race", ["ann", "bob"], {"target": 1000}, seed=2, max_commands=4)
    newer_build_only()
    match = fold_match([e.event for e in envs], envs[0].game)
    assert match.rules_version == 1 and match.status == "active"
    assert match.rules.view(match.state, None)["positions"]  # still shown
    with pytest.raises(IllegalCommand) as refused:
        decide_and_fold(match, Command("race.roll", {}, match.state.turn), "c-new", b"\0" * 32)
    assert refused.value.code == "rules_version_unavailable"
    assert "version 1" in refused.value.message and "version 2" in refused.value.message
    # The platform's own commands still work (the admin may end such a game).
    _, after = decide_and_fold(match, Command("boardlog.abort", {"reason": "rules retired"}), "c-abort", b"\0" * 32)
    assert after.status == "aborted"


def test_a_record_from_before_versions_were_named_reads_as_version_1(registry: None) -> None:
    envs = record()
    data = {k: v for k, v in envs[0].data.items() if k != "rules_version"}
    old = rechain([replace(envs[0], data=data), *envs[1:]])
    assert "rules_version" not in old[0].data  # the stored bytes stay as written
    assert old[0].event.data["rules_version"] == 1  # the domain event is upcast
    assert run(old).ok, run(old).line()
    newer_build_only()
    rep = run(old)
    assert not rep.ok and rep.seq is None and rep.not_rerun is not None


def test_the_registry_refuses_two_games_under_one_name_and_version(registry: None) -> None:
    with pytest.raises(ValueError, match="rules version 1"):
        register(RaceGame())
    with pytest.raises(core.RulesVersionUnavailable):
        get_game("race", 9)


GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _decisions(game: str) -> str:
    """The digest of a game's golden decisions: its commands, events and outcome, and the header
    lines that drive them (the views are left out: showing is not deciding)."""
    h = hashlib.sha256()
    for f in sorted((GOLDEN / game).glob("*.txt")):
        h.update(f.name.encode() + b"\n")
        for line in f.read_text().splitlines():
            if re.match(r"^(> |\d+ |outcome )", line) or line.startswith(("# options", "# seats", "# rng", "# bot")):
                h.update(line.encode() + b"\n")
    return h.hexdigest()


@pytest.mark.parametrize("game", ["rite", "factions", "dragondale"])
def test_a_change_of_decisions_bumps_the_rules_version(game: str) -> None:
    """The golden playthroughs are re-made from the rules (scripts/regold.py): when their decisions
    change, the rules changed a decision, and the game's version must say so."""
    recorded = json.loads((GOLDEN / "decisions.json").read_text())[game]
    version = str(rules_version(get_game(game)))
    assert version in recorded, (f"{game} rules version {version} has no golden digest: record "
                                 f"{_decisions(game)!r} under it in tests/golden/decisions.json")
    assert _decisions(game) == recorded[version], (
        f"{game}'s golden decisions changed under rules version {version}: a change that alters a decision "
        f"bumps RULES_VERSION in rules/{game}/game.py, with a line in rules/{game}/CHANGELOG.md; then record "
        f"{_decisions(game)!r} under the new version in tests/golden/decisions.json")


def test_a_game_of_rules_this_build_lacks_is_not_forked(registry: None) -> None:
    envs = play_offline("race", ["ann", "bob"], {"target": 1000}, seed=2, max_commands=4)
    newer_build_only()
    match = fold_match([e.event for e in envs[:2]], envs[0].game)
    with pytest.raises(ForkRefused) as refused:
        check_fork(match, True, envs[:3], len(envs))
    assert refused.value.code == "rules_version_unavailable" and "version 1" in refused.value.message
