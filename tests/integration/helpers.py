"""Small HTTP helpers for the integration tests."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import redis


def new_race(c: httpx.Client, seats: int = 2, target: int = 1000) -> tuple[str, list[str], str]:
    r = c.post("/v1/games", json={"game": "race", "seats": [f"p{i}" for i in range(seats)],
                                  "options": {"target": target}})
    assert r.status_code == 201, r.text
    g = r.json()
    return g["id"], [s["token"] for s in g["seats"]], g["admin_token"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def command(c: httpx.Client, gid: str, token: str, type_: str = "race.roll", args: dict[str, Any] | None = None,
            *, cid: str | None = None, expect: int | None = None, wait: bool = True) -> httpx.Response:
    body: dict[str, Any] = {"id": cid or str(uuid.uuid4()), "type": type_, "args": args or {}}
    if expect is not None:
        body["expect"] = expect
    return c.post(f"/v1/games/{gid}/commands" + ("?wait=1" if wait else ""), headers=bearer(token), json=body)


def unacked(r: redis.Redis, namespace: str) -> int:
    """Messages of `namespace`'s broker fetched and not acked, plus messages still stored."""
    acks = sum(r.scard(k) for k in r.scan_iter(match=f"{namespace}-dramatiq:__acks__.*"))
    return acks + sum(r.hlen(k) for k in r.scan_iter(match=f"{namespace}-dramatiq:*.msgs"))


def player(c: httpx.Client, name: str, email: str | None = None) -> dict[str, str]:
    """A new player (its `id`, `key`, `signin_url`, ...)."""
    r = c.post("/v1/players", json={"name": name, **({"email": email} if email else {})})
    assert r.status_code == 201, r.text
    out: dict[str, str] = r.json()
    return out


def table(c: httpx.Client, keys: list[str]) -> tuple[str, list[str]]:
    """A race game whose seats are claimed by the players of `keys`, in order."""
    gid, tokens, _ = new_race(c)
    for key, token in zip(keys, tokens, strict=True):
        r = c.post(f"/v1/games/{gid}/claim", json={"token": token}, headers=bearer(key))
        assert r.status_code == 200, r.text
    return gid, tokens
