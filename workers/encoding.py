"""dramatiq's message encoder on orjson: the API encodes and a worker decodes one message per
command, and dramatiq's default (the stdlib's json) was a tenth of the API's CPU per command.

The bytes are JSON either way, so messages queued by either encoder are read by both (a
rolling restart mixes them). What orjson refuses (an integer past 64 bits, a key that is not a
string) goes through the stdlib's json as before, so no message the default took is refused.
"""

from __future__ import annotations

import json

import orjson
from dramatiq.encoder import Encoder, MessageData
from dramatiq.errors import DecodeError


class OrjsonEncoder(Encoder):
    def encode(self, data: MessageData) -> bytes:
        try:
            return orjson.dumps(data)
        except TypeError:
            return json.dumps(data, separators=(",", ":")).encode("utf-8")

    def decode(self, data: bytes) -> MessageData:
        try:
            out: MessageData = orjson.loads(data)
        except orjson.JSONDecodeError:
            # orjson refuses what the stdlib takes in a few corners (NaN, lone surrogates): ask it
            # too before calling the message undecodable.
            try:
                out = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                raise DecodeError(f"failed to decode message {data!r}", data, e) from None
        return out
