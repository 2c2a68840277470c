"""The mails the API sends itself (a sign-in link, an address's confirmation link), through the
notifications port the composition root built (`parts(request).notifications`).

An email address counts for a player only once the link mailed to it is used: before that
boardlog sends it no notice and no sign-in link, so nobody can point boardlog's mail at an
address that is not theirs. The link's token rides in the fragment, which no browser sends to a
server, and the page asks for a click before it confirms (mail scanners open links).
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from html import escape

import structlog
from fastapi import Request
from fastapi.concurrency import run_in_threadpool

from service.api.errors import ApiError
from service.api.parts import parts
from service.stores.notifications import CONFIRM_SECONDS
from service.stores.players import digest
from service.usecases.notifications.channels import SendFailed, masked
from service.usecases.notifications.ports import Notifications

log = structlog.get_logger("boardlog.api")


def link_mail(n: Notifications, address: str, subject: str, text: str, html: str) -> EmailMessage:
    """A mail of boardlog's own to `address`: plain text and HTML, marked auto-generated."""
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"] = n.config.mail.sender
    msg["To"] = address
    msg["Date"] = format_datetime(datetime.now(UTC))
    msg["Message-ID"] = make_msgid(domain="boardlog")
    msg["Auto-Submitted"] = "auto-generated"
    msg.set_content(text)
    msg.add_alternative(f"<!doctype html><html><body>{html}</body></html>", subtype="html")
    return msg


async def send(n: Notifications, msg: EmailMessage, what: str, pid: str) -> bool:
    """Send one of these mails; whether the SMTP server took it (a failure is logged)."""
    to = masked(str(msg["To"]))
    try:
        await n.mail(msg)
    except SendFailed as e:
        log.warning(f"{what}.failed", player=pid, to=to, error=str(e))
        return False
    log.info(f"{what}.sent", player=pid, to=to)
    return True


async def count_mail_to(request: Request, address: str) -> None:
    """Count a sign-in, sign-up or confirmation mail to `address` against the one limit they
    share, BOARDLOG_MAILS_PER_ADDRESS_HOUR in any hour whoever asks (so that many clients or
    players together cannot aim boardlog's mail at someone): 429 past it. Every ask counts,
    whether or not a player has the address, so the answer tells nothing of who has it."""
    p = parts(request)
    limit = p.settings.mails_per_address_hour
    wait = await p.limits.take_sliding("mail-to", digest(address.casefold()), limit, 3600)
    if wait:
        raise ApiError(429, "rate_limited", f"that address has been sent its {limit} sign-in, sign-up and "
                       f"confirmation mails of the last hour; try again in {wait} s", {"Retry-After": str(wait)})


async def ask_confirmation(request: Request, pid: str, name: str, address: str) -> bool:
    """Mail `address` the link that confirms it for player `pid`; whether it was sent. A player
    asks for at most BOARDLOG_SIGNIN_MAILS_PER_MINUTE of these a minute, and the address is
    sent at most its hour's mails (`count_mail_to`): 429 past either, with nothing written."""
    p = parts(request)
    wait = await p.limits.take("confirm-mail", pid, p.settings.signin_mails_per_minute)
    if wait:
        raise ApiError(429, "rate_limited", f"this player has asked for this minute's confirmation mails "
                       f"({p.settings.signin_mails_per_minute}); try again in {wait} s", {"Retry-After": str(wait)})
    await count_mail_to(request, address)
    n = p.notifications
    token = await run_in_threadpool(n.targets.confirm_link, pid, address)
    link = f"{n.config.public_url.rstrip('/')}/confirm#token={token}"
    days = CONFIRM_SECONDS // 86400
    msg = link_mail(
        n, address, "boardlog: confirm your email address",
        f"The boardlog player {name} asks for notices (and sign-in links) at this address.\n"
        f"Open this link to confirm that it is yours (within {days} days):\n\n{link}\n\n"
        "If you did not ask for it, ignore this mail: boardlog sends nothing more to this address "
        "until it is confirmed.\n",
        f'<p>The boardlog player {escape(name)} asks for notices (and sign-in links) at this address.</p>'
        f'<p><a href="{link}">Confirm that it is yours</a> (within {days} days).</p>'
        "<p>If you did not ask for it, ignore this mail: boardlog sends nothing more to this address "
        "until it is confirmed.</p>")
    return await send(n, msg, "confirm_mail", pid)


async def tell_replaced(n: Notifications, pid: str, name: str, old: str, new: str) -> bool:
    """Tell a player's old address that a confirmed new one took its place (so that a change
    made from a stolen session does not pass unseen); the new one is shown masked."""
    shown = masked(new)
    msg = link_mail(
        n, old, "boardlog: your sign-in address changed",
        f"The boardlog player {name} now gets sign-in links at {shown} instead of this address.\n\n"
        "If you did not ask for this, sign in with your player key, change the address back and "
        "sign out your other devices from your player's page.\n",
        f"<p>The boardlog player {escape(name)} now gets sign-in links at {escape(shown)} instead of this "
        "address.</p><p>If you did not ask for this, sign in with your player key, change the address back "
        "and sign out your other devices from your player's page.</p>")
    return await send(n, msg, "address_changed_mail", pid)
