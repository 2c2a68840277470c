"""The API's documentation pages, /docs (Swagger UI) and /redoc, with their scripts and styles
served by boardlog itself: FastAPI's own pages load them from a CDN and are blank offline.

The assets come from the fastapi-offline package (Swagger UI and Redoc builds, their licences
kept beside them); only its files are used, not its app factory.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse

from service.api.errors import ApiError

router = APIRouter(include_in_schema=False)

ASSETS = Path(fastapi_offline.__file__).parent / "static"
_TYPES = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css",
          "redoc.standalone.js": "text/javascript", "favicon.png": "image/png"}
_BASE = "/docs/assets"


@router.get("/docs")
async def swagger(request: Request) -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url=request.app.openapi_url, title="boardlog API",
        swagger_js_url=f"{_BASE}/swagger-ui-bundle.js", swagger_css_url=f"{_BASE}/swagger-ui.css",
        swagger_favicon_url=f"{_BASE}/favicon.png")


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    return get_redoc_html(openapi_url=request.app.openapi_url, title="boardlog API",
                          redoc_js_url=f"{_BASE}/redoc.standalone.js", redoc_favicon_url=f"{_BASE}/favicon.png",
                          with_google_fonts=False)


@router.get(_BASE + "/{name}")
async def asset(name: str) -> FileResponse:
    if name not in _TYPES:
        raise ApiError(404, "not_found", f"no documentation asset {name!r}")
    # Kept a day: the files change only with the fastapi-offline release.
    return FileResponse(ASSETS / name, media_type=_TYPES[name], headers={"Cache-Control": "public, max-age=86400"})
