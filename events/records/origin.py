"""What an imported record keeps of where it was made: pure, no key storage, no clock.

A deployment that imports a record did not see the game played, so it never signs the record's
trailer again: the trailer stays byte for byte as the deployment that made it signed it, and the
importer signs beside it a **countersignature** of what it checked (the head seq and hash, the
trailer's digest and key, the audit's verdict and what it checked) and when, with its own key.
Verifying with the origin's published key alone still works; an auditor who trusts only the
importer may trust the origin's key through a countersignature that says it verified it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from events.records.codec import canonical
from events.records.envelope import Envelope
from events.records.export import COUNTERSIGNATURE_FIELD, Record, read_record
from events.records.signing import COUNTERSIGNATURE, Signer, key_id, valid


def trailer_digest(trailer: Mapping[str, Any] | None) -> str | None:
    """The sha256 of the trailer's canonical JSON: binds a countersignature to that trailer,
    signature included (None for a record imported without one)."""
    return None if trailer is None else hashlib.sha256(canonical(dict(trailer))).hexdigest()


def countersign(signer: Signer, record: Record, verdict: str, checked: Sequence[str],
                at: str) -> dict[str, Any]:
    """This deployment's word on a record it imports: what it checked, when, with its key."""
    last = record.envelopes[-1]
    t = record.trailer
    return signer.sign(COUNTERSIGNATURE, {
        "game": last.game, "seq": len(record.envelopes), "head": last.hash, "trailer": trailer_digest(t),
        "origin_key": None if t is None else t.get("key"), "verdict": verdict, "checked": list(checked),
        "at": at, "key": signer.id, "public_key": signer.public.hex()})


def origin_lines(record: Record, countersignature: Mapping[str, Any]) -> bytes:
    """The lines an imported record ends with, kept beside its log: the trailer's line as it
    was read, the countersignatures it came with, then this deployment's."""
    lines = [] if record.trailer_line is None else [record.trailer_line]
    lines += record.countersignature_lines
    lines.append(canonical({COUNTERSIGNATURE_FIELD: dict(countersignature)}))
    return b"".join(line + b"\n" for line in lines)


def origin_record(origin: bytes) -> Record:
    """The trailer and countersignatures `origin_lines` kept (a Record without envelopes)."""
    return read_record(origin.splitlines())


def countersigner_key(c: Mapping[str, Any], trusted: Mapping[str, bytes]) -> tuple[bytes | None, bool]:
    """The public key a countersignature is checked with, and whether the caller trusts it: a
    key given, else the one it names (which proves only that it was not altered since)."""
    kid = str(c.get("key"))
    if kid in trusted:
        return trusted[kid], True
    try:
        raw = bytes.fromhex(str(c.get("public_key")))
    except ValueError:
        return None, False
    return (raw if len(raw) == 32 and key_id(raw) == kid else None), False


def countersignature_problem(c: Mapping[str, Any], trailer: Mapping[str, Any] | None,
                             envs: Sequence[Envelope], trusted: Mapping[str, bytes]) -> str | None:
    """Why a countersignature does not hold for this record, or None."""
    kid = str(c.get("key"))
    public, is_trusted = countersigner_key(c, trusted)
    if public is None or not valid(COUNTERSIGNATURE, c, public):
        whose = "that key" if is_trusted else "the key it names"
        return f"the countersignature of key {kid} is not valid for {whose}: it was altered after it was signed"
    last = envs[-1]
    if c.get("game") != last.game or c.get("seq") != len(envs) or c.get("head") != last.hash:
        return (f"the countersignature of key {kid} is of game {c.get('game')!r} at seq {c.get('seq')!r}, "
                f"the events end at seq {len(envs)} with another head: the record was altered after its import")
    if c.get("trailer") != trailer_digest(trailer):
        return (f"the countersignature of key {kid} was made over another trailer than the record's: "
                "the trailer was altered or swapped after its import")
    return None
