"""The stored form of one event: the game's event plus sequence, provenance and chain links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from events.records.upcast import upcast
from rules.core import Event


@dataclass(frozen=True, slots=True)
class Envelope:
    game: str
    seq: int
    type: str
    data: dict[str, Any]
    seat: int | None
    command: str | None
    at: str
    prev: str
    hash: str

    @property
    def event(self) -> Event:
        """The domain event, its data read in the current format (events/records/upcast.py)."""
        return Event(self.type, upcast(self.type, self.data), self.seat)

    def body(self) -> dict[str, Any]:
        """The envelope without its hash: what the hash covers."""
        return {
            "game": self.game,
            "seq": self.seq,
            "type": self.type,
            "data": self.data,
            "seat": self.seat,
            "command": self.command,
            "at": self.at,
            "prev": self.prev,
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.body(), "hash": self.hash}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Envelope:
        return cls(
            game=d["game"],
            seq=d["seq"],
            type=d["type"],
            data=d["data"],
            seat=d["seat"],
            command=d["command"],
            at=d["at"],
            prev=d["prev"],
            hash=d["hash"],
        )
