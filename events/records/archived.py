"""A finished game's archive record: every envelope and command result in one zstd frame.

The record keeps what the compact rows keep (events.records.compact) minus the hashes, laid out
by column (the event types as indexes into the record's own table, the data, the seats, and the
command id and time as runs, since every event of one command shares them), so that zstd finds
the repeats. The hashes are rebuilt from the genesis hash on first use and the last one must be
the head hash the record names: an envelope rebuilt from a record is the one sealed, byte for
byte in canonical form, or the record is refused.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import zstandard

from events.records import compact
from events.records.chain import genesis, link
from events.records.envelope import Envelope
from rules.core import Event

FORMAT = 1
MARK_EVERY = 500  # the record keeps the hash at every 500th seq, so a range is rebuilt from the nearest
LEVEL = 19  # written once a game, read back once a process: the smallest record is worth the CPU
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder()


class RecordError(ValueError):
    """A blob that is not an archive record, or whose chain does not end at its head hash."""


def pack(gid: str, envelopes: Sequence[Envelope], results: dict[str, bytes],
         snapshots: tuple[bytes, Sequence[tuple[int, bytes]]] = (b"", ())) -> bytes:
    """The record of `gid`'s envelopes (seq 1 to the head, in order), command results and
    snapshots (the rules' fingerprint they were folded under, and (seq, snapshot bytes) pairs: a
    cache, as in Redis, so a first read folds only from the nearest); OverflowError or TypeError
    for data MessagePack cannot hold."""
    types: dict[str, int] = {}
    runs: list[list[Any]] = []
    last_ms = 0
    for env in envelopes:
        at = compact.at_ms(env.at)
        cmd = compact.row(env)[3]
        if runs and runs[-1][3] == env.command and runs[-1][4] == env.at:
            runs[-1][2] += 1
            continue
        delta: int | str = at - last_ms if isinstance(at, int) else at
        if isinstance(at, int):
            last_ms = at
        runs.append([cmd, delta, 1, env.command, env.at])
    body = {
        "v": FORMAT,
        "game": gid,
        "seq": len(envelopes),
        "head": bytes.fromhex(envelopes[-1].hash) if envelopes else b"",
        "types": [],
        "t": [types.setdefault(e.type, len(types)) for e in envelopes],
        "d": [e.data for e in envelopes],
        "s": [e.seat for e in envelopes],
        "runs": [r[:3] for r in runs],
        "results": sorted([k, v] for k, v in results.items()),
        "marks": [bytes.fromhex(e.hash) for e in envelopes[MARK_EVERY - 1::MARK_EVERY]],
        "fp": snapshots[0],
        "snaps": [[seq, blob] for seq, blob in snapshots[1]],
    }
    body["types"] = list(types)
    return zstandard.ZstdCompressor(level=LEVEL).compress(_encoder.encode(body))


@dataclass(slots=True)
class Record:
    """An unpacked record, still by column: events are made as a fold asks for them, and the
    envelopes (with their hashes) on first use."""

    game: str
    seq: int
    head: str
    types: list[str]
    type_of: list[int]
    data: list[dict[str, Any]]
    seats: list[int | None]
    runs: list[list[Any]]
    results: dict[str, bytes]
    marks: list[bytes] = field(default_factory=list)
    fingerprint: bytes = b""
    snapshots: dict[int, bytes] = field(default_factory=dict)
    _envelopes: list[Envelope] | None = field(default=None)
    _stamps: tuple[list[str | None], list[str]] | None = field(default=None)

    def events(self, start: int, stop: int) -> list[Event]:
        """The events from index `start` up to `stop` (seq start + 1 to stop)."""
        types = self.types
        return [Event(types[t], d, s) for t, d, s in
                zip(self.type_of[start:stop], self.data[start:stop], self.seats[start:stop], strict=True)]

    def stamps(self) -> tuple[list[str | None], list[str]]:
        """Each event's command id and time."""
        commands: list[str | None] = []
        ats: list[str] = []
        ms = 0
        seconds: dict[int, str] = {}
        for cmd, at, count in self.runs:
            if isinstance(at, int):
                ms += at
                sec, milli = divmod(ms, 1000)
                head = seconds.get(sec)
                if head is None:
                    head = seconds[sec] = compact.format_at(sec * 1000)[:-4]
                text = f"{head}{milli:03d}Z"
            else:
                text = at
            commands += [cmd.hex() if isinstance(cmd, bytes) else cmd] * count
            ats += [text] * count
        if len(commands) != self.seq:
            raise RecordError("archive record: its command runs disagree with its events")
        return commands, ats

    def envelopes(self, start: int = 1, end: int | None = None) -> list[Envelope]:
        """The envelopes from seq `start` to `end` (None: the head). All of them are rebuilt once
        and kept; a range before that, from the nearest hash the record marks. RecordError when
        the chain they make does not reach the next mark, or the head hash."""
        end = self.seq if end is None else min(end, self.seq)
        start = max(start, 1)
        if end < start:
            return []
        if self._envelopes is None and (start > 1 or end < self.seq) and end - start < self.seq // 2:
            mark = min((start - 1) // MARK_EVERY, len(self.marks))
            stop = min(self.seq, ((end - 1) // MARK_EVERY + 1) * MARK_EVERY)  # up to the next mark: checked
            return self._chain(mark * MARK_EVERY, stop)[start - 1 - mark * MARK_EVERY: end - mark * MARK_EVERY]
        if self._envelopes is None:
            self._envelopes = self._chain(0, self.seq)
        return self._envelopes[start - 1:end]

    def _chain(self, after: int, stop: int) -> list[Envelope]:
        """The envelopes after seq `after` up to `stop`, linked from the mark at `after`."""
        if self._stamps is None:
            self._stamps = self.stamps()
        commands, ats = self._stamps
        types, game = self.types, self.game
        out: list[Envelope] = []
        prev = genesis(game) if after == 0 else self.marks[after // MARK_EVERY - 1].hex()
        for i in range(after, stop):
            t, data, seat = types[self.type_of[i]], self.data[i], self.seats[i]
            body: dict[str, Any] = {"game": game, "seq": i + 1, "type": t, "data": data,
                                    "seat": seat, "command": commands[i], "at": ats[i], "prev": prev}
            h = link(prev, body)
            out.append(Envelope(game, i + 1, t, data, seat, commands[i], ats[i], prev, h))
            prev = h
            if (i + 1) % MARK_EVERY == 0 and (i + 1) // MARK_EVERY <= len(self.marks) \
                    and self.marks[(i + 1) // MARK_EVERY - 1].hex() != h:
                raise RecordError(f"{game}: the archived events do not chain to the hash marked at seq {i + 1}")
        if stop == self.seq and out and prev != self.head:
            raise RecordError(f"{game}: the archived events do not chain to the head hash")
        return out


def _decode(raw: bytes) -> Any:
    # Tens of thousands of new containers at once would run the cyclic collector many times
    # over objects that hold no cycles: it is off while they are made.
    was = gc.isenabled()
    gc.disable()
    try:
        return _decoder.decode(raw)
    finally:
        if was:
            gc.enable()


def unpack(blob: bytes) -> Record:
    try:
        body = _decode(zstandard.ZstdDecompressor().decompress(blob))
        if body.get("v") != FORMAT:
            raise RecordError(f"archive record format {body.get('v')!r}, not {FORMAT}")
        rec = Record(body["game"], body["seq"], body["head"].hex(), body["types"], body["t"], body["d"], body["s"],
                     body["runs"], {k: bytes(v) for k, v in body["results"]}, list(body.get("marks", [])),
                     bytes(body.get("fp", b"")),
                     {int(seq): bytes(blob) for seq, blob in body.get("snaps", [])})
        if not len(rec.type_of) == len(rec.data) == len(rec.seats) == rec.seq \
                or sum(r[2] for r in rec.runs) != rec.seq:
            raise RecordError("archive record: its columns disagree in length")
        return rec
    except (zstandard.ZstdError, msgspec.DecodeError, KeyError, TypeError, ValueError, IndexError) as e:
        if isinstance(e, RecordError):
            raise
        raise RecordError(f"not an archive record: {e}") from None
