"""Stream entries and the envelopes they hold, in both stored forms.

Every entry has one field, `e`. Its value's first byte says which form it is: `{` a whole
envelope as canonical JSON (every entry written before the compact form, and any envelope whose
data MessagePack cannot hold), anything else a compact row (events.records.compact), which
leaves the game id, seq and prev hash out: they come from the stream's key, the entry id and
the entry before. So a read from seq `start` > 1 asks for the entry before it too (its hash is
the first envelope's `prev`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from events.records import compact
from events.records.chain import genesis
from events.records.codec import canonical, loads
from events.records.envelope import Envelope

FIELD = b"e"
_JSON = b"{"[0]


Stamp = tuple[str | None, str]  # a command id and a time


class StampMissing(Exception):
    """The first row read is short (it shares the command of the row before) and the row
    before is short too: the caller finds the stamp further back (`stamp_before`)."""


def stored(env: Envelope, before: Envelope | None = None) -> bytes:
    """The value an entry holds for `env` (`before`: the envelope of the entry just before, when
    it is written with it): its compact row, or its JSON where MessagePack cannot hold its data."""
    try:
        return compact.encode(env, before)
    except (OverflowError, TypeError):
        return canonical(env.to_json())


def stored_all(envelopes: Sequence[Envelope]) -> list[bytes]:
    """The values of one append's entries, in order."""
    return [stored(e, envelopes[i - 1] if i else None) for i, e in enumerate(envelopes)]


def seq_of(entry_id: Any) -> int:
    raw = entry_id if isinstance(entry_id, bytes) else str(entry_id).encode()
    return int(raw.partition(b"-")[0])


def first_id(start: int) -> str:
    """The XRANGE start that reads seq `start` and the entry before it."""
    return f"{max(start - 1, 1)}-0"


def hash_of(raw: bytes) -> str:
    """The hash an entry's value carries."""
    if raw[0] == _JSON:
        digest: str = loads(raw)["hash"]
        return digest
    return compact.row_hash(raw)


def _stamp_of(raw: bytes) -> Stamp | None:
    if raw[0] == _JSON:
        d = loads(raw)
        return d["command"], d["at"]
    return compact.stamp(compact.decode_row(raw))


def stamp_before(rows: Iterable[tuple[Any, Any]]) -> Stamp | None:
    """The stamp of the first row, newest first (XREVRANGE), that names one in full."""
    for _, fields in rows:
        got = _stamp_of(_value(fields))
        if got is not None:
            return got
    return None


def envelopes(gid: str, rows: Iterable[tuple[Any, Any]], start: int, stamp: Stamp | None = None) -> list[Envelope]:
    """The envelopes from seq `start` on in XRANGE `rows` read from `first_id(start)` (fields
    as a dict, or the flat list a raw reply gives); `stamp`: the command id and time of the
    entry before `start` when the caller found it further back. StampMissing when it is needed
    and not known."""
    out: list[Envelope] = []
    prev: str | None = genesis(gid) if start <= 1 else None
    for entry_id, fields in rows:
        raw = _value(fields)
        seq = seq_of(entry_id)
        if seq < start:
            prev = hash_of(raw)
            stamp = _stamp_of(raw) or stamp
            continue
        if raw[0] == _JSON:
            env = Envelope.from_json(loads(raw))
        else:
            if prev is None:
                raise ValueError(f"{gid}: entry {seq} read without the entry before it")
            row = compact.decode_row(raw)
            if stamp is None and len(row) == 4:
                raise StampMissing(seq)
            env = compact.envelope(gid, seq, prev, row, stamp)
        out.append(env)
        prev = env.hash
        stamp = (env.command, env.at)
    return out


def _value(fields: Any) -> bytes:
    if isinstance(fields, dict):
        return bytes(fields[FIELD])
    for name, value in zip(fields[::2], fields[1::2], strict=True):
        if name == FIELD:
            return bytes(value)
    raise KeyError(FIELD)
