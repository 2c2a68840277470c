"""Issue #21 item 2: the audit's three verdicts on a signed record, and every tampering of a
finished record fails with the right one (offline, as `boardlog audit` runs)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.domain.verdict import Judgement, judge
from events.records.chain import link
from events.records.codec import canonical, loads
from events.records.envelope import Envelope
from events.records.export import export_lines, read_record
from events.records.origin import countersign, origin_lines
from events.records.signing import COUNTERSIGNATURE, RECEIPT, TRAILER, Signer, valid
from tests.support.records import play_offline

SERVICE = Signer.of(Ed25519PrivateKey.generate())
FORGER = Signer.of(Ed25519PrivateKey.generate())
TRUSTED = {SERVICE.id: SERVICE.public}


@pytest.fixture(scope="module")
def envs() -> list[Envelope]:
    e = play_offline("race", ["ann", "bob"], {"target": 25}, seed=7)
    assert e[-1].type == "boardlog.SeedRevealed"
    return e


def rechain(envs: list[Envelope]) -> list[Envelope]:
    """Renumber and recompute every hash, as a forger who knows the scheme would."""
    out: list[Envelope] = []
    prev = envs[0].prev
    for i, e in enumerate(envs):
        e = replace(e, seq=i + 1, prev=prev)
        e = replace(e, hash=link(prev, e.body()))
        out.append(e)
        prev = e.hash
    return out


def signed(envs: list[Envelope], signer: Signer | None = SERVICE) -> list[bytes]:
    return list(export_lines(envs, signer))


def verdict(lines: list[bytes], keys: dict[str, bytes] | None = TRUSTED,
            receipts: tuple[dict[str, Any], ...] = ()) -> Judgement:
    return judge(read_record(lines), keys, receipts)


def receipt(envs: list[Envelope], seq: int) -> dict[str, Any]:
    e = envs[seq - 1]
    return SERVICE.receipt(e.game, e.seq, e.hash, e.at)


# --- the three verdicts on honest records ------------------------------------------------------

def test_a_finished_record_with_the_service_key_is_verified(envs: list[Envelope]) -> None:
    j = verdict(signed(envs))
    assert j.verdict == "verified" and j.complete, j.line()
    assert j.summary().startswith("verified: hash chain, seed commitment")
    assert "random draws re-derived" in j.summary() and SERVICE.id in j.summary()


def test_the_files_own_key_makes_it_unverifiable_and_says_why(envs: list[Envelope]) -> None:
    j = verdict(signed(envs), keys=None)
    assert j.verdict == "unverifiable" and not j.verified
    assert "no key was given" in j.reason and "anyone can make a key" in j.reason


def test_a_record_signed_by_another_key_fails_against_the_service_key(envs: list[Envelope]) -> None:
    j = verdict(signed(envs, FORGER))
    assert j.verdict == "failed" and FORGER.id in j.reason and SERVICE.id in j.reason
    # and without a key it is only unverifiable: a self-signed record proves nothing
    assert verdict(signed(envs, FORGER), keys=None).verdict == "unverifiable"


def test_a_game_in_progress_is_verified_up_to_its_seq(envs: list[Envelope]) -> None:
    j = verdict(signed(envs[:12]))
    assert j.verdict == "verified" and not j.complete and j.status == "active"
    assert j.summary().startswith("verified up to seq 12, draws not yet checkable")
    assert j.draws and j.summary().endswith(f"intact; {j.draws} draws checkable when the game ends")


def test_a_record_exported_before_signing_is_unverifiable_not_failed(envs: list[Envelope]) -> None:
    old = [canonical(e.to_json()) + b"\n" for e in envs]
    seed = envs[-1].data["seed"]
    old.append(canonical({"trailer": {"events": len(envs), "head": envs[-1].hash, "seed": seed}}) + b"\n")
    j = verdict(old)
    assert j.verdict == "unverifiable" and "not signed" in j.reason
    assert "commands re-run" in ", ".join(j.checked)


# --- every tampering of a finished record ------------------------------------------------------

def test_a_changed_byte_fails_at_its_seq(envs: list[Envelope]) -> None:
    lines = signed(envs)
    pos = lines[6].index(b'"at":"') + 6
    lines[6] = lines[6][:pos] + (b"3" if lines[6][pos:pos + 1] != b"3" else b"4") + lines[6][pos + 1:]
    j = verdict(lines)
    assert j.verdict == "failed" and j.seq == 7 and "hash" in j.reason


def test_a_deleted_event_fails(envs: list[Envelope]) -> None:
    lines = signed(envs)
    j = verdict(lines[:5] + lines[6:])
    assert j.verdict == "failed" and j.seq == 6


def test_a_deleted_event_with_a_rebuilt_chain_fails(envs: list[Envelope]) -> None:
    i = next(i for i, e in enumerate(envs) if e.type == "race.DieRolled" and i > 8)
    j = verdict(signed(rechain(envs[:i] + envs[i + 1:]), FORGER))
    assert j.verdict == "failed" and j.seq == i + 1


def test_two_swapped_events_fail(envs: list[Envelope]) -> None:
    lines = signed(envs)
    j = verdict([*lines[:4], lines[5], lines[4], *lines[6:]])
    assert j.verdict == "failed" and j.seq == 5


def test_an_added_event_fails_even_with_a_rebuilt_chain(envs: list[Envelope]) -> None:
    i = next(i for i, e in enumerate(envs) if e.type == "race.DieRolled")
    extra = replace(envs[i], data={**envs[i].data, "die": 6})
    forged = rechain([*envs[:i + 1], extra, *envs[i + 1:]])
    j = verdict(signed(forged, FORGER))
    assert j.verdict == "failed" and j.seq == i + 2
    # appended after the end, with the service's trailer kept: the trailer no longer matches
    lines = signed(envs)
    more = rechain([*envs, replace(envs[-2], data=envs[-2].data)])
    j = verdict([*(canonical(e.to_json()) + b"\n" for e in more), lines[-1]])
    assert j.verdict == "failed"


def test_a_forged_die_with_a_rebuilt_chain_fails_at_the_die(envs: list[Envelope]) -> None:
    i = next(i for i, e in enumerate(envs) if e.type == "race.DieRolled")
    die = envs[i].data["die"]
    forged = list(envs)
    forged[i] = replace(envs[i], data={**envs[i].data, "die": 1 if die != 1 else 2})
    for lines in (signed(rechain(forged), FORGER), signed(rechain(forged), None)):
        j = verdict(lines)
        assert j.verdict == "failed" and j.seq == i + 1 and "race.DieRolled" in j.reason


def test_a_forged_command_with_a_rebuilt_chain_fails_at_the_command(envs: list[Envelope]) -> None:
    i = next(i for i, e in enumerate(envs) if e.type == "boardlog.CommandAccepted" and i > 5)
    forged = list(envs)
    forged[i] = replace(envs[i], data={**envs[i].data, "type": "race.note", "args": {"text": "I won"}})
    j = verdict(signed(rechain(forged), FORGER))
    assert j.verdict == "failed" and j.seq == i + 1
    # the command given to the other seat
    forged[i] = replace(envs[i], seat=1 - (envs[i].seat or 0))
    j = verdict(signed(rechain(forged), FORGER))
    assert j.verdict == "failed" and j.seq == i + 1


def test_a_removed_seed_reveal_fails(envs: list[Envelope]) -> None:
    lines = signed(envs)
    # the line cut out, the service's trailer kept
    j = verdict(lines[:-2] + lines[-1:])
    assert j.verdict == "failed" and "SeedRevealed event is missing" in j.reason and j.seq == len(envs) - 1
    # the trailer removed too: the events themselves say the game is over
    j = verdict(lines[:-2])
    assert j.verdict == "failed" and "SeedRevealed" in j.reason and j.seq == len(envs) - 1
    # re-signed by a forger without the seed
    j = verdict(signed(envs[:-1], FORGER), keys=None)
    assert j.verdict == "failed" and "seed is not revealed" in j.reason


def test_a_removed_trailer_is_unverifiable(envs: list[Envelope]) -> None:
    j = verdict(signed(envs)[:-1])
    assert j.verdict == "unverifiable" and "no trailer" in j.reason


def test_a_truncated_end_fails_or_is_unverifiable(envs: list[Envelope]) -> None:
    lines = signed(envs)
    # cut with the trailer kept: the signed head says where it ended
    j = verdict(lines[:20] + lines[-1:])
    assert j.verdict == "failed" and "cut short" in j.reason and j.seq == 21
    # cut and re-signed by a forger: not the service's key
    j = verdict(signed(envs[:20], FORGER))
    assert j.verdict == "failed" and "not by a key given" in j.reason
    # cut with no trailer: nothing says where it ended
    assert verdict(lines[:20]).verdict == "unverifiable"


def test_an_edited_trailer_fails(envs: list[Envelope]) -> None:
    lines = signed(envs)
    t = loads(lines[-1])["trailer"]
    for change in ({"status": "aborted"}, {"seq": len(envs) + 3, "events": len(envs) + 3}):
        edited = [*lines[:-1], canonical({"trailer": {**t, **change}}) + b"\n"]
        assert verdict(edited).verdict == "failed"
    # a changed signature
    sig = t["sig"]
    edited = [*lines[:-1], canonical({"trailer": {**t, "sig": ("0" if sig[0] != "0" else "1") + sig[1:]}}) + b"\n"]
    j = verdict(edited)
    assert j.verdict == "failed" and "signature" in j.reason


# --- receipts ----------------------------------------------------------------------------------

def test_a_receipt_proves_a_record_cut_before_its_seq(envs: list[Envelope]) -> None:
    r = receipt(envs, 20)
    # honest: the receipt matches
    j = verdict(signed(envs), receipts=(r,))
    assert j.verdict == "verified" and j.receipts == 1
    # cut before seq 20 with no trailer: unverifiable alone, failed with the receipt
    cut = signed(envs[:15])[:-1]
    assert verdict(cut).verdict == "unverifiable"
    j = verdict(cut, receipts=(r,))
    assert j.verdict == "failed" and j.seq == 20 and "cut short" in j.reason
    # cut and signed as a game in progress by a forger who kept the rest of the scheme
    j = verdict(signed(envs[:15], FORGER), receipts=(r,))
    assert j.verdict == "failed" and j.seq == 20


def test_a_receipt_that_does_not_match_the_record_fails(envs: list[Envelope]) -> None:
    i = next(i for i, e in enumerate(envs) if e.type == "race.DieRolled" and i > 3)
    forged = list(envs)
    forged[i] = replace(envs[i], data={**envs[i].data, "note": "x"})
    r = receipt(envs, 20)
    rebuilt = signed(rechain(forged), None)[:-1]  # no trailer, no seed check reached by the forger
    j = verdict(rebuilt, receipts=(r,))
    assert j.verdict == "failed"


def test_a_forged_receipt_is_refused(envs: list[Envelope]) -> None:
    r = {**receipt(envs, 20), "seq": 21}
    j = verdict(signed(envs), receipts=(r,))
    assert j.verdict == "failed" and "signature" in j.reason
    j = verdict(signed(envs), receipts=(FORGER.receipt(envs[0].game, 5, envs[4].hash, envs[4].at),))
    assert j.verdict == "failed" and FORGER.id in j.reason


def test_signatures_are_bound_to_what_they_sign(envs: list[Envelope]) -> None:
    r = receipt(envs, 3)
    assert valid(RECEIPT, r, SERVICE.public)
    assert not valid(TRAILER, r, SERVICE.public)  # a receipt never passes for a trailer
    assert not valid(RECEIPT, {**r, "head": envs[3].hash}, SERVICE.public)
    assert repr(SERVICE) == f"Signer(id={SERVICE.id!r})"  # no private key in a log line or traceback


def test_libsodium_signs_what_openssl_would() -> None:
    """Signer signs with libsodium; Ed25519 is deterministic, so each signature is the one the
    cryptography key gives, and one made without the libsodium form (a Signer built by hand)."""
    for i in range(20):
        key = Ed25519PrivateKey.generate()
        fast, plain = Signer.of(key), Signer(key, Signer.of(key).public, Signer.of(key).id)
        r = fast.receipt(f"p01-abcdef01234{i % 10}", i, f"{i:02x}" * 32, "2026-12-01T12:00:00.000Z")
        assert r == plain.receipt(r["game"], r["seq"], r["head"], r["at"])
        assert bytes.fromhex(r["sig"]) == key.sign(RECEIPT + canonical({k: v for k, v in r.items() if k != "sig"}))
        assert valid(RECEIPT, r, fast.public)


def test_a_redacted_log_is_unverifiable_and_says_it_is_not_the_record(envs: list[Envelope]) -> None:
    rows = [canonical({**e.to_json(), "redacted": True} if i == 3 else e.to_json()) + b"\n"
            for i, e in enumerate(envs[:8])]
    rows.append(canonical({"redacted": {"viewer": "seat 0", "why": "the game is not over"}}) + b"\n")
    j = verdict(rows)
    assert j.verdict == "unverifiable" and "redacted log" in j.reason and "not the record" in j.reason


# --- imported records keep their origin (issue #37 item 6) -------------------------------------

IMPORTER = Signer.of(Ed25519PrivateKey.generate())
AT = "2026-12-06T10:00:00.000Z"


def imported(envs: list[Envelope], origin: Signer | None = SERVICE, trusted: dict[str, bytes] | None = TRUSTED,
             importer: Signer = IMPORTER) -> list[bytes]:
    """The record as the importing deployment exports it: the events, then the lines
    `boardlog import` kept (the origin's trailer as it came, its own countersignature)."""
    came = read_record(signed(envs, origin))
    j = judge(came, trusted)
    assert j.verdict != "failed", j.line()
    kept = origin_lines(came, countersign(importer, came, j.verdict, j.checked, AT))
    return list(export_lines(envs, IMPORTER, origin=kept))


def test_an_imported_record_keeps_its_trailer_byte_for_byte(envs: list[Envelope]) -> None:
    original = signed(envs)
    lines = imported(envs)
    assert lines[:-1] == original  # every envelope and the origin's trailer, unchanged
    c = loads(lines[-1])["countersignature"]
    assert c["key"] == IMPORTER.id and c["origin_key"] == SERVICE.id and c["verdict"] == "verified"
    assert c["at"] == AT and c["seq"] == len(envs) and c["head"] == envs[-1].hash
    assert valid(COUNTERSIGNATURE, c, IMPORTER.public) and not valid(TRAILER, c, IMPORTER.public)


def test_an_imported_record_is_verified_with_the_origin_key_alone_and_names_both(envs: list[Envelope]) -> None:
    j = verdict(imported(envs))
    assert j.verdict == "verified" and j.complete and j.key == SERVICE.id, j.line()
    assert f"signed by key {SERVICE.id}, imported and countersigned by key {IMPORTER.id}" in j.summary()
    assert j.to_json()["countersigned_by"] == [IMPORTER.id]


def test_an_imported_record_is_verified_through_the_importers_countersignature(envs: list[Envelope]) -> None:
    j = verdict(imported(envs), keys={IMPORTER.id: IMPORTER.public})
    assert j.verdict == "verified", j.line()
    assert f"signed by key {SERVICE.id}, imported and countersigned by key {IMPORTER.id}" in j.summary()
    assert f"trusted through the countersignature of key {IMPORTER.id}" in j.summary()
    # a key given that is neither: refused, naming both
    other = Signer.of(Ed25519PrivateKey.generate())
    no = verdict(imported(envs), keys={other.id: other.public})
    assert no.verdict == "failed" and SERVICE.id in no.reason and IMPORTER.id in no.reason


def test_an_unverified_import_does_not_vouch_for_its_origin(envs: list[Envelope]) -> None:
    lines = imported(envs, trusted=None)  # `boardlog import --unverified` with no key
    assert loads(lines[-1])["countersignature"]["verdict"] == "unverifiable"
    j = verdict(lines, keys={IMPORTER.id: IMPORTER.public})
    assert j.verdict == "unverifiable" and "without verifying it" in j.reason, j.line()
    assert verdict(lines).verdict == "verified"  # the origin's key still verifies it


def test_a_tampered_countersignature_fails_and_is_named(envs: list[Envelope]) -> None:
    lines = imported(envs)
    c = loads(lines[-1])["countersignature"]
    for edit in ({"verdict": "verified", "at": "2020-01-01T00:00:00.000Z"}, {"origin_key": FORGER.id}):
        bad = [*lines[:-1], canonical({"countersignature": {**c, **edit}}) + b"\n"]
        for keys in (TRUSTED, {IMPORTER.id: IMPORTER.public}):
            j = verdict(bad, keys=keys)
            assert j.verdict == "failed" and f"the countersignature of key {IMPORTER.id} is not valid" in j.reason


def test_a_countersignature_over_another_trailer_fails(envs: list[Envelope]) -> None:
    # A forger keeps a valid countersignature and swaps the trailer for one of their own key.
    lines = imported(envs)
    bad = [*signed(envs, FORGER), lines[-1]]
    j = verdict(bad, keys={IMPORTER.id: IMPORTER.public})
    assert j.verdict == "failed" and "another trailer" in j.reason, j.line()


def test_a_tampered_origin_trailer_is_named(envs: list[Envelope]) -> None:
    lines = imported(envs)
    t = loads(lines[-2])["trailer"]
    forged = FORGER.trailer(t["game"], t["seq"], t["head"], t["status"], t["seed"])["sig"]
    bad = [*lines[:-2], canonical({"trailer": {**t, "sig": forged}}) + b"\n", lines[-1]]
    for keys in (TRUSTED, {IMPORTER.id: IMPORTER.public}, None):
        j = verdict(bad, keys=keys)
        assert j.verdict == "failed" and "the trailer was altered" in j.reason, j.line()
    # without the countersignature the origin's own check names it
    alone = verdict(bad[:-1])
    assert alone.verdict == "failed" and "the trailer's signature is not valid" in alone.reason


def test_a_record_imported_again_keeps_every_countersignature(envs: list[Envelope]) -> None:
    third = Signer.of(Ed25519PrivateKey.generate())
    came = read_record(imported(envs))
    j = judge(came, {IMPORTER.id: IMPORTER.public})
    assert j.verified, j.line()
    kept = origin_lines(came, countersign(third, came, j.verdict, j.checked, AT))
    lines = list(export_lines(envs, third, origin=kept))
    assert lines[:-1] == imported(envs)  # the first import's lines, byte for byte (signatures are deterministic)
    assert [loads(x)["countersignature"]["key"] for x in lines[-2:]] == [IMPORTER.id, third.id]
    again = verdict(lines, keys={third.id: third.public})
    assert again.verified and again.countersigned == [IMPORTER.id, third.id], again.line()
    assert f"imported and countersigned by key {IMPORTER.id}, then by key {third.id}" in again.summary()
