"""The channels a notice goes out by: email over SMTP (aiosmtplib), chat and push services
through Apprise, and Standard Webhooks signed JSON (httpx). An Atom feed is a list in Redis
(service/stores/notifications.py) read by the API; the browser asks the API.

Each send raises `SendFailed` with a short reason (never an address or secret in full), which
the notify job records as the target's last error before its retry.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson

from service.usecases.notifications.notices import Notice

if TYPE_CHECKING:
    import httpx

MAX_REDIRECTS = 3


class SendFailed(Exception):
    """A send did not go through; the message says why, for the player's page."""


@dataclass(frozen=True, slots=True)
class MailSettings:
    host: str = ""  # empty: no SMTP server, and email targets fail with that reason
    port: int = 587
    tls: str = "starttls"  # starttls | tls | none
    user: str = ""
    password: str = ""
    sender: str = "boardlog <boardlog@localhost>"
    timeout: float = 10.0


def masked(address: str) -> str:
    """An address or URL as a log line may hold it: "an***@example.org", "https://hooks.example/…"."""
    if "@" in address and "://" not in address:
        name, _, domain = address.partition("@")
        return f"{name[:2]}***@{domain}"
    try:
        p = urlsplit(address)
    except ValueError:
        return "***"
    return f"{p.scheme}://{p.hostname or ''}/…" if p.scheme else "***"


def message_id(key: str) -> str:
    return f"<{hashlib.sha256(key.encode()).hexdigest()[:32]}@boardlog>"


def _mail(cfg: MailSettings, subject: str, to: str, unsubscribe: str, key: str) -> EmailMessage:
    """A mail's headers, a notice's or a digest's."""
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"] = cfg.sender
    msg["To"] = to
    msg["Date"] = format_datetime(datetime.now(UTC))
    # The idempotency key, in its own header and as the Message-ID: a second send of the same
    # mail (a worker killed after the server took it, before it was marked sent) is the same
    # message to a mail client, which shows it once.
    msg["Message-ID"] = message_id(key)
    msg["X-Boardlog-Notice"] = key
    msg["List-Unsubscribe"] = f"<{unsubscribe}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg["Auto-Submitted"] = "auto-generated"
    return msg


RULE_BY_REPLY = ('To rule by mail, reply with a first line "uphold: <your reason>" or "void: <your reason>" '
                 "(the reason, 1 to 500 characters, is shown to every seat)")


def notice_mail(cfg: MailSettings, notice: Notice, to: str, public_url: str, unsubscribe: str, key: str,
                reply_to: str | None = None) -> EmailMessage:
    msg = _mail(cfg, notice.subject(), to, unsubscribe, key)
    if reply_to is not None:  # reply to play (a move) or to rule (a verdict): the reply's first line
        msg["Reply-To"] = reply_to
        text = notice.text(public_url, unsubscribe, sheet=True)
        how = RULE_BY_REPLY if notice.dispute else "Reply to this mail with your move as its first line"
        said = "." if notice.dispute else " (in the game's notation)."
        msg.set_content(f"{how}{said}\n\n" + text)
        msg.add_alternative(notice.html(public_url, unsubscribe, sheet=True).replace(
            "<body>", f"<body><p>{html.escape(how)}.</p>", 1), subtype="html")
        return msg
    # Without a reply address the turn's mail still holds the position, the moves and the deadline.
    msg.set_content(notice.text(public_url, unsubscribe, sheet=True))
    msg.add_alternative(notice.html(public_url, unsubscribe, sheet=True), subtype="html")
    return msg


def digest_mail(cfg: MailSettings, notices: Sequence[Notice], to: str, public_url: str, unsubscribe: str,
                key: str) -> EmailMessage:
    waiting = sorted({n.game for n in notices if n.kind == "turn"})
    subject = f"boardlog: {len(notices)} notice{'s' if len(notices) != 1 else ''}" + (
        f", {len(waiting)} game{'s' if len(waiting) != 1 else ''} waiting on you" if waiting else "")
    msg = _mail(cfg, subject, to, unsubscribe, key)
    text = "\n\n".join("\n".join([n.subject(), *n.lines(public_url)]) for n in notices)
    msg.set_content(text + f"\n\n--\nStop these mails: {unsubscribe}\n")
    # A subject holds seat names, which players choose: "<a href=…>" in one is text, not a link.
    body = "".join(f"<h3>{html.escape(n.subject())}</h3>" + n.html(public_url).removeprefix("<!doctype html><html><body>")
                   .removesuffix("</body></html>") for n in notices)
    msg.add_alternative(f"<!doctype html><html><body>{body}<p><a href=\"{html.escape(unsubscribe, quote=True)}\">"
                        "Stop these mails</a></p></body></html>", subtype="html")
    return msg


async def send_mail_async(cfg: MailSettings, msg: EmailMessage) -> None:
    import aiosmtplib  # here: only the processes that send mail pay for the import

    if not cfg.host:
        raise SendFailed("no SMTP server is set (BOARDLOG_SMTP_HOST)")
    try:
        await aiosmtplib.send(
            msg, hostname=cfg.host, port=cfg.port, username=cfg.user or None, password=cfg.password or None,
            use_tls=cfg.tls == "tls", start_tls=cfg.tls == "starttls", timeout=cfg.timeout)
    except aiosmtplib.SMTPException as e:
        raise SendFailed(f"SMTP: {type(e).__name__}: {str(e)[:200]}") from None
    except OSError as e:
        raise SendFailed(f"SMTP server {cfg.host}:{cfg.port} out of reach: {e.strerror or e}") from None


_loops = threading.local()


def send_mail(cfg: MailSettings, msg: EmailMessage) -> None:
    """Send from a worker thread, on an event loop that thread keeps."""
    loop = getattr(_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _loops.loop = asyncio.new_event_loop()
    loop.run_until_complete(send_mail_async(cfg, msg))


# The Apprise services a target may name: each sends over the network, by HTTP(S) or SMTP, to
# its provider or to the host the URL names, which the egress guard resolves and checks. Apprise
# has others that act on the sending machine itself (syslog://, a desktop's windows://, dbus://,
# macosx://) or speak UDP or long-lived sockets (rsyslog://, irc://, aprs://) that the guard does
# not see through: a player's URL must never reach those. An allow-list, so a service a new
# Apprise adds stays out until it is read and listed here.
APPRISE_SCHEMES = frozenset({
    "apprise", "apprises", "bark", "barks", "bluesky", "bsky", "chime", "dingtalk", "discord", "feishu",
    "flock", "form", "forms", "gchat", "gotify", "gotifys", "guilded", "hassio", "hassios", "ifttt", "join",
    "json", "jsons", "lark", "line", "mailgun", "mailto", "mailtos", "mastodon", "mastodons", "matrix",
    "matrixs", "misskey", "misskeys", "mmost", "mmosts", "nclouds", "ncloud", "nctalk", "nctalks", "ntfy",
    "ntfys", "opsgenie", "pagerduty", "pbul", "pover", "psafer", "psafers", "pushed", "revolt", "rocket",
    "rockets", "ryver", "sendgrid", "ses", "signal", "signals", "slack", "sns", "sparkpost", "spush",
    "synology", "synologys", "tgram", "threema", "toot", "toots", "twilio", "webex", "wecombot",
    "whatsapp", "workflow", "workflows", "wxteams", "xml", "xmls", "zulip",
})


def apprise_scheme(url: str) -> str | None:
    """Why this URL's scheme is not one a target may use; None when it is."""
    scheme, sep, _ = url.partition("://")
    if not sep or not scheme:
        return "not an Apprise URL (service://...)"
    if scheme.lower() not in APPRISE_SCHEMES:
        return (f"{scheme}:// is not an Apprise service a target may use: only services that send over the "
                "network (discord://, tgram://, slack://, ntfys://, mailtos://, json://, ...; the list is "
                "in docs/notifications.md)")
    return None


def check_apprise(url: str) -> str | None:
    """Why Apprise cannot use this URL; None when it can."""
    import apprise  # here: loading its plugins takes a while, and few processes need them

    why = apprise_scheme(url)
    if why is not None:
        return why
    if not apprise.Apprise().add(url):
        return "not an Apprise URL this service can send to (see Apprise's list of services)"
    return None


# The notice's own links, kept whole (a token in one may hold '_'); a bracket, quote or '@' of a
# name written against one ends it.
_URL = re.compile(r"(https?://[^\s\\`\[\]<>|\"'@]+)")  # a group: split keeps the links
_MARKDOWN = re.compile(r"([\\`*_~\[\]<>|])")
_MENTIONS = re.compile(r"([\\`*_~\[\]<>|@])")


def markdown_text(text: str, mentions: bool = False) -> str:
    """Plain text that a Markdown service shows as written: a seat named "[sign in](https://…)"
    is not a link, "*ann*" not emphasis; with `mentions`, "@everyone" pings nobody. The links
    the notice gives stay whole (a backslash in them would break them)."""
    chars = _MENTIONS if mentions else _MARKDOWN
    # split's odd parts are the links
    return "".join(part if i % 2 else chars.sub(r"\\\1", part) for i, part in enumerate(_URL.split(text)))


# Services that read Markdown and mentions in plain text as well: Discord links "[x](url)" and
# pings the channel for "@everyone" in a webhook's text, whatever Apprise's format.
_MARKDOWN_ALWAYS = frozenset({"discord"})


def apprise_text(service: Any, title: str, body: str) -> tuple[str, str, str]:
    """The title, body and body format to give Apprise for this service (one of its plugins).
    The notice is plain text, and seat names in it are whatever players chose. Said so, Apprise
    escapes it for a service that reads HTML (Telegram, mail), where unsaid it went in as HTML:
    a name's "<a href=…>" was a link, and its lines ran together. Apprise passes text to a
    Markdown service as it is, so for one the text is escaped here."""
    from apprise import NotifyFormat

    if service.notify_format == NotifyFormat.MARKDOWN:
        return markdown_text(title), markdown_text(body), NotifyFormat.MARKDOWN
    protocols = service.secure_protocol
    if not _MARKDOWN_ALWAYS.isdisjoint({protocols} if isinstance(protocols, str) else set(protocols or ())):
        return markdown_text(title, mentions=True), markdown_text(body, mentions=True), NotifyFormat.TEXT
    return title, body, NotifyFormat.TEXT


def notice_tag(key: str, repeat: bool = False) -> str:
    """The end of an Apprise message: the notice's short id (the Message-ID's, a mail's), by
    which a chat reader tells a repeat sent after a crash from news; a repeat says so."""
    short = hashlib.sha256(key.encode()).hexdigest()[:10]
    return f"\n\n(notice {short}, a repeat)" if repeat else f"\n\n(notice {short})"


def send_apprise(url: str, title: str, body: str) -> None:
    import apprise

    why = apprise_scheme(url)  # a target stored before the list was
    if why is not None:
        raise SendFailed(why)
    # In this thread, never a pool's: the egress guard (service/usecases/notifications/egress.py) watches this one.
    sender = apprise.Apprise(asset=apprise.AppriseAsset(async_mode=False))
    if not sender.add(url):
        raise SendFailed("the Apprise URL is no longer valid")
    title, body, fmt = apprise_text(sender[0], title, body)
    with apprise.LogCapture(level=logging.WARNING) as captured:
        ok = sender.notify(title=title, body=body, body_format=fmt)
        said = captured.getvalue().strip().splitlines()
    if not ok:
        last = said[-1].split(" - ", 2)[-1] if said else "the service refused the notice"
        raise SendFailed(f"Apprise: {last[:200]}")


def check_webhook_url(url: str) -> str | None:
    """Why this cannot be a webhook URL; None when it can."""
    try:
        p = urlsplit(url)
    except ValueError:
        return "not a URL"
    if p.scheme not in ("http", "https") or not p.hostname:
        return "only http:// and https:// URLs with a host"
    if p.username or p.password:
        return "no user or password in the URL (the signature authenticates the sender)"
    return None


def webhook_client(timeout: float) -> httpx.Client:
    """The client a sender keeps for its webhooks (making one costs tens of ms of CPU: its TLS
    context); thread-safe, redirects never followed on their own."""
    import httpx  # here: most processes that import this module never send a webhook

    return httpx.Client(timeout=timeout, follow_redirects=False)


def send_webhook(client: httpx.Client, url: str, secret: str, key: str, payload: dict[str, Any],
                 timeout: float) -> None:
    """POST the payload signed per Standard Webhooks (`webhook-id` is the notice's idempotency
    key, so a receiver can drop a redelivery). A redirect is followed only to the same host."""
    import httpx
    from standardwebhooks import Webhook

    body = orjson.dumps(payload).decode()
    now = datetime.now(UTC)
    headers = {"content-type": "application/json", "webhook-id": key,
               "webhook-timestamp": str(int(now.timestamp())),
               "webhook-signature": Webhook(secret).sign(key, now, body),
               "user-agent": "boardlog-webhooks"}
    host = urlsplit(url).hostname
    try:
        for _ in range(MAX_REDIRECTS + 1):
            r = client.post(url, content=body, headers=headers, timeout=timeout)
            if not r.is_redirect:
                break
            nxt = str(r.next_request.url) if r.next_request is not None else ""
            if urlsplit(nxt).hostname != host or check_webhook_url(nxt):
                raise SendFailed(f"HTTP {r.status_code}: a redirect to another host is not followed")
            url = nxt
        else:
            raise SendFailed("too many redirects")
    except httpx.TimeoutException:
        raise SendFailed(f"no answer within {timeout:g} s") from None
    except httpx.HTTPError as e:
        raise SendFailed(f"{type(e).__name__}: {str(e)[:200]}") from None
    if not 200 <= r.status_code < 300:
        raise SendFailed(f"HTTP {r.status_code} from the receiver")
