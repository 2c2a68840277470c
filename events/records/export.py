"""The JSON Lines record of a game: every envelope in order, then a trailer (signed, with the seed).

A record imported from another deployment ends with the lines it came with instead: its own
trailer, byte for byte, and the countersignatures of the deployments that imported it
(events/records/origin.py), one `{"countersignature": {...}}` line each."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from events.domain.match import GAME_ABORTED, SEED_REVEALED
from events.records.codec import canonical, loads
from events.records.envelope import Envelope
from events.records.signing import Signer

ENVELOPE_KEYS = frozenset({"game", "seq", "type", "data", "seat", "command", "at", "prev", "hash"})
COUNTERSIGNATURE_FIELD = "countersignature"


def export_lines(envelopes: Iterable[Envelope], signer: Signer | None = None,
                 status: str | None = None, origin: bytes | None = None) -> Iterator[bytes]:
    """The record's lines: every envelope, then the trailer (`trailer_of`), or, for an imported
    record, `origin`: the lines it ended with as imported (never signed again here)."""
    marks: list[Envelope] = []
    last: Envelope | None = None
    count = 0
    for env in envelopes:
        yield canonical(env.to_json()) + b"\n"
        if env.type in (SEED_REVEALED, GAME_ABORTED):
            marks.append(env)
        last = env
        count += 1
    if origin is not None:
        yield from origin.splitlines(keepends=True)
        return
    if last is None:
        trailer = trailer_of([], signer, status)
    else:
        trailer = _trailer(last.game, count, last.hash, marks, signer, status)
    yield canonical({"trailer": trailer}) + b"\n"


def trailer_of(envelopes: Sequence[Envelope], signer: Signer | None = None,
               status: str | None = None) -> dict[str, Any]:
    """The head seq and hash, the status, the seed if revealed, signed when a signer is given.
    `status` defaults to what the events say."""
    if not envelopes:
        return {"game": None, "seq": 0, "events": 0, "head": None, "status": status, "seed": None}
    last = envelopes[-1]
    marks = [e for e in envelopes if e.type in (SEED_REVEALED, GAME_ABORTED)]
    return _trailer(last.game, len(envelopes), last.hash, marks, signer, status)


def _trailer(game: str, seq: int, head: str, marks: Sequence[Envelope], signer: Signer | None,
             status: str | None) -> dict[str, Any]:
    seed = next((e.data["seed"] for e in marks if e.type == SEED_REVEALED), None)
    if status is None:
        aborted = any(e.type == GAME_ABORTED for e in marks)
        status = "aborted" if aborted else "over" if seed is not None else "active"
    if signer is not None:
        return signer.trailer(game, seq, head, status, seed)
    return {"game": game, "seq": seq, "events": seq, "head": head, "status": status, "seed": seed}


@dataclass
class Record:
    envelopes: list[Envelope]
    trailer: dict[str, Any] | None
    problem: str | None = None  # a line that could not be read, with its number
    redacted: bool = False  # a log as one viewer may see it (projections/sight.py), not a record
    trailer_line: bytes | None = None  # the trailer's line as read, kept byte for byte on import
    countersignatures: list[dict[str, Any]] = field(default_factory=list)  # importers', in order
    countersignature_lines: list[bytes] = field(default_factory=list)  # the same, as read


def read_record(lines: Iterable[bytes | str]) -> Record:
    envelopes: list[Envelope] = []
    trailer: dict[str, Any] | None = None
    trailer_line: bytes | None = None
    signed: list[dict[str, Any]] = []
    signed_lines: list[bytes] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        raw = (line if isinstance(line, bytes) else line.encode()).rstrip(b"\r\n")
        try:
            obj = loads(line)
            if "trailer" in obj:
                trailer, trailer_line = obj["trailer"], raw
                continue
            if COUNTERSIGNATURE_FIELD in obj:
                if not isinstance(obj[COUNTERSIGNATURE_FIELD], dict):
                    raise ValueError("a countersignature is an object")
                signed.append(obj[COUNTERSIGNATURE_FIELD])
                signed_lines.append(raw)
                continue
            if "redacted" in obj:  # a redacted row, or the line that says the file is one
                return Record(envelopes, trailer, f"line {n} is redacted: the file is a log as one viewer "
                              "may see it, not the record", redacted=True)
            if set(obj) != ENVELOPE_KEYS:
                raise ValueError(f"fields {sorted(set(obj) ^ ENVELOPE_KEYS)} do not belong to an envelope")
            envelopes.append(Envelope.from_json(obj))
        except (ValueError, KeyError, TypeError) as e:
            return Record(envelopes, trailer, f"line {n} is not a valid envelope: {e}")
    return Record(envelopes, trailer, trailer_line=trailer_line, countersignatures=signed,
                  countersignature_lines=signed_lines)
