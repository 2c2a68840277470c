"""A finished game's archive record: every envelope and command result in one zstd frame.

The record keeps what the compact rows keep (events.mapping.compact) minus the hashes, laid out
by column (the event types as indexes into the record's own table, the data, the seats, and the
command id and time as runs, since every event of one command shares them), so that zstd finds
the repeats. The hashes are rebuilt from the genesis hash on first use and the last one must be
the head hash the record names: an envelope rebuilt from a record is the one sealed, byte for
byte in canonical form, or the record is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec
import zstandard

from events.mapping import compact
from events.mapping.chain import genesis, link
from events.mapping.envelope import Envelope
from rules.core import Event

FORMAT = 1
LEVEL = 19  # written once a game, read back once a process: the smallest record is worth the CPU
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder()


class RecordError(ValueError):
    """A blob that is not an archive record, or whose chain does not end at its head hash."""


def pack(gid: str, envelopes: Sequence[Envelope], results: dict[str, bytes]) -> bytes:
    """The record of `gid`'s envelopes (seq 1 to the head, in order) and command results;
    OverflowError or TypeError for data MessagePack cannot hold."""
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
    }
    body["types"] = list(types)
    return zstandard.ZstdCompressor(level=LEVEL).compress(_encoder.encode(body))


@dataclass(slots=True)
class Record:
    """An unpacked record; its envelopes (with their hashes) are rebuilt on first use."""

    game: str
    seq: int
    head: str
    events: list[Event]
    commands: list[str | None]
    ats: list[str]
    results: dict[str, bytes]
    _envelopes: list[Envelope] | None = field(default=None)

    def envelopes(self) -> list[Envelope]:
        """Every envelope, seq 1 to the head; RecordError when the chain they make does not
        end at the record's head hash."""
        if self._envelopes is None:
            out: list[Envelope] = []
            prev = genesis(self.game)
            for i, e in enumerate(self.events):
                data = cast(dict[str, Any], e.data)  # as unpacked: a dict
                body: dict[str, Any] = {"game": self.game, "seq": i + 1, "type": e.type, "data": data,
                                        "seat": e.seat, "command": self.commands[i], "at": self.ats[i],
                                        "prev": prev}
                h = link(prev, body)
                out.append(Envelope(self.game, i + 1, e.type, data, e.seat, self.commands[i], self.ats[i], prev, h))
                prev = h
            if out and prev != self.head:
                raise RecordError(f"{self.game}: the archived events do not chain to the head hash")
            self._envelopes = out
        return self._envelopes


def unpack(blob: bytes) -> Record:
    try:
        body = _decoder.decode(zstandard.ZstdDecompressor().decompress(blob))
        if body.get("v") != FORMAT:
            raise RecordError(f"archive record format {body.get('v')!r}, not {FORMAT}")
        types: list[str] = body["types"]
        events = [Event(types[t], d, s) for t, d, s in zip(body["t"], body["d"], body["s"], strict=True)]
        commands: list[str | None] = []
        ats: list[str] = []
        ms = 0
        for cmd, at, count in body["runs"]:
            if isinstance(at, int):
                ms += at
                text = compact.format_at(ms)
            else:
                text = at
            command = cmd.hex() if isinstance(cmd, bytes) else cmd
            commands += [command] * count
            ats += [text] * count
        if len(commands) != len(events) or len(events) != body["seq"]:
            raise RecordError("archive record: its columns disagree in length")
        return Record(body["game"], body["seq"], body["head"].hex(), events, commands, ats,
                      {k: bytes(v) for k, v in body["results"]})
    except (zstandard.ZstdError, msgspec.DecodeError, KeyError, TypeError, ValueError) as e:
        if isinstance(e, RecordError):
            raise
        raise RecordError(f"not an archive record: {e}") from None
