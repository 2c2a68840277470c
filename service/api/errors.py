"""Every error answer of the API: `{"error": {"code", "message"}}` with a fitting status.

The routed handlers get these through the exception handlers `install` registers; the fast
path for commands (app.py) calls `answer` with the exception a handler raised. docs/errors.md
lists every code.
"""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from events.store.errors import StoreUnavailable
from rules.core import InvalidCommand
from service.api.responses import json_response
from service.usecases.errors import Kind, UseCaseError

log = structlog.get_logger("boardlog.api")


class ApiError(Exception):
    """A request the API refuses before any game rule looks at it."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


# The status of each kind of use-case refusal: the only place the use cases meet HTTP.
USE_CASE_STATUS: dict[Kind, int] = {"bad_input": 422, "forbidden": 403, "not_found": 404, "conflict": 409}


def error_response(status: int, code: str, message: str) -> Response:
    return json_response({"error": {"code": code, "message": message}}, status)


def crash_response(path: str) -> Response:
    return error_response(500, "internal_error", f"the server failed on {path} (a bug, logged)")


def refused_response(exc: UseCaseError) -> Response:
    return error_response(USE_CASE_STATUS[exc.kind], exc.code, exc.message)


def invalid_response(exc: InvalidCommand) -> Response:
    return error_response(404 if exc.code == "unknown_game" else 422, exc.code, exc.message)


def unavailable_response(exc: StoreUnavailable) -> Response:
    """Redis is out of reach (restarting). A command may or may not have been queued: sending
    the same command id again is safe, it is applied at most once."""
    log.warning("api.redis_unavailable", error=str(exc))
    return json_response({"error": {"code": "store_unavailable", "message": "the event store is out of reach; "
                                     "try again (a command sent again with the same id applies at most once)"}},
                         503, headers={"Retry-After": "1"})


def result_response(result: dict[str, Any]) -> Response:
    """A command's result; a rejection, conflict or failure also carries the standard error object."""
    status = int(result.get("http", 200))
    if result.get("status") in ("rejected", "conflict", "failed"):
        result = {**result, "error": {"code": result["code"], "message": result["message"]}}
    return json_response(result, status)


def validation_response(exc: RequestValidationError) -> Response:
    first = exc.errors()[0] if exc.errors() else {}
    loc = tuple(first.get("loc", ()))
    where = ".".join(str(x) for x in loc)
    # An address the models' pattern refuses is the same mistake the handlers call bad_email.
    code = "bad_email" if loc and loc[-1] == "email" else "bad_request"
    return error_response(422, code, f"{where}: {first.get('msg', 'invalid')}")


def http_response(exc: StarletteHTTPException) -> Response:
    # FastAPI's only 400 is a body its model could not parse: the same as body.py's bad_json.
    code = {400: "bad_json", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    # Starlette's 405 names the path's methods in `Allow` (RFC 9110 requires it): keep it.
    return json_response({"error": {"code": code, "message": str(exc.detail)}}, exc.status_code,
                         headers=dict(exc.headers or {}))


def answer(exc: Exception, path: str) -> Response:
    """The answer to an exception a handler raised, as the exception handlers give it."""
    if isinstance(exc, ApiError):
        return json_response({"error": {"code": exc.code, "message": exc.message}}, exc.status, exc.headers)
    if isinstance(exc, UseCaseError):
        return refused_response(exc)
    if isinstance(exc, InvalidCommand):
        return invalid_response(exc)
    if isinstance(exc, StoreUnavailable):
        return unavailable_response(exc)
    log.exception("api.failed", path=path)
    return crash_response(path)


async def _api_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError | UseCaseError | InvalidCommand | StoreUnavailable)
    return answer(exc, "")


async def _validation(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return validation_response(exc)


async def _http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405:
        # Starlette names only the first route that matched the path; `GET /v1/games` and
        # `POST /v1/games` are two routes, so gather the methods of every route of this path.
        allow = allowed_methods(request)
        exc = StarletteHTTPException(405, f"{request.method} is not answered here; this path answers {allow}",
                                     {**(exc.headers or {}), "Allow": allow})
    return http_response(exc)


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(request: Request) -> str:
    """The methods some route answers on this path: each asked of the routes' own matching (an
    included router hides its routes from the app's list)."""
    routes = request.app.router.routes
    return ", ".join(m for m in _METHODS
                     if any(r.matches({**request.scope, "method": m})[0] == Match.FULL for r in routes))


async def _crash(request: Request, exc: Exception) -> Response:
    # A bug (in the API or a game's view): the standard JSON error, not Starlette's text page.
    # Starlette raises it again after answering; BoardlogApp logs the traceback then.
    return crash_response(request.url.path)


def install(app: FastAPI) -> None:
    """Register the exception handlers that answer every error the routed handlers raise."""
    for known in (ApiError, UseCaseError, InvalidCommand, StoreUnavailable):
        app.add_exception_handler(known, _api_error)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _crash)
