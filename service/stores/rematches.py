"""Rematches: which game a finished game's "Play again" started, so that two clicks, or two
seats asking at once, make one rematch.

One string a finished game, `<ns>:{players}:rematch:<gid>`, JSON `{"game", "by", "at"}` (the
rematch's id, the name of the seat that asked for it, when), written once (SET NX) before the
rematch is set up: whoever writes it creates the game, everyone after is pointed at it. It lives
with the players' account data, as tables do; it holds no token.

Every call raises `StoreUnavailable` when Redis is out of reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis

from events.store.errors import reaching_redis
from service.stores.players import PlayerKeys


@dataclass(frozen=True, slots=True)
class Rematch:
    """A finished game's rematch: its id, who asked for it, when (ISO, UTC)."""

    game: str
    by: str
    at: str

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "by": self.by, "at": self.at}


class RematchStore:
    """The rematch pointers on the API's async client; takes its client, never makes one."""

    def __init__(self, aio: aioredis.Redis, namespace: str) -> None:
        self.aio = aio
        self.base = PlayerKeys(namespace).base

    def key(self, gid: str) -> str:
        return f"{self.base}:rematch:{gid}"

    async def begin(self, gid: str, wanted: Rematch) -> Rematch:
        """Point `gid` at `wanted` unless it points at a rematch already: the rematch it points
        at now (`wanted` when this call won)."""
        raw = orjson.dumps(wanted.to_json())
        with reaching_redis():
            pipe = self.aio.pipeline(transaction=True)
            pipe.set(self.key(gid), raw, nx=True)
            pipe.get(self.key(gid))
            _, kept = await pipe.execute()
        return _rematch(kept)

    async def get(self, gid: str) -> Rematch | None:
        with reaching_redis():
            raw = await self.aio.get(self.key(gid))
        return None if raw is None else _rematch(raw)


def _rematch(raw: bytes | str) -> Rematch:
    d = orjson.loads(raw)
    return Rematch(str(d["game"]), str(d["by"]), str(d["at"]))
