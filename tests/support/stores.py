"""Reading a store's records as the tests check them, where the service itself never asks."""

from __future__ import annotations

from service.stores.players import PlayerStore


async def claimants(players: PlayerStore, gid: str) -> dict[int, str]:
    """Seat -> the player holding it, for the claimed seats of `gid` (the claims hash as stored)."""
    claims = await players.aio.hgetall(players.keys.claims(gid))
    return {int(seat): (holder.decode() if isinstance(holder, bytes) else holder)
            for seat, holder in claims.items()}
