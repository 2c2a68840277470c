"""Reading a request's JSON body, bounded."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Request

from events.records.codec import loads
from service.api.errors import ApiError

MAX_BODY = 64 * 1024


async def json_body(request: Request) -> dict[str, Any]:
    """The body as a JSON object; 413 over MAX_BODY bytes, 400 when it is not a JSON object."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise ApiError(413, "body_too_large", f"the body is over {MAX_BODY} bytes")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise ApiError(413, "body_too_large", f"the body is over {MAX_BODY} bytes")
    try:
        body = loads(raw)
    except orjson.JSONDecodeError as e:
        raise ApiError(400, "bad_json", f"the body is not valid JSON: {e}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "bad_json", "the body must be a JSON object")
    return body
