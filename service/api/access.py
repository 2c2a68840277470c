"""Which game a request names and who is asking: the game's existence, the bearer's role."""

from __future__ import annotations

from fastapi import Request

from events.store.aiostore import CommandHead
from events.store.layout import is_game_id, partition_of
from service.api.auth import current_player
from service.api.credentials import bearer_token, has_session_cookie, token_or_session
from service.api.errors import ApiError
from service.api.parts import ApiParts
from service.usecases.matches import Principal, principal_of, referee_field, token_digest


def unknown_game(gid: str) -> ApiError:
    return ApiError(404, "unknown_game", f"no game {gid!r}")


def our_gid(p: ApiParts, gid: str) -> bool:
    """A well-formed game id whose partition this deployment has (it may still not exist)."""
    return is_game_id(gid) and partition_of(gid) < p.store.partitions


async def game_exists(p: ApiParts, gid: str) -> None:
    if not our_gid(p, gid) or not await p.reads.exists(gid):
        raise unknown_game(gid)


def _valid(who: Principal | None) -> Principal:
    if who is None:
        raise ApiError(401, "bad_token", "that token is not valid for this game")
    return who


async def claimed_seat(p: ApiParts, request: Request, gid: str) -> Principal | None:
    """The seat the player asking (a player key or session as Bearer, or the cookie) has claimed
    in this game, or the referee when the game names them so; None when they hold neither. 401 for a key or session that is not valid, 403 for
    a state-changing request signed in by the cookie from another origin."""
    who = await current_player(request)
    seat = await p.players.seat_of(gid, who.player.id)
    if seat is None:
        # A player the game names as its referee (not a seat) reads it as the referee.
        role = await p.reads.role(gid, referee_field(who.player.id))
        return None if role is None else principal_of(role)
    return Principal(seat=seat)


async def principal(p: ApiParts, request: Request, gid: str, required: bool = False) -> Principal:
    """Who the bearer is in this game: a seat (by its token, else by the player who claimed it),
    the admin, or a spectator (no credentials, or a signed-in player holding no seat here).

    A seat token wins when given; a Bearer token that is neither a seat's nor a seated player's
    is refused, as before players existed."""
    token = bearer_token(request)
    if token is not None:
        role = await p.reads.role(gid, token_digest(token))
        if role is not None:
            return _valid(principal_of(role))
        return _valid(await claimed_seat(p, request, gid))
    if has_session_cookie(request):
        try:
            seated = await claimed_seat(p, request, gid)
        except ApiError as e:
            # A cookie left from a session since ended still lets its browser watch the game;
            # where a seat is needed, the answer says the session ended.
            if required or e.status != 401:
                raise
            seated = None
        if seated is not None:
            return seated
        if required:
            raise ApiError(403, "not_seated", "you hold no seat in this game: open the seat's link while signed in and keep it on your account")
    if required:
        raise ApiError(401, "token_required", "this needs a seat token: 'Authorization: Bearer <token>'")
    return Principal()


async def command_head(p: ApiParts, request: Request, gid: str, cid: str = "",
                       scoped: bool = False) -> tuple[CommandHead, Principal]:
    """For the command path, in one round trip: the game's head, the bearer's role (a token is
    required) and, given `cid`, that command's answer (`scoped`: a client's id, read under the
    token's role, events.store.commandids)."""
    if not our_gid(p, gid):
        raise unknown_game(gid)
    token = token_or_session(request)
    head = await p.reads.head(gid, token_digest(token or ""), cid, scoped)
    if head.status is None:
        raise unknown_game(gid)
    if head.role is not None:
        return head, _valid(principal_of(head.role))
    seated = await claimed_seat(p, request, gid)
    if seated is None and token is None:
        raise ApiError(403, "not_seated", "you hold no seat in this game: open the seat's link while signed in and keep it on your account")
    return head, _valid(seated)


def sees_everything(status: str, who: Principal) -> bool:
    """Whether `who` may see everything in a game now, every seat's secrets included: anyone
    after the end, before it the referee only (not the admin, not a seat)."""
    return status != "active" or who.referee
