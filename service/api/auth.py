"""Who the player asking is: a player key or a session as `Authorization: Bearer`, or the session
cookie; and the Origin check that keeps another site from using the cookie.

A seat token is not a player key: the game endpoints look a seat token up first, and a player
only for a seat they have claimed (access.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import Request

from service.api.credentials import COOKIE, bearer_token
from service.api.errors import ApiError
from service.api.parts import parts
from service.stores.players import Player

# What a browser form or script on another site could make a signed-in browser send.
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Caller:
    player: Player
    session: str | None  # the public id of the session asking (None: a player key)
    by_cookie: bool


def request_scheme(request: Request) -> str:
    """The scheme the client used: a proxy's X-Forwarded-Proto, else the connection's."""
    forwarded = request.headers.get("x-forwarded-proto")
    if forwarded:
        return forwarded.split(",")[0].strip().lower()
    return request.url.scheme


def _origin(scheme: str, netloc: str) -> tuple[str, str, int | None] | None:
    try:
        parts_ = urlsplit(f"{scheme}://{netloc}")
        port = parts_.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    if not parts_.hostname:
        return None
    return scheme, parts_.hostname.lower(), port


def same_origin(request: Request) -> bool:
    """The request's Origin (lacking one, its Referer) is the request's own scheme://host[:port]."""
    claimed = request.headers.get("origin") or request.headers.get("referer")
    host = request.headers.get("host")
    if not claimed or not host or claimed == "null":
        return False
    try:
        theirs = urlsplit(claimed)
    except ValueError:
        return False
    mine = _origin(request_scheme(request), host)
    return mine is not None and _origin(theirs.scheme.lower(), theirs.netloc) == mine


def check_origin(request: Request) -> None:
    if not same_origin(request):
        raise ApiError(403, "cross_origin",
                       "a request that changes something, signed in by the cookie, must come from this site's own pages")


async def current_player(request: Request) -> Caller:
    """The signed-in player (a FastAPI dependency): 401 without a valid key or session, 403
    for a cookie-signed state-changing request from another origin (checked before anything)."""
    p = parts(request)
    token = bearer_token(request)
    if token is not None:
        player = await p.players.by_key(token)
        if player is not None:
            return Caller(player, None, False)
        session = await p.players.session(token)
        if session is None:
            raise ApiError(401, "bad_token", "that player key or session is not valid")
        return await _caller(request, session.player, session.id, False)
    secret = request.cookies.get(COOKIE)
    if not secret:
        raise ApiError(401, "sign_in_required", "sign in first, or send 'Authorization: Bearer <player key>'")
    if request.method in STATE_CHANGING:
        check_origin(request)
    session = await p.players.session(secret)
    if session is None:
        raise ApiError(401, "bad_session", "this session has ended (signed out or revoked): sign in again")
    return await _caller(request, session.player, session.id, True)


async def _caller(request: Request, pid: str, session: str, by_cookie: bool) -> Caller:
    player = await parts(request).players.player(pid)
    if player is None:
        raise ApiError(401, "bad_session", "this session's player no longer exists")
    return Caller(player, session, by_cookie)
