"""Notification targets on the player's page: add (an email target waits for its address's
confirmation, service/api/confirmations.py), list (with "this target is failing" and the
last error), change which events notify, test and remove; quiet hours; the Atom feed; the
unsubscribe link of every mail; and signing in by a link mailed to the player's address.

A webhook's signing secret and a feed's key are answered once, by the request that made them.
"""

from __future__ import annotations

import html
import re
import time
import unicodedata
import uuid
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlsplit

import structlog
from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from events.domain.names import deceptive, display_name
from service.api.auth import Caller, check_origin, current_player, request_scheme
from service.api.credentials import set_session_cookies
from service.api.errors import ApiError
from service.api.mails import ask_confirmation, count_mail_to, link_mail, send
from service.api.parts import ApiParts, parts
from service.api.players import email_of, limited, player_json
from service.api.responses import html_page, json_response
from service.api.schemas import EMAIL_PATTERN
from service.api.seats import claim_by_digest
from service.stores.notifications import Quiet, Target, with_choices
from service.stores.players import HeldSeat, Player, SignUp
from service.usecases.matches import principal_of, token_digest
from service.usecases.notifications.channels import (
    SendFailed,
    check_apprise,
    check_webhook_url,
    masked,
)
from service.usecases.notifications.egress import Egress
from service.usecases.notifications.notices import Notice
from service.usecases.notifications.ports import Notifications
from service.usecases.notifications.quiet import check_quiet

log = structlog.get_logger("boardlog.api")

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]
EventName = Literal["turn", "over"]
# Where a mailed link may lead back to: a path of this site (never //host, never a scheme).
_NEXT = re.compile(r"/(?![/\\])[A-Za-z0-9/_.~%?=&-]*")
ADDRESS_CHARS = 2000


class NewTarget(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    kind: Literal["email", "apprise", "webhook", "atom"]
    address: str | None = Field(None, max_length=ADDRESS_CHARS, description=(
        "email: the address (default: the player's own); apprise: an Apprise URL (discord://, "
        "tgram://, ntfys://, json://, ...); webhook: an http(s) URL; atom: none. A webhook or Apprise "
        "URL must reach a public address (not loopback, private or link-local) unless the operator "
        "allows its network"))
    events: list[EventName] = Field(default=["turn", "over"], description="which notices: turn, over")
    digest: bool = Field(False, description="email only: one mail a day with every notice instead of one a notice")


class TargetChange(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    events: list[EventName] | None = None
    digest: bool | None = None


class QuietHours(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    tz: str = Field("UTC", max_length=64, description="an IANA time zone, like Europe/Paris")
    start: str = Field("", description="HH:MM; empty (with end empty) turns quiet hours off")
    end: str = Field("", description="HH:MM: notices held during the hours are sent then")


class KeptSeat(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    game: str = Field(min_length=1, max_length=40)
    token: str = Field(min_length=1, max_length=100, description="the seat's (or referee's) token, from its link")


class SigninMail(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    email: str = Field(max_length=254, pattern=EMAIL_PATTERN)
    next: str | None = Field(None, max_length=200, description="the page of this site the link leads to")
    seat: KeptSeat | None = Field(None, description="a seat to claim for the player as the link signs them in")


class SignUpMail(SigninMail):
    name: str = Field(max_length=200, description="the new player's display name")


class MagicToken(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    token: str = Field(min_length=1, max_length=100)


class LinkPreview(BaseModel):
    """One of the secrets a sign-in page finds in its address: a player key, a mailed sign-in
    link's token or a sign-up link's."""

    model_config = ConfigDict(extra="forbid", strict=True)
    key: str | None = Field(None, min_length=1, max_length=100)
    magic: str | None = Field(None, min_length=1, max_length=100)
    signup: str | None = Field(None, min_length=1, max_length=100)


class NoticePayload(BaseModel):
    """The JSON body of every webhook delivery, signed per the Standard Webhooks specification:
    headers `webhook-id` (the notice's idempotency key: drop a delivery whose id you have seen),
    `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256>` of
    `id.timestamp.body` with the target's secret, shown once when the target was added)."""

    type: Literal["boardlog.notice.turn", "boardlog.notice.over", "boardlog.notice.reminder",
                  "boardlog.notice.timeout", "boardlog.notice.ask", "boardlog.notice.dropped",
                  "boardlog.notice.conduct", "boardlog.notice.dispute", "boardlog.notice.dispute_reminder",
                  "boardlog.notice.message"]
    id: str = Field(description="the idempotency key: game:seq:player:target (a dropped queue of "
                    "conditional moves: game:seq:player:target:dropped)")
    game: str
    game_type: str
    seq: int = Field(description="the game's seq after the step that called for the notice")
    seat: int | None = Field(description="the notified seat; null for the referee's notices")
    role: Literal["seat", "referee"] = Field(description="whom the notice is for: a seat, or the game's referee "
                                                         "(dispute, dispute_reminder, message)")
    seat_name: str
    asked: str = Field(description="what the turn asks, in the game's own words as this seat may read them "
                                   "(the command types where the game has none), or the outcome when over, as told to "
                                   "this seat ('you won (resigned: ann)', 'bob won'); a "
                                   "reminder: the deadline on the player's clock (the zone of their quiet "
                                   "hours, UTC until set), as 'at 15:00 on Thu 3 Dec (Europe/Paris)'; a "
                                   "timeout: who ran out of time and what follows")
    last_move: str = Field(description="the last move in words, as this seat may see it")
    at: str = Field(description="when that move was accepted (ISO 8601, UTC)")
    deadline: str | None = Field(None, description="a reminder's deadline (ISO 8601, UTC); null for other notices")
    dispute: int | None = Field(None, description="the referee's notices: the seq of the open dispute's "
                                                  "DisputeOpened (the ruling view's and a ruling's `dispute`)")
    turn: str | None = Field(None, description="a conduct notice to a seat it gives the turn to (a void): what "
                                               "the turn asks")
    url: str = Field(description="the seat's page; for the referee, the ruling view (`/games/<gid>#dispute=<seq>`)")


def _shown(t: Target, failing: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out = t.public()
    bad = failing.get(t.id)
    out["failing"] = None if bad is None else {"error": bad["error"], "at": bad["at"], "gave_up": bool(bad.get("dead"))}
    return out


@router.get("/v1/me/targets", summary="The signed-in player's notification targets, failing ones with their last error")
async def list_targets(who: Me, request: Request) -> Response:
    n = parts(request).notifications
    pid = who.player.id
    targets, failing, dead, quiet = await run_in_threadpool(
        lambda: (n.targets.targets(pid), n.targets.failing(pid), n.targets.dead_letters(pid), n.targets.quiet(pid)))
    own = who.player.email
    email = None if own is None else {"address": own, "confirmed": await parts(request).players.email_confirmed(who.player),
                                      "pending": who.player.email_pending}
    return json_response({"targets": [_shown(t, failing) for t in targets], "dead_letters": dead,
                          "quiet": {"tz": quiet.tz, "start": quiet.start, "end": quiet.end}, "email": email})


def _plain(raw: str) -> str:
    """The address in NFC; 422 naming the first character names' rule refuses in it: an address
    is shown on the player's page and in logs, where a bidi override (U+202E) would show a URL
    reversed and a zero-width or control character would make two addresses look one."""
    found = deceptive(raw)  # positions as the sender wrote it, before NFC joins any characters
    address = unicodedata.normalize("NFC", raw)
    if found is not None:
        raise ApiError(422, "bad_target", f"address: holds {found[1]}, which an address may not hold")
    return address


def _address(body: NewTarget, who: Caller, egress: Egress) -> str:
    if body.kind == "atom":
        if body.address:
            raise ApiError(422, "bad_target", "an Atom feed takes no address: its URL is answered")
        return ""
    raw = _plain((body.address or "").strip())
    if body.kind == "email":
        address = email_of(raw or who.player.email)
        if address is None:
            raise ApiError(422, "bad_target", "address: the email address (you have none set on your player)")
        return address
    if not raw:
        raise ApiError(422, "bad_target", f"address: the {body.kind} URL")
    why = check_apprise(raw) if body.kind == "apprise" else check_webhook_url(raw)
    if not why:
        why = _unreachable(raw, body.kind, egress)
    if why:
        raise ApiError(422, "bad_target", f"address: {why}")
    return raw


def _unreachable(url: str, kind: str, egress: Egress) -> str | None:
    """Why a URL's host is one targets may not reach: a name must resolve, now, to public
    addresses only. An Apprise URL's host is often a token (discord://<id>/<token>): only an
    address, a localhost name or a dotted name is looked up here, and the send resolves and
    checks every host it connects to whatever the URL."""
    p = urlsplit(url)
    host = p.hostname or ""
    if kind == "apprise" and not ("." in host or ":" in host or host.lower().startswith("localhost")):
        return None
    try:
        port = p.port or (443 if p.scheme.endswith("s") else 80)
    except ValueError:
        return "the port is not a number from 0 to 65535"
    return egress.check_host(host, port)


@router.post("/v1/me/targets", status_code=201, summary="Add a notification target")
async def add_target(body: NewTarget, who: Me, request: Request) -> Response:
    """A webhook's answer holds its signing `secret`, and a feed's its `feed_url` (with its key):
    the only time either is shown. An email target of an address the player has not confirmed
    waits for the link mailed to it (`confirmation_mailed` says whether it went), and is sent
    nothing until then."""
    if body.digest and body.kind != "email":
        raise ApiError(422, "bad_target", "digest: only an email target sends a daily digest")
    if not body.events:
        raise ApiError(422, "bad_target", "events: at least one of turn, over")
    n = parts(request).notifications
    pid = who.player.id
    address = await run_in_threadpool(_address, body, who, n.config.egress)
    confirmed = body.kind != "email" or await parts(request).players.address_confirmed(pid, address)
    mailed = None if confirmed else await ask_confirmation(request, pid, who.player.name, address)
    t, shown = await run_in_threadpool(n.targets.add, pid, body.kind, address,
                                       list(dict.fromkeys(body.events)), body.digest, confirmed)
    log.info("target.added", player=pid, target=t.id, channel=t.kind, to=masked(address) if address else None,
             confirmed=confirmed)
    out: dict[str, Any] = {"target": _shown(t, {})}
    if mailed is not None:
        out["confirmation_mailed"] = mailed
    if t.kind == "webhook":
        out["secret"] = shown
    if t.kind == "atom":
        out["feed_url"] = f"/me/feed.atom?key={shown}"
    return json_response(out, 201, {"Cache-Control": "no-store"})


async def own_target(request: Request, who: Caller, tid: str) -> Target:
    """The signed-in player's target `tid`; 404 for none of theirs."""
    t = await run_in_threadpool(parts(request).notifications.targets.target, who.player.id, tid)
    if t is None:
        raise ApiError(404, "unknown_target", f"you have no target {tid!r}")
    return t


@router.patch("/v1/me/targets/{tid}", summary="Change which events a target is told of, or its digest")
async def change_target(tid: str, body: TargetChange, who: Me, request: Request) -> Response:
    t = await own_target(request, who, tid)
    if body.events is not None and not body.events:
        raise ApiError(422, "bad_target", "events: at least one of turn, over (or remove the target)")
    if body.digest and t.kind != "email":
        raise ApiError(422, "bad_target", "digest: only an email target sends a daily digest")
    changed = with_choices(t, None if body.events is None else list(dict.fromkeys(body.events)), body.digest)
    if not await run_in_threadpool(parts(request).notifications.targets.update, changed):
        raise ApiError(404, "unknown_target", f"you have no target {tid!r}")
    return json_response({"target": _shown(changed, {})})


@router.delete("/v1/me/targets/{tid}", status_code=204, summary="Remove a target")
async def remove_target(tid: str, who: Me, request: Request) -> Response:
    if not await run_in_threadpool(parts(request).notifications.targets.remove, who.player.id, tid):
        raise ApiError(404, "unknown_target", f"you have no target {tid!r}")
    log.info("target.removed", player=who.player.id, target=tid)
    return Response(status_code=204)


@router.post("/v1/me/targets/{tid}/test", summary="Send a test notice to a target now")
async def test_target(tid: str, who: Me, request: Request) -> Response:
    """Answers whether it went through and, if not, why (the target then shows as failing)."""
    t = await own_target(request, who, tid)
    if not t.confirmed:
        raise ApiError(409, "address_unconfirmed", f"{t.address} is not confirmed yet: open the link mailed to it "
                       "(or ask for another), then test")
    n = parts(request).notifications
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    notice = Notice("test", "boardlog", 0, 0, who.player.name, "turn", "a test: nothing to do", "", now)
    key = f"test-{uuid.uuid4().hex[:12]}"
    try:
        await run_in_threadpool(n.send_test, t, notice, key)
    except SendFailed as e:
        await run_in_threadpool(n.targets.failed, key, t, t.kind, str(e))
        return json_response({"sent": False, "error": str(e)})
    return json_response({"sent": True})


@router.put("/v1/me/quiet", summary="Quiet hours: notices are held from start to end, in the player's time zone")
async def set_quiet(body: QuietHours, who: Me, request: Request) -> Response:
    why = check_quiet(body.tz, body.start, body.end)
    if why:
        raise ApiError(422, "bad_quiet_hours", why)
    targets = parts(request).notifications.targets
    await run_in_threadpool(targets.set_quiet, who.player.id, Quiet(body.tz, body.start, body.end))
    return json_response({"tz": body.tz, "start": body.start, "end": body.end})


@router.get("/me/feed.atom", summary="A player's notices as an Atom feed (the key from the feed target)")
async def atom_feed(request: Request, key: Annotated[str, Query(max_length=100)] = "") -> Response:
    n = parts(request).notifications
    t = await run_in_threadpool(n.targets.by_token, key) if key else None
    if t is None or t.kind != "atom":
        raise ApiError(404, "unknown_feed", "no feed with that key (it was removed, or the link is incomplete)")
    entries = await run_in_threadpool(n.targets.feed_entries, t.player, t.id)
    # Newest first by when the move was made: the jobs of a burst finish in any order.
    entries.sort(key=lambda e: (e["at"], e["game"], e["seq"]), reverse=True)
    from feedgen.feed import FeedGenerator  # here: lxml only for the processes that serve feeds

    base = n.config.public_url.rstrip("/")
    fg = FeedGenerator()
    fg.id(f"urn:boardlog:feed:{t.player}:{t.id}")
    fg.title("boardlog: your notices")
    fg.author({"name": "boardlog"})
    fg.link(href=f"{base}/me", rel="alternate")
    fg.updated(entries[0]["at"] if entries else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t.created)))
    for e in entries:  # newest first, as stored
        fe = fg.add_entry(order="append")
        fe.id(f"urn:boardlog:notice:{e['key']}")
        fe.title(e["title"])
        fe.updated(e["at"])
        fe.published(e["at"])
        fe.link(href=f"{base}/games/{e['game']}" if e["game"] != "test" else f"{base}/me")
        fe.content(e["body"], type="text")
    return Response(fg.atom_str(pretty=True), media_type="application/atom+xml",
                    headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


_UNSUB_PAGE = ("<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width'>"
               "<title>Unsubscribe · boardlog</title><link rel=stylesheet href=/static/style.css><main>{body}</main></html>")


@router.get("/unsubscribe/{token}", summary="The unsubscribe page of a mail's link: asks before removing its target")
async def unsubscribe_page(token: str, request: Request) -> HTMLResponse:
    t = await run_in_threadpool(parts(request).notifications.targets.by_token, token)
    if t is None:
        return html_page(_UNSUB_PAGE.format(body="<h1>Already unsubscribed</h1><p>This link's target is gone.</p>"), 404)
    body = (f"<h1>Stop these mails?</h1><p>boardlog will send no more notices to {html.escape(masked(t.address))}.</p>"
            f"<form method=post><button type=submit>Unsubscribe</button></form>")
    return html_page(_UNSUB_PAGE.format(body=body))


@router.post("/unsubscribe/{token}", summary="One-click unsubscribe (RFC 8058): removes the mail's target")
async def unsubscribe(token: str, request: Request) -> HTMLResponse:
    """The token is the capability (the mail's `List-Unsubscribe` link): no sign-in, no Origin
    check, as RFC 8058 asks, since a mail client posts it from no page."""
    n = parts(request).notifications
    t = await run_in_threadpool(n.targets.by_token, token)
    if t is None or t.kind == "atom":
        return html_page(_UNSUB_PAGE.format(body="<h1>Already unsubscribed</h1>"), 404)
    await run_in_threadpool(n.targets.remove, t.player, t.id)
    log.info("target.unsubscribed", player=t.player, target=t.id, channel=t.kind)
    return html_page(_UNSUB_PAGE.format(body=f"<h1>Unsubscribed</h1><p>No more notices to {html.escape(masked(t.address))}.</p>"))


@router.post("/v1/signin-mail", status_code=202, summary="Mail a one-time sign-in link to a player's address")
async def signin_mail(body: SigninMail, request: Request) -> Response:
    """Always 202 (whether a player has the address is not told); the link, valid 15 minutes
    and once, goes to the player who set that address, through the notices' SMTP server. `next`:
    the page the link leads to once signed in; `seat`: a seat (or the referee's role) whose link
    the asker holds, claimed for the player as the link signs them in."""
    address, back, seat = await _mail_request(request, body.email, body.next, body.seat)
    n = parts(request).notifications
    pid = await run_in_threadpool(n.targets.player_by_email, address)
    if pid is not None:
        await _mail_link(request, address, pid, back, seat)
    return json_response({"sent": "if a player has that address, a sign-in link is on its way (valid 15 minutes)"},
                         202, {"Cache-Control": "no-store"})


@router.post("/v1/signup", status_code=202, summary="Sign up: mail a one-time link that makes the player")
async def signup(body: SignUpMail, request: Request) -> Response:
    """Always the same 202, whether or not the address is a player's already (no account
    probing): a new address gets the link that makes the player, a known one a sign-in link
    instead. Limited per client (BOARDLOG_SIGNIN_MAILS_PER_MINUTE) and per address, with
    sign-in and confirmation mails (BOARDLOG_MAILS_PER_ADDRESS_HOUR)."""
    name = display_name(body.name, "your name")
    address, back, seat = await _mail_request(request, body.email, body.next, body.seat)
    p = parts(request)
    pid = await run_in_threadpool(p.notifications.targets.player_by_email, address)
    if pid is not None:
        await _mail_link(request, address, pid, back, seat)
    else:
        token = await p.players.hold_signup(SignUp(name, address, seat))
        await _mail_signup(p.notifications, address, name, _link(p.notifications, "signup", token, back))
    return json_response({"sent": "a link to finish signing up is on its way to that address (valid 15 minutes, once)"},
                         202, {"Cache-Control": "no-store"})


async def _mail_request(request: Request, raw: str, back: str | None,
                        seat: KeptSeat | None) -> tuple[str, str | None, HeldSeat | None]:
    """The address, the page to come back to and the seat to keep of a request for a mailed
    link, checked, and counted against the limits per client (a minute's) and per address (an
    hour's, `count_mail_to`): 429 past them."""
    if request.headers.get("origin") or request.headers.get("referer"):
        check_origin(request)
    address = email_of(raw.strip())
    assert address is not None
    if back is not None and not _NEXT.fullmatch(back):
        raise ApiError(422, "bad_next", "next: a path of this site, like /games/<id>")
    held = None if seat is None else HeldSeat(seat.game, token_digest(seat.token))
    p = parts(request)
    client = request.client.host if request.client else "unknown"
    # Sign-up and sign-in links count together: both are a mail sent at a visitor's word.
    wait = await p.limits.take("mail-link-client", client, p.settings.signin_mails_per_minute)
    if wait:
        raise ApiError(429, "rate_limited", f"too many links asked for from your network address this minute; "
                       f"try again in {wait} s", {"Retry-After": str(wait)})
    # The same answer for a known address and an unknown one: the count is of asks.
    await count_mail_to(request, address)
    return address, back, held


def _link(n: Notifications, kind: str, token: str, back: str | None) -> str:
    tail = "" if back is None else "&next=" + quote(back, safe="/")
    return f"{n.config.public_url.rstrip('/')}/signin#{kind}={token}{tail}"


async def _mail_link(request: Request, address: str, pid: str, back: str | None, seat: HeldSeat | None) -> None:
    p = parts(request)
    n = p.notifications
    token = await run_in_threadpool(n.targets.magic_link, pid)
    if seat is not None:
        await p.players.hold_seat(token, seat)
    link = _link(n, "magic", token, back)
    await send(n, link_mail(
        n, address, "boardlog: your sign-in link",
        f"Open this link to sign in to boardlog (once, within 15 minutes):\n\n{link}\n\n"
        "If you did not ask for it, ignore this mail: nobody is signed in without the link.\n",
        f'<p><a href="{link}">Sign in to boardlog</a> (once, within 15 minutes).</p>'
        "<p>If you did not ask for it, ignore this mail.</p>"), "signin_mail", pid)


async def _mail_signup(n: Notifications, address: str, name: str, link: str) -> None:
    await send(n, link_mail(
        n, address, "boardlog: finish signing up",
        f"Someone (you, we hope) asked to make the boardlog player {name} with this address.\n"
        f"Open this link to make it and sign in (once, within 15 minutes):\n\n{link}\n\n"
        "If you did not ask for it, ignore this mail: nothing is made without the link.\n",
        f"<p>Someone (you, we hope) asked to make the boardlog player {html.escape(name)} with this address.</p>"
        f'<p><a href="{link}">Make the player and sign in</a> (once, within 15 minutes).</p>'
        "<p>If you did not ask for it, ignore this mail.</p>"), "signup_mail", "new")


@router.post("/v1/sessions/magic", status_code=201, summary="Sign this device in with a mailed one-time link")
async def magic_sign_in(body: MagicToken, request: Request) -> Response:
    """Signs the device in; a seat the link keeps (`seat` of its request) is claimed for the
    player now (`claimed`: the claim's answer, or its error)."""
    if request.headers.get("origin") or request.headers.get("referer"):
        check_origin(request)
    p = parts(request)
    refused = await limited(request, "sessions", p.settings.signins_per_minute)
    if refused is not None:
        return refused
    pid = await run_in_threadpool(p.notifications.targets.use_magic, body.token)
    player = None if pid is None else await p.players.player(pid)
    if player is None:
        raise ApiError(401, "bad_magic_link", "that sign-in link is used, expired or wrong: ask for another")
    claimed = await _claim_held(p, await p.players.take_seat(body.token), player.id)
    log.info("session.created", player=player.id, by="mail")
    return await _signed_in(request, player, {"claimed": claimed})


@router.post("/v1/sessions/preview", summary="Whom a key or a mailed link would sign in, using nothing")
async def preview_link(body: LinkPreview, request: Request) -> Response:
    """`{"key"}`, `{"magic"}` or `{"signup"}` (one of them) -> `{"kind", "name", "keeps"}`: the
    player the secret signs in as (a sign-up's: the one it makes) and the seat the mailed link
    keeps (`{"game", "role", "seat"}`, or null). The sign-in page shows "Sign in as <name>?" and
    signs in only on a click, so a link someone else made cannot sign a browser in by being
    opened. The secret stays usable; 401 with the sign-in's own code when it is not one."""
    given = [(k, v) for k, v in (("key", body.key), ("magic", body.magic), ("signup", body.signup)) if v]
    if len(given) != 1:
        raise ApiError(422, "bad_request", "send one of key, magic or signup: the secret from the sign-in link")
    p = parts(request)
    refused = await limited(request, "preview", p.settings.signins_per_minute)
    if refused is not None:
        return refused
    kind, secret = given[0]
    name, seat = await _previewed(p, kind, secret)
    keeps = None if seat is None else await _kept(p, seat)
    return json_response({"kind": kind, "name": name, "keeps": keeps}, 200, {"Cache-Control": "no-store"})


async def _previewed(p: ApiParts, kind: str, secret: str) -> tuple[str, HeldSeat | None]:
    """The name a secret signs in as and the seat it keeps; 401 saying why it signs in nobody."""
    if kind == "signup":
        wanted = await p.players.peek_signup(secret)
        if wanted is None:
            raise ApiError(401, "bad_signup_link", "that sign-up link is used, expired or wrong: sign up again")
        return wanted.name, wanted.seat
    if kind == "magic":
        pid = await run_in_threadpool(p.notifications.targets.peek_magic, secret)
        player = None if pid is None else await p.players.player(pid)
        if player is None:
            raise ApiError(401, "bad_magic_link", "that sign-in link is used, expired or wrong: ask for another")
        return player.name, await p.players.peek_seat(secret)
    found = await p.players.by_key(secret)
    if found is None:
        raise ApiError(401, "bad_key", "that is not a player key here")
    return found.name, None


async def _kept(p: ApiParts, seat: HeldSeat) -> dict[str, Any] | None:
    """What a kept seat's token holds, for the page to name (None: no longer anything)."""
    try:
        held = principal_of((await p.reads.head(seat.game, seat.token_digest, "")).role)
    except ValueError:  # not a game id: the request named a game that never was
        return None
    if held is None:
        return None
    return {"game": seat.game, "role": "referee" if held.referee else "seat", "seat": held.seat}


@router.post("/v1/signup/complete", status_code=201, summary="Make the player of a mailed sign-up link and sign in")
async def complete_signup(body: MagicToken, request: Request) -> Response:
    """The link proves the address: the player is made with it confirmed (the sign-in mail goes
    there), this device is signed in, and the seat the sign-up kept is claimed. Once: a link
    used, expired or wrong is 401 `bad_signup_link`, and nothing is made."""
    if request.headers.get("origin") or request.headers.get("referer"):
        check_origin(request)
    p = parts(request)
    refused = await limited(request, "sessions", p.settings.signins_per_minute)
    if refused is not None:
        return refused
    wanted = await p.players.take_signup(body.token)
    if wanted is None:
        raise ApiError(401, "bad_signup_link", "that sign-up link is used, expired or wrong: sign up again")
    player, key = await p.players.create(wanted.name, wanted.email, confirmed=True)
    log.info("player.created", player=player.id, by="signup")
    claimed = await _claim_held(p, wanted.seat, player.id)
    # The key is the way in without mail: shown here once, as POST /v1/players shows it.
    return await _signed_in(request, player, {"claimed": claimed, "key": key})


async def _claim_held(p: ApiParts, seat: HeldSeat | None, pid: str) -> dict[str, Any] | None:
    """The claim of a seat a mailed link kept: its answer, or `{"error": ...}` saying why not
    (the sign-in stands either way)."""
    if seat is None:
        return None
    try:
        return await claim_by_digest(p, seat.game, seat.token_digest, pid)
    except ApiError as e:
        return {"game": seat.game, "error": {"code": e.code, "message": e.message}}


async def _signed_in(request: Request, player: Player, extra: dict[str, Any]) -> Response:
    session, secret = await parts(request).players.open_session(player.id, request.headers.get("user-agent", ""))
    response = json_response({"session": session.id, "player": player_json(player), **extra}, 201,
                             {"Cache-Control": "no-store"})
    set_session_cookies(response, secret, secure=request_scheme(request) == "https")
    return response


def install_webhooks(app: FastAPI) -> None:
    """The webhook deliveries in the OpenAPI description (its `webhooks` section)."""

    @app.webhooks.post("notice", summary="A notice for a player's seat, to a webhook target")
    def notice(body: NoticePayload) -> None:  # documentation only: boardlog sends it
        """Answer 2xx within the target's timeout; anything else is retried with backoff, and a
        target failing every try shows as failing on the player's page."""
