"""What a request carries to say who it is: a Bearer token, the session cookie."""

from __future__ import annotations

from fastapi import Request

from service.http.errors import ApiError

COOKIE = "boardlog_session"


def bearer_token(request: Request, required: bool = False) -> str | None:
    auth = request.headers.get("authorization")
    token = None
    if auth is not None:
        scheme, _, value = auth.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise ApiError(401, "bad_token", "use 'Authorization: Bearer <token>'")
        token = value.strip()
    if token is None and required:
        raise ApiError(401, "token_required", "this needs a seat token: 'Authorization: Bearer <token>'")
    return token


def has_session_cookie(request: Request) -> bool:
    return bool(request.cookies.get(COOKIE))
