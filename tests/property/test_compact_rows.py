"""Compact rows and archive records give back every envelope byte for byte: any JSON data the
canonical codec takes, any command id and time, reads starting anywhere (inside a command's
events too), and the archive record's rebuilt chain."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.records import archived, compact
from events.records.chain import genesis, seal
from events.records.codec import canonical, loads
from events.records.envelope import Envelope
from events.store.entries import StampMissing, envelopes, stamp_before, stored_all
from rules.core import Event

GID = "p03-compactrows1"
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
COMMANDS = st.none() | st.uuids().map(lambda u: u.hex) | st.uuids().map(str) | st.text(max_size=12)
ATS = st.sampled_from(["2026-12-01T14:22:17.466Z", "2026-12-01T14:22:17.4\u0663\u0663Z", "1970-01-01T00:00:00.000Z", "2026-12-01T14:22:17Z",
                       "2026-02-30T00:00:00.000Z", "later"])
TYPES = st.sampled_from(["boardlog.CommandAccepted", "rite.UnitMoved", "race.Rolled", "x.NotListed"])
BATCH = st.lists(st.tuples(TYPES, st.dictionaries(st.text(max_size=8), JSON, max_size=4), st.none() | st.integers(0, 4)),
                 min_size=1, max_size=4)


def chain(batches: list[tuple[str | None, str, list[Any]]]) -> tuple[list[Envelope], list[bytes]]:
    envs: list[Envelope] = []
    values: list[bytes] = []
    for command, at, events in batches:
        prev = envs[-1].hash if envs else genesis(GID)
        new = seal(GID, len(envs) + 1, prev, [Event(t, d, s) for t, d, s in events], command, at)
        envs += new
        values += stored_all(new)
    return envs, values


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(COMMANDS, ATS, BATCH), min_size=1, max_size=5), st.data())
def test_rows_give_back_every_envelope_from_any_start(batches: list[Any], data: st.DataObject) -> None:
    envs, values = chain(batches)
    rows = [(f"{i + 1}-0".encode(), {b"e": v}) for i, v in enumerate(values)]
    start = data.draw(st.integers(1, len(envs)))
    read = rows[max(start - 2, 0):]
    try:
        got = envelopes(GID, read, start)
    except StampMissing:  # a read starting inside a command: the store looks further back
        got = envelopes(GID, read, start, stamp_before(reversed(rows[: max(start - 1, 0)])))
    assert [canonical(e.to_json()) for e in got] == [canonical(e.to_json()) for e in envs[start - 1:]]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(COMMANDS, ATS, BATCH), min_size=1, max_size=5))
def test_an_archive_record_gives_back_every_envelope_and_result(batches: list[Any]) -> None:
    envs, _ = chain(batches)
    results = {f"c{i}": canonical({"status": "accepted", "n": i}) for i in range(3)}
    try:
        blob = archived.pack(GID, envs, results)
    except OverflowError:
        return  # data MessagePack cannot hold: that game stays unarchived (the archiver logs it)
    rec = archived.unpack(blob)
    assert [canonical(e.to_json()) for e in rec.envelopes()] == [canonical(e.to_json()) for e in envs]
    assert rec.results == results


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(COMMANDS, ATS, BATCH), min_size=2, max_size=6), st.data())
def test_a_record_gives_back_any_range_from_its_marks(batches: list[Any], data: st.DataObject) -> None:
    envs, _ = chain(batches)
    mark = archived.MARK_EVERY
    archived.MARK_EVERY = 2  # marks every other seq, so these short chains have some
    try:
        rec = archived.unpack(archived.pack(GID, envs, {}))
        start = data.draw(st.integers(1, len(envs)))
        end = data.draw(st.integers(start, len(envs)))
        assert rec.envelopes(start, end) == envs[start - 1:end]
        assert rec.envelopes() == envs
    finally:
        archived.MARK_EVERY = mark


def test_a_record_whose_chain_does_not_reach_its_head_is_refused() -> None:
    envs, _ = chain([("a" * 32, "2026-12-01T14:22:17.466Z", [("race.Rolled", {"n": 1}, 0)] * 3)])
    blob = archived.pack(GID, envs, {})
    tampered = archived.pack(GID, [*envs[:2], Envelope(**{**envs[2].to_json(), "data": {"n": 2}})], {})
    assert archived.unpack(blob).envelopes()
    head_of_tampered = archived.unpack(tampered)
    head_of_tampered.head = envs[2].hash  # a record claiming the true head over edited events
    with pytest.raises(archived.RecordError):
        head_of_tampered.envelopes()
    with pytest.raises(archived.RecordError):
        archived.unpack(b"not zstd")


def test_the_type_table_has_each_name_once() -> None:
    assert len(set(compact.TYPES)) == len(compact.TYPES) and compact.TYPES[0] == "boardlog.CommandAccepted"


HEXY = st.text(alphabet="0123456789abcdefABCDEF", min_size=30, max_size=130)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON | HEXY | st.lists(HEXY, max_size=3)
                       | st.dictionaries(st.text(max_size=4), HEXY, max_size=3), max_size=6))
def test_a_stored_answer_gives_back_its_canonical_json(result: dict[str, Any]) -> None:
    stored = compact.result_value(result)
    kept = {k: v for k, v in result.items() if k != "receipt"}  # signed again when read
    assert compact.result_json(stored) == canonical(kept)
    assert compact.result_json(canonical(result)) == canonical(result)  # an answer stored before


def test_a_stored_answer_keeps_no_receipt() -> None:
    receipt = {"game": "g", "seq": 3, "head": "ab" * 32, "at": "2026-12-01T00:00:00.000Z", "key": "k1",
               "sig": "cd" * 64}
    answer = {"id": "c1", "status": "accepted", "seq": [2, 3], "receipt": receipt}
    stored = compact.result_value(answer)
    assert bytes.fromhex("cd" * 64) not in stored and bytes.fromhex("ab" * 32) not in stored
    assert loads(compact.result_json(stored)) == {"id": "c1", "status": "accepted", "seq": [2, 3]}


@given(st.one_of(st.text(max_size=64), st.binary(min_size=16, max_size=32).map(bytes.hex)),
       st.none() | st.integers(0, 4), st.integers(1, 2**40), st.integers(0, 50))
def test_a_plain_accepted_answer_is_stored_as_a_short_array_and_read_back_whole(
        cid: str, seat: int | None, first: int, more: int) -> None:
    answer = {"id": cid, "seat": seat, "status": "accepted", "http": 200, "seq": [first, first + more]}
    stored = compact.result_value(answer)
    assert compact.result_json(stored) == canonical(answer)
    assert len(stored) <= len(cid.encode()) + 22  # array, id and seat headers, two seqs of up to 9 bytes


def test_an_answer_that_is_not_a_plain_accept_keeps_every_field() -> None:
    for answer in ({"id": "c", "seat": 0, "status": "accepted", "http": 200, "seq": [1, 2], "note": "x"},
                   {"id": "c", "seat": 0, "status": "rejected", "http": 422, "seq": 3, "code": "x", "message": "m"},
                   {"id": "c", "seat": True, "status": "accepted", "http": 200, "seq": [1, 2]},
                   {"id": "c", "seat": 0, "status": "accepted", "http": 200, "seq": [1.0, 2]}):
        assert compact.result_json(compact.result_value(answer)) == canonical(answer)
