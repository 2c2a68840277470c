"""The compact stored form of an envelope: only what cannot be rebuilt, as one MessagePack array.

An envelope's `game` is its stream's key, its `seq` its entry id, and its `prev` the hash of the
entry before (the genesis hash for seq 1); none of them is stored. What is stored is
`[type, data, seat, command, at, hash]`, with the type as its code in `event_types.txt` when it
is listed there, the command id as its 16 bytes when it is 32 lowercase hex digits, `at` as
milliseconds since the epoch when it is the clock's own `YYYY-MM-DDTHH:MM:SS.mmmZ`, and the hash
as its 32 bytes: anything else (a client's own command id, another time format) is kept as the
string it was, so the envelope rebuilt from a row is the one sealed, byte for byte in its
canonical form, and its hash covers the same bytes. The events of one command share their
command id and time: every one after the first is the short row `[type, data, seat, hash]`,
whose command and time are those of the row before it.

msgspec's MessagePack was chosen by measurement over msgpack and orjson with short keys
(bench/bench_codec.py; figures in bench/RESULTS.md): the smallest rows with msgpack and the
fastest to write and read.
"""

from __future__ import annotations

import calendar
import re
import time
from importlib import resources
from typing import Any

import msgspec

from events.records.codec import canonical
from events.records.envelope import Envelope

_names = resources.files("events.records").joinpath("event_types.txt").read_text().splitlines()
TYPES: tuple[str, ...] = tuple(n for n in _names if n and not n.startswith("#"))
_CODES = {name: i for i, name in enumerate(TYPES)}

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder()
_HEX32 = re.compile(r"[0-9a-f]{32}")
_AT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")


class RowError(ValueError):
    """A stored row that is not a compact envelope."""


_second: tuple[str, int] = ("", 0)  # the last whole second converted, as the clock writes it


def at_ms(at: str) -> int | str:
    """`at` as epoch milliseconds when formatting them again gives `at` back, else `at`."""
    global _second
    if len(at) == 24 and at[:19] == _second[0] and at[19] == "." and at[23] == "Z" and at[20:23].isascii() and at[20:23].isdigit():
        return _second[1] * 1000 + int(at[20:23])  # the events of one command share their second
    m = _AT.fullmatch(at)
    if m is None:
        return at
    y, mo, d, h, mi, s, ms = (int(g) for g in m.groups())
    try:
        sec = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    except (ValueError, OverflowError):
        return at
    out = sec * 1000 + ms
    if sec < 0 or format_at(out) != at:
        return at
    _second = (at[:19], sec)
    return out


def format_at(ms: int) -> str:
    sec, milli = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)) + f".{milli:03d}Z"


def _command(command: str | None) -> bytes | str | None:
    if command is not None and _HEX32.fullmatch(command):
        return bytes.fromhex(command)
    return command


def row(env: Envelope, before: Envelope | None = None) -> list[Any]:
    """The stored fields of `env`; the short row when `before`, the envelope stored just before
    it, has its command id and time."""
    kind = _CODES.get(env.type, env.type)
    digest = bytes.fromhex(env.hash)
    if before is not None and before.command == env.command and before.at == env.at:
        return [kind, env.data, env.seat, digest]
    return [kind, env.data, env.seat, _command(env.command), at_ms(env.at), digest]


def encode(env: Envelope, before: Envelope | None = None) -> bytes:
    """`env` as one compact row (see `row`); OverflowError or TypeError for data MessagePack
    cannot hold (an integer beyond 64 bits): the caller stores that envelope in its JSON form."""
    return _encoder.encode(row(env, before))


def decode_row(raw: bytes) -> list[Any]:
    try:
        got = _decoder.decode(raw)
    except msgspec.DecodeError as e:
        raise RowError(f"not a compact envelope: {e}") from None
    if not isinstance(got, list) or len(got) not in (4, 6):
        raise RowError("not a compact envelope: expected an array of 4 or 6")
    return got


def stamp(fields: list[Any]) -> tuple[str | None, str] | None:
    """The command id and time a decoded row names (None: a short row, those of the row before)."""
    if len(fields) == 4:
        return None
    command, at = fields[3], fields[4]
    return (command.hex() if isinstance(command, bytes) else command), (format_at(at) if isinstance(at, int) else at)


def envelope(game: str, seq: int, prev: str, fields: list[Any], before: tuple[str | None, str] | None) -> Envelope:
    """The envelope a decoded row stands for, at `seq` of `game`, linked to `prev`; `before` is
    the command id and time of the row before (needed for a short row)."""
    kind, data, seat = fields[0], fields[1], fields[2]
    own = stamp(fields)
    if own is None:
        if before is None:
            raise RowError(f"row {seq} shares the command of the row before, which was not read")
        own = before
    return Envelope(game, seq, TYPES[kind] if isinstance(kind, int) else kind, data, seat, own[0], own[1], prev,
                    fields[-1].hex())


def row_hash(raw: bytes) -> str:
    """The hash a compact row carries, without rebuilding the rest of its envelope."""
    digest = decode_row(raw)[-1]
    if not isinstance(digest, bytes):
        raise RowError("not a compact envelope: its hash is not bytes")
    return digest.hex()


# -- command results ------------------------------------------------------------------------------

_HEX = re.compile(r"(?:[0-9a-f]{2}){16,}")


def _pack_hex(value: Any) -> Any:
    if isinstance(value, str):
        return bytes.fromhex(value) if _HEX.fullmatch(value) else value
    if isinstance(value, dict):
        return {k: _pack_hex(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_pack_hex(v) for v in value]
    return value


def _unpack_hex(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {k: _unpack_hex(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unpack_hex(v) for v in value]
    return value


def result_value(result: dict[str, Any]) -> bytes:
    """A command's answer as stored: MessagePack, every lowercase hex string of 32 digits or more
    (ids, hashes) as its bytes; JSON cannot hold bytes, so they all come back as the hex they
    were. An answer MessagePack cannot hold is stored as its canonical JSON.

    Its receipt is not stored: the game, seq, head hash and time it signs are in the record, and
    its 64-byte signature (random-looking, so it neither compresses nor archives small) was a
    third of a live game's bytes an event. Reads sign it again (service/api/receipts.py); an
    Ed25519 signature is deterministic, so the same key gives the same receipt, byte for byte."""
    result = {k: v for k, v in result.items() if k != "receipt"}
    try:
        if _is_plain_accept(result):
            # Most answers: the array [id, seat, first seq, last seq] (25 bytes, not 58).
            first, last = result["seq"]
            return _encoder.encode([_pack_hex(result["id"]), result["seat"], first, last])
        return _encoder.encode(_pack_hex(result))
    except (OverflowError, TypeError):
        return canonical(result)


def _is_plain_accept(result: dict[str, Any]) -> bool:
    seqs, seat = result.get("seq"), result.get("seat", 0)
    return (result.keys() == {"id", "seat", "status", "http", "seq"} and result["status"] == "accepted"
            and result["http"] == 200 and type(result["http"]) is int and isinstance(result["id"], str)
            and (seat is None or type(seat) is int) and isinstance(seqs, list) and len(seqs) == 2
            and all(type(x) is int for x in seqs))


def result_json(raw: bytes) -> bytes:
    """A stored answer as its canonical JSON, stored compact (`result_value`) or as JSON (before)."""
    if raw[:1] == b"{":
        return raw
    try:
        value = _decoder.decode(raw)
        if isinstance(value, list):  # a plain accepted answer (_is_plain_accept)
            cid, seat, first, last = value
            value = {"id": cid, "seat": seat, "status": "accepted", "http": 200, "seq": [first, last]}
        return canonical(_unpack_hex(value))
    except (msgspec.DecodeError, ValueError) as e:
        raise RowError(f"not a stored command answer: {e}") from None
