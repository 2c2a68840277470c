"""The compact stored form of an envelope: only what cannot be rebuilt, as one MessagePack array.

An envelope's `game` is its stream's key, its `seq` its entry id, and its `prev` the hash of the
entry before (the genesis hash for seq 1); none of them is stored. What is stored is
`[type, data, seat, command, at, hash]`, with the command id as its 16 bytes when it is 32
lowercase hex digits, `at` as milliseconds since the epoch when it is the clock's own
`YYYY-MM-DDTHH:MM:SS.mmmZ`, and the hash as its 32 bytes: anything else (a client's own command
id, another time format) is kept as the string it was, so the envelope rebuilt from a row is
the one sealed, byte for byte in its canonical form, and its hash covers the same bytes.

msgspec's MessagePack was chosen by measurement over msgpack and orjson with short keys
(bench/bench_codec.py; figures in bench/RESULTS.md): the smallest rows with msgpack and the
fastest to write and read.
"""

from __future__ import annotations

import calendar
import re
import time
from typing import Any

import msgspec

from events.mapping.envelope import Envelope

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder()
_HEX32 = re.compile(r"[0-9a-f]{32}")
_AT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")


class RowError(ValueError):
    """A stored row that is not a compact envelope."""


def at_ms(at: str) -> int | str:
    """`at` as epoch milliseconds when formatting them again gives `at` back, else `at`."""
    m = _AT.fullmatch(at)
    if m is None:
        return at
    y, mo, d, h, mi, s, ms = (int(g) for g in m.groups())
    try:
        sec = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    except (ValueError, OverflowError):
        return at
    out = sec * 1000 + ms
    return out if sec >= 0 and format_at(out) == at else at


def format_at(ms: int) -> str:
    sec, milli = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)) + f".{milli:03d}Z"


def _command(command: str | None) -> bytes | str | None:
    if command is not None and _HEX32.fullmatch(command):
        return bytes.fromhex(command)
    return command


def row(env: Envelope) -> list[Any]:
    """The stored fields of `env`, in order."""
    return [env.type, env.data, env.seat, _command(env.command), at_ms(env.at), bytes.fromhex(env.hash)]


def encode(env: Envelope) -> bytes:
    """`env` as one compact row; OverflowError or TypeError for data MessagePack cannot hold
    (an integer beyond 64 bits): the caller stores that envelope in its JSON form instead."""
    return _encoder.encode(row(env))


def decode_row(raw: bytes) -> list[Any]:
    try:
        got = _decoder.decode(raw)
    except msgspec.DecodeError as e:
        raise RowError(f"not a compact envelope: {e}") from None
    if not isinstance(got, list) or len(got) != 6:
        raise RowError("not a compact envelope: expected an array of 6")
    return got


def envelope(game: str, seq: int, prev: str, fields: list[Any]) -> Envelope:
    """The envelope a decoded row stands for, at `seq` of `game`, linked to `prev`."""
    type_, data, seat, command, at, digest = fields
    if isinstance(command, bytes):
        command = command.hex()
    if isinstance(at, int):
        at = format_at(at)
    return Envelope(game, seq, type_, data, seat, command, at, prev, digest.hex())


def decode(game: str, seq: int, prev: str, raw: bytes) -> Envelope:
    return envelope(game, seq, prev, decode_row(raw))


def row_hash(raw: bytes) -> str:
    """The hash a compact row carries, without rebuilding the rest of its envelope."""
    digest = decode_row(raw)[5]
    if not isinstance(digest, bytes):
        raise RowError("not a compact envelope: its hash is not bytes")
    return digest.hex()
