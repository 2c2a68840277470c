"""Players: create one (its key and sign-in link, and its email's confirmation mail), sign in a
device (the session cookie), the player asking, their sessions and signing them out.

A key or session secret appears in one answer only, the one that created it; log lines name a
player by id.
"""

from __future__ import annotations

from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from events.domain.names import display_name
from events.store.errors import StoreUnavailable
from service.api.auth import Caller, check_origin, current_player, request_scheme
from service.api.body import json_body
from service.api.credentials import clear_session_cookies, set_session_cookies
from service.api.errors import ApiError
from service.api.mails import ask_confirmation
from service.api.parts import parts
from service.api.responses import json_response
from service.stores.players import Player, Session

log = structlog.get_logger("boardlog.api")

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]
EMAIL_CHARS = 254


def email_of(raw: object) -> str | None:
    if raw is None:
        return None
    if (not isinstance(raw, str) or len(raw) > EMAIL_CHARS or raw.count("@") != 1 or not raw.isprintable()
            or any(c.isspace() for c in raw) or raw.startswith("@") or raw.endswith("@")):
        raise ApiError(422, "bad_email", "'email' is an address like name@example.org (at most 254 characters)")
    return raw


def only(body: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(body) - allowed)
    if extra:
        raise ApiError(422, "bad_request", f"{extra[0]}: not a field here (the fields: {', '.join(sorted(allowed))})")


async def limited(request: Request, action: str, limit: int) -> Response | None:
    """The 429 answer once this client (the peer address) has done `action` `limit` times this
    minute; None while it may."""
    client = request.client.host if request.client else "unknown"
    wait = await parts(request).limits.take(action, client, limit)
    if not wait:
        return None
    return json_response({"error": {"code": "rate_limited", "message": f"too many of these from this address; "
                                    f"try again in {wait} s"}}, 429, {"Retry-After": str(wait)})


def player_json(player: Player, *, own: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"id": player.id, "name": player.name, "created": player.created}
    if own:
        out["email"] = player.email
    return out


def session_json(session: Session, current: str | None) -> dict[str, Any]:
    return {"id": session.id, "created": session.created, "last_seen": session.last_seen,
            "user_agent": session.user_agent, "current": session.id == current}


@router.post("/v1/players", status_code=201, summary="Create a player: their key and sign-in link")
async def create_player(request: Request) -> Response:
    p = parts(request)
    body = await json_body(request)
    only(body, {"name", "email"})
    name, email = display_name(body.get("name"), "the player's name"), email_of(body.get("email"))
    refused = await limited(request, "players", p.settings.players_per_minute)
    if refused is not None:
        return refused
    player, key = await p.players.create(name, email)
    log.info("player.created", player=player.id)
    # The key rides in the fragment: a browser never sends it to a server, so no log holds it.
    out: dict[str, Any] = {"id": player.id, "name": player.name, "key": key, "signin_url": f"/signin#key={key}"}
    if email is not None:
        # The key is answered only here: a confirmation that cannot be asked for now (Redis or
        # the mail away) must not lose it. The player asks again from their page.
        try:
            out["confirmation_mailed"] = await ask_confirmation(request, player.id, name, email)
        except (ApiError, StoreUnavailable):
            out["confirmation_mailed"] = False
    return json_response(out, 201, {"Cache-Control": "no-store"})


@router.post("/v1/sessions", status_code=201, summary="Sign this device in with a player key (sets the cookie)")
async def sign_in(request: Request) -> Response:
    p = parts(request)
    # A page of another site must not sign this browser in as someone else (login CSRF); a
    # program sends no Origin.
    if request.headers.get("origin") or request.headers.get("referer"):
        check_origin(request)
    body = await json_body(request)
    only(body, {"key"})
    key = body.get("key")
    if not isinstance(key, str) or not key:
        raise ApiError(422, "bad_request", "key: the player key (from the sign-in link)")
    refused = await limited(request, "sessions", p.settings.signins_per_minute)
    if refused is not None:
        return refused
    player = await p.players.by_key(key)
    if player is None:
        raise ApiError(401, "bad_key", "that is not a player key here")
    session, secret = await p.players.open_session(player.id, request.headers.get("user-agent", ""))
    log.info("session.created", player=player.id)
    response = json_response({"session": session.id, "player": player_json(player)}, 201, {"Cache-Control": "no-store"})
    set_session_cookies(response, secret, secure=request_scheme(request) == "https")
    return response


@router.get("/v1/me", summary="The signed-in player")
async def me(who: Me, request: Request) -> Response:
    confirmed = await parts(request).players.email_confirmed(who.player)
    return json_response({**player_json(who.player, own=True), "email_confirmed": confirmed,
                          "email_pending": who.player.email_pending, "session": who.session})


@router.get("/v1/me/sessions", summary="The signed-in player's sessions (never their secrets)")
async def my_sessions(who: Me, request: Request) -> Response:
    sessions = await parts(request).players.sessions(who.player.id)
    return json_response({"sessions": [session_json(s, who.session) for s in sessions]})


@router.delete("/v1/me/sessions/{sid}", status_code=204, summary="Sign out one device")
async def sign_out(sid: str, who: Me, request: Request) -> Response:
    if not await parts(request).players.revoke(who.player.id, sid):
        raise ApiError(404, "unknown_session", f"you have no session {sid!r}")
    log.info("session.revoked", player=who.player.id)
    response = Response(status_code=204)
    if sid == who.session and who.by_cookie:
        clear_session_cookies(response)
    return response


@router.delete("/v1/me/sessions", summary="Sign out everywhere: every session ends and the key is retired")
async def sign_out_everywhere(who: Me, request: Request) -> Response:
    """Whoever held the key (a lost phone's sign-in link, say) is out too: the answer holds the
    new key, shown this once."""
    count, key = await parts(request).players.sign_out_everywhere(who.player.id)
    log.info("session.revoked_all", player=who.player.id, sessions=count)
    log.info("key.rotated", player=who.player.id, by="sign_out_everywhere")
    response = json_response({"signed_out": count, **_key_json(key)}, 200, {"Cache-Control": "no-store"})
    if who.by_cookie:
        clear_session_cookies(response)
    return response


@router.post("/v1/me/key", summary="A new player key: the old one stops at once")
async def rotate_key(who: Me, request: Request) -> Response:
    """The new key is in this answer only (as POST /v1/players shows the first); sessions stay
    signed in."""
    key = await parts(request).players.rotate_key(who.player.id)
    log.info("key.rotated", player=who.player.id)
    return json_response(_key_json(key), 200, {"Cache-Control": "no-store"})


def _key_json(key: str) -> dict[str, str]:
    # The key rides in the fragment: a browser never sends it to a server, so no log holds it.
    return {"key": key, "signin_url": f"/signin#key={key}"}
