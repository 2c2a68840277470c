"""A referee invited by mail: the invitation mailed while the game is made, and its acceptance by
the referee, signed in.

The invitation's link goes to the referee's address and nowhere else: the create answer holds no
referee token, and the game keeps only the digest of the link's code. Accepting it makes the
referee's role the signed-in player's, once: a second account is refused, so a creator who kept a
copy of the mail could not hold the role beside the referee without the referee finding their link
spent. The game's first event says the referee was invited by mail (docs/referees-and-forks.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape
from typing import Annotated, Any

import structlog
from anyio import from_thread
from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from service.api.access import game_exists
from service.api.auth import Caller, current_player
from service.api.body import json_body
from service.api.errors import ApiError
from service.api.mails import link_mail, send
from service.api.parts import ApiParts, parts
from service.api.responses import json_response
from service.stores.players import digest
from service.usecases.gametypes import TITLES
from service.usecases.matches import INVITED, referee_field
from service.usecases.notifications.channels import masked
from service.usecases.referees import Invitation, invitation_field

log = structlog.get_logger("boardlog.api")

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]


async def limit_invitations(p: ApiParts, inv: Invitation) -> None:
    """429 once this address was sent this minute's invitations, whoever asks: a game's creator
    cannot aim boardlog's mail at someone by naming them referee again and again."""
    wait = await p.limits.take("referee-invite", digest(inv.address.casefold()), p.settings.signin_mails_per_minute)
    if wait:
        raise ApiError(429, "rate_limited", f"this address was sent this minute's referee invitations; try again "
                       f"in {wait} s", {"Retry-After": str(wait)})


def mailer(p: ApiParts, inv: Invitation, body: Mapping[str, Any]) -> Callable[[str], None]:
    """For the create's worker thread: mails the invitation once the game is set up, before it is
    stored; a mail that cannot be sent refuses the create (503), so no game waits on a referee
    who was never told."""
    game = str(body.get("game", ""))
    seats = [s if isinstance(s, str) else str(s.get("name", "")) for s in body.get("seats", [])
             if isinstance(s, str | dict)]

    def mail(gid: str) -> None:
        if not from_thread.run(_mail, p, inv, gid, TITLES.get(game, game), str(body["referee"]), seats):
            raise ApiError(503, "mail_unavailable", "the referee's invitation could not be mailed just now, so no "
                           "game was made: try again later")
    return mail


async def _mail(p: ApiParts, inv: Invitation, gid: str, title: str, name: str, seats: list[str]) -> bool:
    n = p.notifications
    link = f"{n.config.public_url.rstrip('/')}/games/{gid}#referee={inv.code}"
    between = ", ".join(seats)
    msg = link_mail(
        n, inv.address, f"boardlog: you are invited to referee a game of {title}",
        f"You are invited to referee a game of {title} on boardlog, as {name}, between {between}.\n\n"
        f"Accept: {link}\n\n"
        "Sign up or sign in on that page, then accept: the role becomes your account's, and this link "
        "works for one account only. The referee reads every seat's secrets and settles disputes; the "
        "seats are told you were invited by mail and hold the only referee link, so keep it to yourself. "
        "If you did not expect this, ignore it.\n",
        f"<p>You are invited to referee a game of {escape(title)} on boardlog, as {escape(name)}, between "
        f"{escape(between)}.</p><p><a href=\"{link}\">Accept the referee's role</a></p>"
        "<p>Sign up or sign in on that page, then accept: the role becomes your account's, and this link works "
        "for one account only. The referee reads every seat's secrets and settles disputes; the seats are told "
        "you were invited by mail and hold the only referee link, so keep it to yourself. If you did not expect "
        "this, ignore it.</p>")
    sent = await send(n, msg, "referee_invite_mail", gid)
    if sent:
        log.info("referee.invited", game=gid, to=masked(inv.address))
    return sent


@router.post("/v1/games/{gid}/referee-invitation",
             summary="Accept the referee's role a mailed invitation offers, for the signed-in player")
async def accept(gid: str, who: Me, request: Request) -> Response:
    """`{"code": "<the code of the mailed link>"}`: the game's referee becomes the signed-in
    player (as a game made with `{"player": ...}` as its referee names them), once: 409
    `invitation_used` for any other player after that, 404 `no_invitation` for a code this
    game never mailed."""
    p = parts(request)
    await game_exists(p, gid)
    body = await json_body(request)
    code = body.get("code")
    if not isinstance(code, str) or not code or len(code) > 100 or set(body) != {"code"}:
        raise ApiError(422, "bad_request", "send {\"code\": \"<the code in the invitation's link>\"}")
    if await p.reads.role(gid, invitation_field(code)) != INVITED.encode():
        raise ApiError(404, "no_invitation", "this game mailed no referee invitation with that code")
    pid = who.player.id
    seat = await p.players.seat_of(gid, pid)
    if seat is not None:
        raise ApiError(409, "referee_not_seat", f"you hold seat {seat} of this game: its referee holds none")
    got = await p.reads.name_referee(gid, referee_field(pid))
    if got == "taken":
        log.warning("referee.invitation_reused", game=gid, player=pid)
        raise ApiError(409, "invitation_used", "this referee invitation was already accepted by another player, "
                       "who holds the role: if that was not you, tell the seats")
    await p.players.name_referee(gid, pid)
    if got == "named":
        log.info("referee.invitation_accepted", game=gid, player=pid)
    return json_response({"game": gid, "role": "referee", "seat": None, "claimed": got == "named"})
