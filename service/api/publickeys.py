"""The service's public signing keys: what `boardlog audit --key` trusts."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from service.api.errors import ApiError
from service.api.parts import parts
from service.api.responses import json_response

router = APIRouter()


@router.get("/v1/keys", summary="The public keys that sign records and receipts, the current one first")
async def keys(request: Request) -> Response:
    """Retired keys stay listed: records and receipts they signed still verify."""
    ring = parts(request).keys
    if ring is None:
        raise ApiError(500, "internal_error", "this API process has no signing keys loaded")
    return json_response({"current": ring.signer.id, "keys": [k.to_json() for k in ring.keys]},
                         headers={"Cache-Control": "public, max-age=300"})
