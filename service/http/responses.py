"""JSON answers, in the canonical encoding the store uses (sorted keys, compact)."""

from __future__ import annotations

from typing import Any

from fastapi.responses import Response

from events.mapping.codec import canonical


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(canonical(body), status_code=status, media_type="application/json", headers=headers)
