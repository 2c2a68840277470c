"""Stream entries and the envelopes they hold, in both stored forms.

Every entry has one field, `e`. Its value's first byte says which form it is: `{` a whole
envelope as canonical JSON (every entry written before the compact form, and any envelope whose
data MessagePack cannot hold), anything else a compact row (events.mapping.compact), which
leaves the game id, seq and prev hash out: they come from the stream's key, the entry id and
the entry before. So a read from seq `start` > 1 asks for the entry before it too (its hash is
the first envelope's `prev`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from events.mapping import compact
from events.mapping.chain import genesis
from events.mapping.codec import canonical, loads
from events.mapping.envelope import Envelope

FIELD = b"e"
_JSON = b"{"[0]


def stored(env: Envelope) -> bytes:
    """The value an entry holds for `env`: its compact row, or its JSON where MessagePack
    cannot hold its data."""
    try:
        return compact.encode(env)
    except (OverflowError, TypeError):
        return canonical(env.to_json())


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


def envelopes(gid: str, rows: Iterable[tuple[Any, Any]], start: int) -> list[Envelope]:
    """The envelopes from seq `start` on in XRANGE `rows` read from `first_id(start)` (fields
    as a dict, or the flat list a raw reply gives)."""
    out: list[Envelope] = []
    prev: str | None = genesis(gid) if start <= 1 else None
    for entry_id, fields in rows:
        raw = fields[FIELD] if isinstance(fields, dict) else _flat_value(fields)
        seq = seq_of(entry_id)
        if seq < start:
            prev = hash_of(raw)
            continue
        if raw[0] == _JSON:
            env = Envelope.from_json(loads(raw))
        else:
            if prev is None:
                raise ValueError(f"{gid}: entry {seq} read without the entry before it")
            env = compact.decode(gid, seq, prev, raw)
        out.append(env)
        prev = env.hash
    return out


def _flat_value(fields: list[Any]) -> bytes:
    for name, value in zip(fields[::2], fields[1::2], strict=True):
        if name == FIELD:
            return bytes(value)
    raise KeyError(FIELD)
