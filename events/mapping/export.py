"""The JSON Lines record of a game: every envelope in order, then a trailer with the seed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from events.domain.match import SEED_REVEALED
from events.mapping.codec import canonical, loads
from events.mapping.envelope import Envelope

ENVELOPE_KEYS = frozenset({"game", "seq", "type", "data", "seat", "command", "at", "prev", "hash"})


def export_lines(envelopes: Iterable[Envelope]) -> Iterator[bytes]:
    last: Envelope | None = None
    seed: str | None = None
    count = 0
    for env in envelopes:
        yield canonical(env.to_json()) + b"\n"
        if env.type == SEED_REVEALED:
            seed = env.data["seed"]
        last = env
        count += 1
    trailer = {"trailer": {"events": count, "head": None if last is None else last.hash, "seed": seed}}
    yield canonical(trailer) + b"\n"


@dataclass
class Record:
    envelopes: list[Envelope]
    trailer: dict[str, Any] | None
    problem: str | None = None  # a line that could not be read, with its number


def read_record(lines: Iterable[bytes | str]) -> Record:
    envelopes: list[Envelope] = []
    trailer: dict[str, Any] | None = None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = loads(line)
            if "trailer" in obj:
                trailer = obj["trailer"]
                continue
            if set(obj) != ENVELOPE_KEYS:
                raise ValueError(f"fields {sorted(set(obj) ^ ENVELOPE_KEYS)} do not belong to an envelope")
            envelopes.append(Envelope.from_json(obj))
        except (ValueError, KeyError, TypeError) as e:
            return Record(envelopes, trailer, f"line {n} is not a valid envelope: {e}")
    return Record(envelopes, trailer)
