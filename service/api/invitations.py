"""The mail that invites someone to a seat by their address: the seat's own link, which opens
the seat on any device, and the way to keep it on an account (sign up or sign in from the board,
which claims the seat for the player)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from service.api.mails import link_mail, send
from service.api.parts import ApiParts
from service.usecases.gametypes import TITLES


@dataclass(frozen=True, slots=True)
class Invitation:
    gid: str
    game: str  # the game type ("factions")
    seat: str  # the seat's name
    by: str  # the inviting player's name
    to: str  # the address


async def mail_invitation(p: ApiParts, inv: Invitation, token: str, pid: str) -> bool:
    """Mail `inv.to` the seat's link; whether the SMTP server took it. The token rides in the
    fragment, which no browser sends to a server, and the board takes it out of the address bar."""
    n = p.notifications
    link = f"{n.config.public_url.rstrip('/')}/games/{inv.gid}#token={token}"
    title = TITLES.get(inv.game, inv.game) or "board"
    msg = link_mail(
        n, inv.to, f"boardlog: {inv.by} invites you to a game of {title}",
        f"{inv.by} invites you to play {inv.seat} in a game of {title} on boardlog.\n\n"
        f"Your seat: {link}\n\n"
        "Whoever holds this link plays the seat, so keep it to yourself. Sign up (or sign in) from "
        "the board to keep the seat on your account: it then opens on any device without the link, "
        "and you are told when it is your turn.\n",
        f"<p>{escape(inv.by)} invites you to play {escape(inv.seat)} in a game of {escape(title)} on boardlog.</p>"
        f'<p><a href="{link}">Open your seat</a></p>'
        "<p>Whoever holds this link plays the seat, so keep it to yourself. Sign up (or sign in) from the "
        "board to keep the seat on your account: it then opens on any device without the link, and you "
        "are told when it is your turn.</p>")
    return await send(n, msg, "invite_mail", pid)
