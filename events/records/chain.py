"""The blake2b hash chain over envelopes: any edit, deletion or reordering shows offline."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from events.records.codec import canonical
from events.records.envelope import Envelope
from rules.core import Event


def genesis(game_id: str) -> str:
    """The `prev` of seq 1: a digest of the game id, so chains of two games never splice."""
    return hashlib.blake2b(b"boardlog/genesis/" + game_id.encode(), digest_size=32).hexdigest()


def link(prev: str, body: dict[str, object]) -> str:
    return hashlib.blake2b(bytes.fromhex(prev) + canonical(body), digest_size=32).hexdigest()


def seal(
    game_id: str,
    first_seq: int,
    prev: str,
    events: Sequence[Event],
    command: str | None,
    at: str,
) -> list[Envelope]:
    """Wrap events into envelopes numbered from `first_seq`, each linked to the one before."""
    out: list[Envelope] = []
    for i, e in enumerate(events):
        body: dict[str, object] = {
            "game": game_id,
            "seq": first_seq + i,
            "type": e.type,
            "data": dict(e.data),
            "seat": e.seat,
            "command": command,
            "at": at,
            "prev": prev,
        }
        h = link(prev, body)
        out.append(Envelope(game_id, first_seq + i, e.type, dict(e.data), e.seat, command, at, prev, h))
        prev = h
    return out


@dataclass(frozen=True, slots=True)
class ChainBreak:
    seq: int
    reason: str


def verify(envelopes: Iterable[Envelope], game_id: str | None = None) -> ChainBreak | None:
    """The first place the chain does not hold, or None when every link checks."""
    expected_seq = 1
    prev: str | None = None
    for env in envelopes:
        gid = game_id or env.game
        if env.game != gid:
            return ChainBreak(env.seq, f"event belongs to game {env.game!r}, not {gid!r}")
        if env.seq != expected_seq:
            return ChainBreak(expected_seq, f"expected seq {expected_seq}, found {env.seq}")
        want_prev = genesis(gid) if prev is None else prev
        if env.prev != want_prev:
            return ChainBreak(env.seq, "prev does not match the hash of the event before")
        if link(env.prev, env.body()) != env.hash:
            return ChainBreak(env.seq, "hash does not match the event's content")
        prev = env.hash
        expected_seq += 1
    return None
