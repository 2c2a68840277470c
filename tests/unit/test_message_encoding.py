"""dramatiq's messages on orjson (workers/encoding.py): the same JSON as the stdlib's default."""

from __future__ import annotations

import json

import dramatiq
import pytest
from dramatiq.encoder import JSONEncoder
from dramatiq.errors import DecodeError

from workers.encoding import OrjsonEncoder


def _message() -> dramatiq.Message[None]:
    return dramatiq.Message(queue_name="q", actor_name="handle_command", args=("p01-abc", "c1"), kwargs={},
                            options={"redis_message_id": "m1"})


def test_a_message_reads_back_the_same_across_both_encoders() -> None:
    data = _message().asdict()
    ours, std = OrjsonEncoder(), JSONEncoder()
    assert ours.decode(ours.encode(data)) == std.decode(std.encode(data))
    assert ours.decode(std.encode(data)) == std.decode(ours.encode(data)) == json.loads(json.dumps(data))


def test_what_orjson_refuses_goes_through_the_stdlib() -> None:
    big = {"args": [2**70], "nan": float("nan")}
    raw = OrjsonEncoder().encode(big)
    back = OrjsonEncoder().decode(raw)
    assert back["args"] == [2**70]


def test_garbage_is_a_decode_error() -> None:
    with pytest.raises(DecodeError):
        OrjsonEncoder().decode(b"\xff{not json")
