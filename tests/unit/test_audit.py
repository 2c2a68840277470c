"""The offline audit catches every kind of tampering, and reports where."""

from __future__ import annotations

from dataclasses import replace

import pytest

from events.domain.audit import audit
from events.records.chain import link
from events.records.envelope import Envelope
from events.records.export import export_lines, read_record
from tests.support.records import play_offline


@pytest.fixture(scope="module")
def envs() -> list[Envelope]:
    return play_offline("race", ["ann", "bob"], {"target": 25}, seed=7)


def rechain(envs: list[Envelope]) -> list[Envelope]:
    """Recompute every hash, as a forger who knows the scheme would."""
    out: list[Envelope] = []
    prev = envs[0].prev
    for i, e in enumerate(envs):
        e = replace(e, seq=i + 1, prev=prev)
        e = replace(e, hash=link(prev, e.body()))
        out.append(e)
        prev = e.hash
    return out


def run(envs: list[Envelope]):  # type: ignore[no-untyped-def]
    return audit(read_record(export_lines(envs)))


def test_an_honest_record_passes(envs: list[Envelope]) -> None:
    rep = run(envs)
    assert rep.ok, rep.line()
    assert envs[-1].type == "boardlog.SeedRevealed"
    assert any("commands re-run" in c for c in rep.checked)


def test_a_changed_byte_is_caught(envs: list[Envelope]) -> None:
    lines = list(export_lines(envs))
    i = 6
    raw = lines[i]
    pos = raw.index(b'"at":"') + 6
    lines[i] = raw[:pos] + (b"3" if raw[pos:pos + 1] != b"3" else b"4") + raw[pos + 1:]
    rep = audit(read_record(lines))
    assert not rep.ok and rep.seq == 7 and "hash" in rep.reason


def test_a_deleted_event_is_caught(envs: list[Envelope]) -> None:
    rep = run(envs[:5] + envs[6:])
    assert not rep.ok and rep.seq == 6


def test_two_swapped_events_are_caught(envs: list[Envelope]) -> None:
    swapped = [*envs[:4], envs[5], envs[4], *envs[6:]]
    rep = run(swapped)
    assert not rep.ok and rep.seq == 5


def test_a_forged_die_roll_is_caught_even_with_a_rebuilt_chain(envs: list[Envelope]) -> None:
    i = next(i for i, e in enumerate(envs) if e.type == "race.DieRolled")
    die = envs[i].data["die"]
    forged = list(envs)
    forged[i] = replace(envs[i], data={**envs[i].data, "die": 1 if die != 1 else 2})
    rep = run(rechain(forged))
    assert not rep.ok and rep.seq == i + 1
    assert "race.DieRolled" in rep.reason


def test_a_wrong_revealed_seed_is_caught(envs: list[Envelope]) -> None:
    bad = list(envs)
    bad[-1] = replace(envs[-1], data={"seed": "00" * 32})
    rep = run(rechain(bad))
    assert not rep.ok and rep.seq == len(envs) and "commitment" in rep.reason


def test_a_truncated_record_is_caught_by_the_trailer(envs: list[Envelope]) -> None:
    lines = list(export_lines(envs))
    rep = audit(read_record(lines[:3] + lines[-1:]))
    assert not rep.ok and "trailer" in rep.reason


def test_an_unrevealed_game_passes_the_chain_but_says_draws_are_unchecked(envs: list[Envelope]) -> None:
    rep = run(envs[:10])
    assert rep.ok and "not revealed" in rep.reason


def test_a_line_with_a_field_added_is_refused(envs: list[Envelope]) -> None:
    lines = list(export_lines(envs))
    lines[3] = lines[3].replace(b'"prev":', b'"note":"hi","prev":', 1)
    rep = audit(read_record(lines))
    assert not rep.ok and "line 4" in rep.reason


def test_garbage_lines_are_reported() -> None:
    rep = audit(read_record([b"{not json"]))
    assert not rep.ok and "line 1" in rep.reason
