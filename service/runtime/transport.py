"""The HTTP server's own refusals, as JSON: a request the parser cannot read never reaches the app.

uvicorn answers a request its parser refuses (a method it does not know, a control byte in the
request line, a header byte HTTP forbids, such as a cookie holding DEL) with a text/plain 400 of
its own, before any ASGI code runs. Every error of this API is the error object
(docs/errors.md), so the protocols here answer the same refusal as JSON: `bad_http_request`,
or `query_too_long` (414) when what was read of the target is already over the edge's bounds.

On httptools (the protocol uvicorn picks, and the one deployed), a response whose length is
known goes out in one write: uvicorn writes the status line and headers when the app starts
the response and the body when it sends it, two send() calls and two TCP segments for every
answer. Under load that first write was the API process's largest single cost (a fifth of its
CPU samples under py-spy at 64 games, beside the body's own write), so the head is held until
the body's first write and both go in one. A streamed answer (no content-length: the live
streams) and an empty body are written as uvicorn writes them, so no client waits for a head.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from uvicorn.protocols.http.h11_impl import H11Protocol

from service.api.edge import MAX_PATH, MAX_QUERY

_TOO_LONG = MAX_PATH + MAX_QUERY + 1  # a target past both bounds together (service/api/edge.py)


def refusal_bytes(target_length: int) -> bytes:
    """The whole answer (status line, headers and body) to a request the parser refused."""
    if target_length > _TOO_LONG:
        head, code = b"414 Request-URI Too Long", "query_too_long"
        message = f"the request target is over {_TOO_LONG} bytes (a path to {MAX_PATH}, a query to {MAX_QUERY})"
    else:
        head, code = b"400 Bad Request", "bad_http_request"
        message = ("the request is not HTTP/1.1 this server reads: an unknown method, a control "
                   "character in its line, or a header byte HTTP forbids (RFC 9110)")
    body = orjson.dumps({"error": {"code": code, "message": message}})
    return (b"HTTP/1.1 " + head + b"\r\ncontent-type: application/json\r\ncontent-length: "
            + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)


class JsonRefusals:
    """Mixed into a uvicorn HTTP protocol: its `send_400_response` answers the error object.
    The connection closes after it, as uvicorn's own does (the stream cannot be read on)."""

    transport: asyncio.Transport

    def send_400_response(self, msg: str) -> None:
        # httptools' protocol keeps what it read of the target in `url`; h11's keeps nothing.
        self.transport.write(refusal_bytes(len(getattr(self, "url", b""))))
        self.transport.close()


class JsonH11(JsonRefusals, H11Protocol):
    pass


class _Held:
    """Where a cycle's writes go while its response head is being made: kept, not sent."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data


class _Joined:
    """The transport for the write of a body whose head was held: the head goes with it."""

    def __init__(self, transport: asyncio.Transport, head: bytes) -> None:
        self.transport, self.head = transport, head

    def write(self, data: bytes) -> None:
        head, self.head = self.head, b""
        self.transport.write(head + data)

    def __getattr__(self, name: str) -> Any:  # close(), is_closing(): the real transport's
        return getattr(self.transport, name)


def protocol() -> type[asyncio.Protocol]:
    """The protocol uvicorn's "auto" would pick (httptools when installed), answering JSON;
    on httptools, a response of known length in one write (the module's docstring)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
    except ImportError:
        return JsonH11

    class OneWriteCycle(RequestResponseCycle):
        """uvicorn's cycle, the head of a response with a body of known length held until the
        body's first write. uvicorn's `send` makes every check and all the framing; only where
        its writes go changes (`transport`, which it reads at each write)."""

        held: bytes = b""

        async def send(self, message: Any) -> None:
            real = self.transport
            if message["type"] == "http.response.start" and not self.response_started:
                self.transport = held = _Held()  # type: ignore[assignment]
                try:
                    await super().send(message)
                finally:
                    self.transport = real
                if self.chunked_encoding is False and self.expected_content_length > 0:
                    self.held = held.data  # the body follows (uvicorn wrote nothing yet)
                elif held.data:
                    real.write(held.data)
                return
            if not self.held:
                await super().send(message)
                return
            self.transport = joined = _Joined(real, self.held)  # type: ignore[assignment]
            self.held = b""
            try:
                await super().send(message)
            finally:
                self.transport = real
                if joined.head:  # refused before writing (a body longer than its length)
                    real.write(joined.head)

    class JsonHttpTools(JsonRefusals, HttpToolsProtocol):
        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            # The cycle just made has not run yet (its task starts on the loop's next turn):
            # the same object, with the one-write send.
            self.cycle.__class__ = OneWriteCycle

    return JsonHttpTools
