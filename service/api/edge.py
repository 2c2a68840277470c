"""Refusals at the edge, before routing: a request whose path or query no endpoint could accept.

Without these, a 5,000-character path segment reached the file system (`/static/...`) and a
`from` above 2^64 reached Redis, and both answered 500. Here they are 4xx with the standard
error object, for every endpoint, the fast command path included.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from fastapi.responses import Response

from service.api.errors import error_response

MAX_SEGMENT = 256       # a game id is 16, a command id at most 100 (service/api/commands.py)
MAX_PATH = 2048
MAX_QUERY = 4096
MAX_QUERY_VALUE = 1024
INT64 = 2**63 - 1
_INTEGER = re.compile(r"[+-]?\d+")


# The command path's own queries (service/api/app.py's fast route): nothing in them to refuse,
# and parse_qsl costs more than the rest of this check on every posted command.
_PLAIN_QUERIES = frozenset({b"wait=0", b"wait=1"})


def refusal(path: str, query: bytes) -> Response | None:
    """The answer to a request no endpoint could accept, or None to route it."""
    # A path no longer than a part may be has no part too long: split only a longer one.
    if len(path) > MAX_SEGMENT and (len(path) > MAX_PATH or any(len(s) > MAX_SEGMENT for s in path.split("/"))):
        return error_response(414, "path_too_long",
                              f"the path is over {MAX_PATH} characters or has a part over {MAX_SEGMENT}")
    if not query or query in _PLAIN_QUERIES:
        return None
    if len(query) > MAX_QUERY:
        return error_response(414, "query_too_long", f"the query string is over {MAX_QUERY} bytes")
    for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if len(value) > MAX_QUERY_VALUE:
            return error_response(414, "query_too_long", f"'{name[:40]}' is over {MAX_QUERY_VALUE} characters")
        # Each integer parameter's own range is its endpoint's to check; none accepts more
        # than 64 bits, and past them Redis and the codec fail rather than refuse.
        if _INTEGER.fullmatch(value) and abs(int(value)) > INT64:
            return error_response(422, "number_out_of_range", f"'{name[:40]}' is outside the 64-bit range")
    return None
