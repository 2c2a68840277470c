"""Reply to play: a turn mail's Reply-To is `play+<one-time token>@<reply domain>`; the reply's
first line is a command in the game's notation, posted with `expect` set to the notice's seq,
and the answer goes back by mail (accepted with the new position, refused with the reason and
the legal commands, or stale when the game moved on).

Reply to rule: a referee's dispute mail has such an address too, bound to the dispute; the
reply's first line is "uphold: <reason>" or "void: <reason>" (`RulingByMail`).

The token is the only credential: the `From` header, which anyone can forge, is never read.
It is single-use (taken as it is read, so a reply delivered twice applies once); a refused
command's answer carries a fresh token for the same prompt, and a stale one carries none.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any

import structlog

from events.domain.platform.disputes import RESOLVE, open_dispute
from events.store.store import EventStore
from projections.replay import match_at
from rules.core import Command, InvalidCommand
from service.stores.notifications import TargetStore
from service.stores.players import digest
from service.usecases.notifications.channels import MailSettings, SendFailed, masked, send_mail
from service.usecases.notifications.notices import GAME_TITLES

log = structlog.get_logger("boardlog.mail_in")

# A quoted line, or the line that introduces a quote ("On Tue, boardlog wrote:"): passed over, so
# a reply written below the quote (bottom-posted) is read too.
_QUOTED = re.compile(r"^(>|on .+ wrote:?$)", re.I)
# Where the reply ends: its signature, or a forwarded copy of the mail that is not quoted.
_REPLY_END = re.compile(r"^(--|-----\s*original message|from:\s)", re.I)
# A ruling's line: "uphold: the roll stands", "Void - mis-entered" (any case; ":" or a dash).
_RULING = re.compile(r"^(uphold|upheld|void|voided)\s*(?::|-|\u2013|\u2014)\s*(.*)$", re.I | re.S)
ANSWER_WAIT_SECONDS = 15.0
LEGAL_SHOWN = 20


def reply_address(token: str, domain: str) -> str:
    return f"play+{token}@{domain}"


def token_of(address: str, domain: str) -> str | None:
    """The token of a `play+<token>@<domain>` address; None for any other address."""
    m = re.fullmatch(r"play\+([0-9a-f]{32})@(.+)", address.strip().strip("<>"), re.I)
    if m is None or m.group(2).lower() != domain.lower():
        return None
    return m.group(1).lower()


def first_line(msg: EmailMessage) -> str | None:
    """The reply's first line of text, above any quoted mail or signature."""
    part = msg.get_body(preferencelist=("plain",))
    if part is None:
        return None
    for raw in part.get_content().splitlines():
        line = raw.strip()
        if not line or _QUOTED.match(line):
            continue
        if _REPLY_END.match(line):
            return None
        return line
    return None


def ruling_of(line: str | None) -> tuple[str, str] | None:
    """The verdict ("upheld" | "voided") and reason a reply's line gives; None for no ruling."""
    m = _RULING.match((line or "").strip())
    if m is None:
        return None
    return ("upheld" if m.group(1).lower().startswith("uphold") or m.group(1).lower() == "upheld" else "voided",
            m.group(2).strip())


@dataclass(frozen=True, slots=True)
class Outcome:
    status: str  # accepted | refused | stale | unknown
    text: str


class ReplyPlayer:
    """Plays a reply's command for the seat its token names, and mails the answer."""

    def __init__(self, store: EventStore, targets: TargetStore, enqueue: Callable[[str, str], object],
                 mail: MailSettings, domain: str, public_url: str) -> None:
        self.store, self.targets, self.enqueue = store, targets, enqueue
        self.mail, self.domain, self.public_url = mail, domain, public_url.rstrip("/")

    def known(self, token: str) -> bool:
        return self.targets.peek_reply(token)

    def play(self, token: str, text: str | None, subject: str = "") -> Outcome:
        ctx = self.targets.use_reply(token)
        if ctx is None:
            log.info("reply.unknown_token")
            return Outcome("unknown", "")
        if "rule" in ctx:
            return RulingByMail(self).rule(ctx, token, text)
        gid, seat, seq = ctx["game"], int(ctx["seat"]), int(ctx["seq"])
        bound = log.bind(game=gid, seat=seat, seq=seq, player=ctx["player"])
        match = match_at(self.store, gid)
        game = match.rules
        title = f"{GAME_TITLES.get(match.game, match.game.capitalize())} {gid}"
        if match.seq != seq or match.over:
            moved = "The game is over" if match.over else "The game has moved on since that mail"
            out = Outcome("stale", f"{moved}: nothing was played. Your seat: {self.public_url}/games/{gid}")
            bound.info("reply.stale", now=match.seq)
            self._answer(ctx, f"Re: {title}: too late", out.text, None)
            return out
        if not text:
            return self._refused(ctx, title, match, "the reply's first line held no command")
        try:
            command = game.parse_text(text, seat)
        except InvalidCommand as e:
            return self._refused(ctx, title, match, e.message)
        cid = "mail-" + digest(token)[:32]
        self.store.put_pending(gid, cid, {**command.to_json(), "expect": seq}, int(time.time() * 1000))
        self.enqueue(gid, cid)
        result = self._wait(gid, cid)
        status = (result or {}).get("status")
        if status == "accepted":
            after = match_at(self.store, gid)
            now = self._position(after, seat)
            out = Outcome("accepted", f"Accepted: {text}\n\n{now}\n\nYour seat: {self.public_url}/games/{gid}")
            bound.info("reply.accepted", command=cid)
            self._answer(ctx, f"Re: {title}: accepted", out.text, None)
            return out
        if status == "conflict":
            out = Outcome("stale", "The game moved on before your move arrived: nothing was played. "
                                   f"Your seat: {self.public_url}/games/{gid}")
            self._answer(ctx, f"Re: {title}: too late", out.text, None)
            return out
        reason = (result or {}).get("message") or "no answer in time (the move may still be applied)"
        return self._refused(ctx, title, match_at(self.store, gid), reason)

    def _position(self, match: Any, seat: int) -> str:
        names = [s.name for s in match.seats]
        if match.over:
            return "The game is over."
        describe = getattr(match.rules, "describe_prompt", None)
        if describe is not None:
            try:
                return f"Now: {describe(match.state, seat, names)}"
            except Exception:
                pass
        prompt = match.prompt
        return "Now: " + (", ".join(names[s] for s in prompt.seats) + " to play" if prompt else "nobody to play")

    def _refused(self, ctx: dict[str, Any], title: str, match: Any, reason: str) -> Outcome:
        seat = int(ctx["seat"])
        legal = [match.rules.format_text(c) for c in list(match.rules.legal_commands(match.state, seat))[:LEGAL_SHOWN]]
        text = (f"Not played: {reason}\n\nWhat you may send now (the first line of a reply to this mail):\n"
                + "\n".join(f"  {c}" for c in legal) + f"\n\nYour seat: {self.public_url}/games/{ctx['game']}")
        log.info("reply.refused", game=ctx["game"], seat=seat, reason=reason[:200])
        again = self.targets.reply_token(ctx) if not match.over and match.seq == int(ctx["seq"]) else None
        self._answer(ctx, f"Re: {title}: not played", text, again)
        return Outcome("refused", text)

    def _wait(self, gid: str, cid: str) -> dict[str, Any] | None:
        deadline = time.monotonic() + ANSWER_WAIT_SECONDS
        while time.monotonic() < deadline:
            got = self.store.result(gid, cid)
            if got is not None:
                return got
            time.sleep(0.05)
        return None

    def _answer(self, ctx: dict[str, Any], subject: str, text: str, token: str | None) -> None:
        msg = EmailMessage()
        msg["Subject"] = subject
        msg["From"] = self.mail.sender
        msg["To"] = ctx["address"]
        msg["Date"] = format_datetime(datetime.now(UTC))
        msg["Message-ID"] = make_msgid(domain="boardlog")
        msg["Auto-Submitted"] = "auto-replied"
        if token is not None:
            msg["Reply-To"] = reply_address(token, self.domain)
        msg.set_content(text + "\n")
        try:
            send_mail(self.mail, msg)
        except SendFailed as e:
            log.warning("reply.answer_failed", game=ctx["game"], to=masked(ctx["address"]), error=str(e))


def open_dispute_of(store: EventStore) -> Callable[[str], int | None]:
    """The seq of a game's open dispute (None: none is open), as a dispute's reminder asks it."""

    def seq(gid: str) -> int | None:
        d = open_dispute(match_at(store, gid))
        return None if d is None else d.seq

    return seq


class RulingByMail:
    """Reply to rule: the referee's reply to a dispute's mail, whose first line is "uphold:
    <reason>" or "void: <reason>", sends `boardlog.resolve` as the referee for the dispute its
    token is bound to, and the answer goes back by mail (ruled; not ruled, with why and a fresh
    reply address; too late, when the dispute was settled since)."""

    def __init__(self, player: ReplyPlayer) -> None:
        self.p = player

    def rule(self, ctx: dict[str, Any], token: str, line: str | None) -> Outcome:
        p, gid, dispute = self.p, str(ctx["game"]), int(ctx["rule"])
        bound = log.bind(game=gid, dispute=dispute, player=ctx["player"])
        match = match_at(p.store, gid)
        title = f"{GAME_TITLES.get(match.game, match.game.capitalize())} {gid}"
        link = f"{p.public_url}/games/{gid}#dispute={dispute}"
        still = open_dispute(match)
        if still is None or still.seq != dispute or match.over:
            out = Outcome("stale", f"That dispute is settled already: nothing was ruled. The game: {link}")
            bound.info("ruling.stale")
            p._answer(ctx, f"Re: {title}: too late", out.text, None)
            return out
        ruling = ruling_of(line)
        if ruling is None:
            return self._refused(ctx, title, link, 'the reply\'s first line is no ruling: write "uphold: <reason>" '
                                 'or "void: <reason>"')
        verdict, reason = ruling
        if not reason:
            return self._refused(ctx, title, link, "a ruling gives its reason, which every seat reads")
        cid = "mail-" + digest(token)[:32]
        command = Command(RESOLVE, {"verdict": verdict, "reason": reason, "dispute": dispute, "referee": True}, None)
        p.store.put_pending(gid, cid, command.to_json(), int(time.time() * 1000))
        p.enqueue(gid, cid)
        result = p._wait(gid, cid) or {}
        if result.get("status") == "accepted":
            word = "upheld" if verdict == "upheld" else "voided"
            out = Outcome("accepted", f"Ruled: the disputed move is {word} ({reason}). Every seat is told.\n\n"
                                      f"The game: {link}")
            bound.info("ruling.accepted", command=cid, verdict=verdict)
            p._answer(ctx, f"Re: {title}: ruled, {word}", out.text, None)
            return out
        return self._refused(ctx, title, link, str(result.get("message") or "no answer in time (the ruling may "
                                                                            "still be applied)"))

    def _refused(self, ctx: dict[str, Any], title: str, link: str, reason: str) -> Outcome:
        p = self.p
        text = (f"Not ruled: {reason}\n\nReply to this mail with a first line \"uphold: <your reason>\" or "
                f"\"void: <your reason>\", or rule on the page: {link}")
        log.info("ruling.refused", game=ctx["game"], dispute=ctx["rule"], reason=reason[:200])
        match = match_at(p.store, str(ctx["game"]))
        d = open_dispute(match)
        again = p.targets.reply_token(ctx) if d is not None and d.seq == int(ctx["rule"]) else None
        p._answer(ctx, f"Re: {title}: not ruled", text, again)
        return Outcome("refused", text)
