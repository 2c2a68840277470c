"""The API's HTTP protocol (service/runtime/transport.py) writes a response of known length in
one write, head and body together, and a streamed one as uvicorn does: its head at once, before
any chunk, so a live stream's client is never kept waiting for it."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.server import ServerState

from service.runtime.transport import protocol


class Recorded(asyncio.Transport):
    """A connection's transport that keeps each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _served(app: Any, request: bytes, *, until: asyncio.Event) -> Recorded:
    config = Config(app, log_level="warning", access_log=False)
    config.load()
    proto = protocol()(config=config, server_state=ServerState(), app_state={})  # type: ignore[call-arg]
    transport = Recorded()
    proto.connection_made(transport)  # type: ignore[arg-type]
    proto.data_received(request)
    await asyncio.wait_for(until.wait(), 5)
    await asyncio.sleep(0.01)  # the cycle's last step after the app's
    proto.connection_lost(None)
    return transport


def test_a_json_answer_goes_out_in_one_write() -> None:
    done = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        body = b'{"id":"c1","status":"accepted"}'
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
        done.set()

    async def main() -> Recorded:
        return await _served(app, b"POST /v1/games/g/commands?wait=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                             until=done)

    t = asyncio.run(main())
    assert len(t.writes) == 1, t.writes
    head, _, body = t.writes[0].partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK") and b"content-length: 31" in head
    assert body == b'{"id":"c1","status":"accepted"}'


def test_a_streamed_answer_sends_its_head_before_its_first_chunk() -> None:
    done = asyncio.Event()
    heads: list[int] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        heads.append(len(transport_of[0].writes))  # what the client has before any event
        await send({"type": "http.response.body", "body": b"data: 1\n\n", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        done.set()

    transport_of: list[Recorded] = []
    real_init = Recorded.__init__

    def remember(self: Recorded) -> None:
        real_init(self)
        transport_of.append(self)

    Recorded.__init__ = remember  # type: ignore[method-assign]
    try:
        t = asyncio.run(_served(app, b"GET /v1/games/g/stream HTTP/1.1\r\nHost: x\r\n\r\n", until=done))
    finally:
        Recorded.__init__ = real_init  # type: ignore[method-assign]
    assert heads == [1] and t.writes[0].startswith(b"HTTP/1.1 200 OK") and t.writes[0].endswith(b"\r\n\r\n")
    assert b"".join(t.writes[1:]) == b"9\r\ndata: 1\n\n\r\n0\r\n\r\n"


def test_an_empty_body_and_a_head_request_are_answered_whole() -> None:
    for method, length in ((b"GET", b"0"), (b"HEAD", b"5")):
        done = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any, length: bytes = length, done: asyncio.Event = done) -> None:
            await send({"type": "http.response.start", "status": 204 if length == b"0" else 200,
                        "headers": [(b"content-length", length)]})
            await send({"type": "http.response.body", "body": b"" if length == b"0" else b"hello"})
            done.set()

        t = asyncio.run(_served(app, method + b" / HTTP/1.1\r\nHost: x\r\n\r\n", until=done))
        whole = b"".join(t.writes)
        assert whole.endswith(b"\r\n\r\n") and whole.startswith(b"HTTP/1.1 20"), (method, t.writes)
