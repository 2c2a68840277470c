"""The HTTP server's own refusals, as JSON: a request the parser cannot read never reaches the app.

uvicorn answers a request its parser refuses (a method it does not know, a control byte in the
request line, a header byte HTTP forbids, such as a cookie holding DEL) with a text/plain 400 of
its own, before any ASGI code runs. Every error of this API is the error object
(docs/errors.md), so the protocol here answers the same refusal as JSON: `bad_http_request`,
or `query_too_long` (414) when what was read of the target is already over the edge's bounds.
"""

from __future__ import annotations

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

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


# At module level, not made in a function: `boardlog api --processes N` hands uvicorn's config,
# this class in it, to processes it spawns, and pickle finds a class only by its module's name.
class JsonHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol (what its "auto" picks; httptools is a dependency), whose
    `send_400_response` answers the error object. The connection closes after it, as uvicorn's
    own does (the stream cannot be read on)."""

    def send_400_response(self, msg: str) -> None:
        # What was read of the target is kept in `url`, which a refusal before it has not set.
        self.transport.write(refusal_bytes(len(getattr(self, "url", b""))))
        self.transport.close()
