"""Liveness, for load balancers and `boardlog serve`'s start-up wait."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from service.api.parts import parts
from service.api.responses import json_response

router = APIRouter()


@router.get("/v1/health", summary="Liveness, and which deployment namespace this API serves")
async def health(request: Request) -> Response:
    return json_response({"ok": True, "namespace": parts(request).settings.namespace})
