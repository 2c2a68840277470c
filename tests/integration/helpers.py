"""Small HTTP helpers for the integration tests."""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
import uuid
from typing import Any

import httpx
import orjson
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


class Events:
    """A server-sent event stream read in a thread: the body of each `event` (by default the
    player's stream's `waiting`), in order; `ended` once it closed."""

    def __init__(self, url: str, headers: dict[str, str], event: str = "waiting") -> None:
        self.got: queue.Queue[dict[str, Any]] = queue.Queue()
        self.ended = threading.Event()
        self.status = 0
        self.keep_alives = 0
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=60))
        self._response: httpx.Response | None = None
        opened = threading.Event()

        def read() -> None:
            try:
                with self._client.stream("GET", url, headers=headers) as r:
                    self._response = r
                    self.status = r.status_code
                    opened.set()
                    named = ""
                    for line in r.iter_lines():
                        if line.startswith("event: "):
                            named = line[7:]
                        elif line.startswith("data: ") and named == event:
                            self.got.put(orjson.loads(line[6:]))
                        elif line.startswith(":"):
                            self.keep_alives += 1
            except httpx.HTTPError:
                pass
            finally:
                opened.set()
                self.ended.set()

        threading.Thread(target=read, daemon=True).start()
        assert opened.wait(15)

    def next(self, timeout: float = 10.0) -> dict[str, Any]:
        return self.got.get(timeout=timeout)

    def until(self, check: Any, timeout: float = 10.0) -> tuple[dict[str, Any], float]:
        """The first body that passes `check`, and how long it took to come."""
        t0 = time.monotonic()
        while True:
            left = timeout - (time.monotonic() - t0)
            if left <= 0:
                raise AssertionError("the stream never said it")
            body = self.got.get(timeout=left)
            if check(body):
                return body, time.monotonic() - t0

    def close(self) -> None:
        """Hang up, as a closed tab does (the server sees the connection end)."""
        if self._response is not None:
            # shutdown, not close: it wakes the reading thread and sends the FIN at once
            sock = self._response.extensions["network_stream"].get_extra_info("socket")
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        assert self.ended.wait(5)
        self._client.close()


def reopened(url: str, headers: dict[str, str], event: str = "waiting", within: float = 10.0) -> Events:
    """A stream opened again until the server takes it: a closed one gives its place back
    within `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        e = Events(url, headers, event)
        if e.status == 200:
            return e
        e.close()
        assert time.monotonic() < deadline, "a closed stream was not given back"
        time.sleep(0.1)
