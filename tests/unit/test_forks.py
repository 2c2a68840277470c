"""What-if forks offline (issue #21 item 6): a fork's opening carries the origin's state at a seq,
the fork replays and audits from its own record alone, and a tampered starting state fails."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from events.domain.audit import audit
from events.domain.forks import ForkRefused, check_fork, fork_opening, origin_problem
from events.domain.match import decide_and_fold, fold_match
from events.domain.provenance import FORKED_FROM, fork_matches_origin, forked_state
from events.records.chain import genesis, link, seal
from events.records.envelope import Envelope
from events.records.export import export_lines, read_record
from projections.readmodels import summary_of, view_of
from tests.support.records import play_offline

FID = "p02-0123456789ab"


def decide_events(*args: Any, **kw: Any) -> list[Any]:
    """The events one command appends (without the folded match)."""
    return decide_and_fold(*args, **kw)[0]


def rechain(envs: list[Envelope]) -> list[Envelope]:
    out: list[Envelope] = []
    prev = envs[0].prev
    for e in envs:
        e = replace(e, prev=prev)
        e = replace(e, hash=link(prev, e.body()))
        out.append(e)
        prev = e.hash
    return out


def fork_and_play(origin: list[Envelope], n: int, seed: int = 5, moves: int = 10_000) -> list[Envelope]:
    """The fork of `origin` at seq `n`, played on by random legal commands (to its end)."""
    at = fold_match([e.event for e in origin[:n]], origin[0].game)
    secret = random.Random(seed).randbytes(32)
    events = fork_opening(origin[0].game, origin[n - 1].hash, at, secret, [s.name for s in at.seats])
    envs = seal(FID, 1, genesis(FID), events, None, "2026-12-01T12:00:00.000Z")
    match = fold_match(events, FID)
    bot = random.Random(seed)
    for i in range(moves):
        if match.over:
            break
        seat = bot.choice(list(match.prompt.seats))  # type: ignore[union-attr]
        cmd = bot.choice(list(match.rules.legal_commands(match.state, seat)))
        new = decide_events(match, cmd, f"f{i}", secret)
        envs += seal(FID, match.seq + 1, envs[-1].hash, new, f"f{i}", "2026-12-01T12:00:01.000Z")
        match = fold_match(new, FID, match)
    return envs


def command_ends(envs: list[Envelope]) -> list[int]:
    """The seqs where a command's events end and the game goes on."""
    return [e.seq - 1 for e in envs[1:] if e.type == "boardlog.CommandAccepted"]


@pytest.fixture(scope="module")
def origin() -> list[Envelope]:
    return play_offline("factions", ["ann", "bob"], {}, seed=3, max_commands=40)


def test_the_fork_starts_where_the_origin_was_and_says_so(origin: list[Envelope]) -> None:
    n = command_ends(origin)[15]
    fork = fork_and_play(origin, n, moves=0)
    assert [e.type for e in fork] == ["boardlog.GameCreated", FORKED_FROM]
    created = fork[0].data
    assert created["fork"] == {"game": origin[0].game, "seq": n, "head": origin[n - 1].hash}
    assert created["draws"] == 0 and created["rules_version"] == origin[0].data["rules_version"]
    at = fold_match([e.event for e in origin[:n]], origin[0].game)
    start = fold_match([e.event for e in fork], FID)
    assert fork_matches_origin(start.state, at.state)
    for seat in (None, 0, 1):
        mine, theirs = view_of(start, seat), view_of(at, seat)
        assert mine["board"] == theirs["board"] and mine["prompt"] == theirs["prompt"]
    summary = summary_of(start, "t", "t")
    assert summary["analysis"] is True and summary["fork"]["seq"] == n and summary["seq"] == 2


def test_a_fork_played_to_its_end_audits_on_its_own(origin: list[Envelope]) -> None:
    fork = fork_and_play(origin, command_ends(origin)[10])
    assert fork[-1].type == "boardlog.SeedRevealed", "the fork was played to its end"
    rep = audit(read_record(export_lines(fork)))
    assert rep.ok and any("commands re-run" in c for c in rep.checked), rep.line()


def test_a_forged_starting_state_fails_the_fork_audit_even_rechained(origin: list[Envelope]) -> None:
    fork = fork_and_play(origin, command_ends(origin)[10])
    state = dict(fork[1].data["state"])
    other = fork_and_play(origin, command_ends(origin)[12], moves=0)[1].data["state"]
    assert state != other
    forged = rechain([fork[0], replace(fork[1], data={**fork[1].data, "state": other}), *fork[2:]])
    rep = audit(read_record(export_lines(forged)))
    assert not rep.ok and rep.seq is not None and rep.seq > 2, rep.line()
    broken = rechain([fork[0], replace(fork[1], data={**fork[1].data, "state": {"v": 2, "classes": [], "root": 7}}),
                      *fork[2:]])
    rep = audit(read_record(export_lines(broken)))
    assert not rep.ok and rep.seq == 1 and "cannot" in rep.reason, rep.line()
    renamed = rechain([fork[0], replace(fork[1], data={**fork[1].data, "seq": 3}), *fork[2:]])
    rep = audit(read_record(export_lines(renamed)))
    assert not rep.ok and "another origin" in rep.reason, rep.line()


def test_forks_are_refused_inside_a_command_at_the_end_and_over_hidden_values() -> None:
    race = play_offline("race", ["ann", "bob"], {"target": 12}, seed=4)
    mid = fold_match([e.event for e in race[:2]], race[0].game)  # after the set-up
    inside = next(e.seq for e in race if e.type == "race.DieRolled")  # CommandAccepted is just before it
    with pytest.raises(ForkRefused) as e1:
        check_fork(fold_match([e.event for e in race[:inside - 1]], race[0].game), True, race[:inside], len(race))
    assert e1.value.code == "inside_a_command"
    with pytest.raises(ForkRefused) as e2:
        check_fork(fold_match([e.event for e in race], race[0].game), True, race, len(race))
    assert e2.value.code == "nothing_to_play"
    # The race's set-up hides each seat's charm: mid-game, no fork; after the end, one.
    with pytest.raises(ForkRefused) as e3:
        check_fork(mid, False, race[:3], len(race))
    assert e3.value.code == "fork_would_reveal" and "seq 2" in e3.value.message
    check_fork(mid, True, race[:3], len(race))


def test_a_state_of_another_game_is_refused() -> None:
    race = play_offline("race", ["ann", "bob"], {"target": 12}, seed=4)
    fac = play_offline("factions", ["ann", "bob"], {}, seed=3, max_commands=2)
    at = fold_match([e.event for e in fac], fac[0].game)
    forked = fork_opening(fac[0].game, fac[-1].hash, at, b"\1" * 32, ["ann", "bob"])[1]
    race_game = fold_match([e.event for e in race[:3]], race[0].game).rules
    with pytest.raises(ValueError, match="not a race state"):
        forked_state(race_game, forked)


def test_the_fork_is_checked_against_the_origins_record(origin: list[Envelope]) -> None:
    n = command_ends(origin)[10]
    fork = fork_and_play(origin, n, moves=3)
    assert origin_problem(fork, origin) is None
    # A starting state swapped for another position, rechained: the fork's own audit has nothing
    # to compare it with (no moves after it), the origin's record has.
    other = fork_and_play(origin, command_ends(origin)[12], moves=0)[1].data["state"]
    forged = rechain([fork[0], replace(fork[1], data={**fork[1].data, "state": other})])
    assert audit(read_record(export_lines(forged))).ok
    assert "starting state is not the origin's" in (origin_problem(forged, origin) or "")
    assert "ends at seq" in (origin_problem(fork, origin[: n - 1]) or "")
    tampered = [*origin[: n - 1], replace(origin[n - 1], hash="00" * 32), *origin[n:]]
    assert "not the" in (origin_problem(fork, tampered) or "")
    assert origin_problem(origin, origin) == "the first record is not a fork"
