"""What a request carries to say who it is: a Bearer token, the session cookie."""

from __future__ import annotations

from fastapi import Request, Response

from service.api.errors import ApiError

COOKIE = "boardlog_session"
# Beside the session cookie, which the pages cannot read (HttpOnly), one they can: it holds no
# secret, only that this browser is signed in, so that a visitor's pages do not ask /v1/me to
# learn they are not (a 401 in the console of every page).
HINT = "boardlog_signed_in"


COOKIE_DAYS = 400  # the longest a browser keeps a cookie (RFC 6265bis)


def set_session_cookies(response: Response, secret: str, *, secure: bool) -> None:
    response.set_cookie(COOKIE, secret, max_age=COOKIE_DAYS * 86400, path="/", httponly=True, samesite="lax",
                        secure=secure)
    set_hint(response, secure=secure)


def set_hint(response: Response, *, secure: bool) -> None:
    response.set_cookie(HINT, "1", max_age=COOKIE_DAYS * 86400, path="/", samesite="lax", secure=secure)


def clear_session_cookies(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/")
    response.delete_cookie(HINT, path="/")


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


def token_or_session(request: Request) -> str | None:
    """The Bearer token; None when there is none but a session cookie stands in for it; 401
    `token_required` with neither. The cookies are parsed only without a token (a command
    looked at them twice, for nothing, on every request a client made with its token)."""
    token = bearer_token(request)
    if token is None and not has_session_cookie(request):
        bearer_token(request, required=True)
    return token


def has_session_cookie(request: Request) -> bool:
    return bool(request.cookies.get(COOKIE))
