"""Which game a request names and who is asking: the game's existence, the bearer's role."""

from __future__ import annotations

from fastapi import Request

from events.redisstore.aiostore import CommandHead
from events.redisstore.keys import is_game_id, partition_of
from service.bootstrap import ApiParts
from service.http.errors import ApiError
from service.matches import Principal, principal_of, token_digest


def unknown_game(gid: str) -> ApiError:
    return ApiError(404, "unknown_game", f"no game {gid!r}")


def our_gid(p: ApiParts, gid: str) -> bool:
    """A well-formed game id whose partition this deployment has (it may still not exist)."""
    return is_game_id(gid) and partition_of(gid) < p.store.partitions


async def game_exists(p: ApiParts, gid: str) -> None:
    if not our_gid(p, gid) or not await p.reads.exists(gid):
        raise unknown_game(gid)


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


def _valid(who: Principal | None) -> Principal:
    if who is None:
        raise ApiError(401, "bad_token", "that token is not valid for this game")
    return who


async def principal(p: ApiParts, request: Request, gid: str, required: bool = False) -> Principal:
    """Who the bearer is in this game: a seat, the admin, or a spectator (no token)."""
    token = bearer_token(request, required)
    if token is None:
        return Principal()
    return _valid(principal_of(await p.reads.role(gid, token_digest(token))))


async def command_head(p: ApiParts, request: Request, gid: str, cid: str = "") -> tuple[CommandHead, Principal]:
    """For the command path, in one round trip: the game's head, the bearer's role (a token is
    required) and, given `cid`, that command's answer."""
    if not our_gid(p, gid):
        raise unknown_game(gid)
    token = bearer_token(request, required=True) or ""
    head = await p.reads.head(gid, token_digest(token), cid)
    if head.status is None:
        raise unknown_game(gid)
    return head, _valid(principal_of(head.role))
