"""Reply to play: a turn mail's (and a reminder's) Reply-To is `play+<one-time token>@<reply
domain>`; the reply's own text (above or below the quoted mail, plain or HTML) holds one command
in the game's notation. The token is bound to the seat's turn as its notice asked it, not to the
raw seq: steps after it that leave the game's state and prompt as they were (the clock's
bookkeeping after every move, table talk, a reminder) do not void it; a move that changed them
does, and the answer says which. The answer goes back by mail: accepted, with the new position
and the move's signed receipt (as text and attached); refused, with the reason and the legal
commands; or too late, with what changed.

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
from typing import Any, Protocol

import orjson
import structlog

from events.domain.match import COMMAND_ACCEPTED, Match, fold_match
from events.domain.platform.disputes import RESOLVE, open_dispute
from events.store.commandids import client_key
from events.store.store import EventStore
from projections.replay import match_at
from rules.core import Command, InvalidCommand
from service.stores.notifications import TargetStore
from service.stores.players import digest
from service.usecases.notifications.channels import MailSettings, SendFailed, masked, send_mail
from service.usecases.notifications.notices import GAME_TITLES, last_move, step_groups
from workers.notifications.replytext import END_MARKS, reply_lines

log = structlog.get_logger("boardlog.mail_in")

# A ruling's line: "uphold: the roll stands", "Void - mis-entered" (any case; ":" or a dash).
_RULING = re.compile(r"^(uphold|upheld|void|voided)\s*(?::|-|\u2013|\u2014)\s*(.*)$", re.I | re.S)
ANSWER_WAIT_SECONDS = 15.0
LEGAL_SHOWN = 30
# Tries of a reply's move when other steps keep coming first (each one's turn still standing).
MAX_TRIES = 5


def reply_address(token: str, domain: str) -> str:
    return f"play+{token}@{domain}"


def token_of(address: str, domain: str) -> str | None:
    """The token of a `play+<token>@<domain>` address; None for any other address."""
    m = re.fullmatch(r"play\+([0-9a-f]{32})@(.+)", address.strip().strip("<>"), re.I)
    if m is None or m.group(2).lower() != domain.lower():
        return None
    return m.group(1).lower()


def reply_text(msg: EmailMessage) -> str | None:
    """The reply's own lines (workers/notifications/replytext.py), one a line; None: it has none."""
    return "\n".join(reply_lines(msg)) or None


def first_line(msg: EmailMessage) -> str | None:
    """The reply's first line of its own text."""
    lines = reply_lines(msg)
    return lines[0] if lines else None


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


class Receipts(Protocol):
    """Who signs an accepted move's receipt (the signing keys)."""

    def receipt(self, game: str, seq: int, head: str, at: str) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Standing:
    """Whether a reply token's turn still stands: the match now, and what changed the seat's
    prompt since the token's seq (empty: nothing did)."""

    now: Match
    changed: tuple[str, ...]

    @property
    def stands(self) -> bool:
        return not self.changed and not self.now.over


class ReplyPlayer:
    """Plays a reply's command for the seat its token names, and mails the answer."""

    def __init__(self, store: EventStore, targets: TargetStore, enqueue: Callable[[str, str], object],
                 mail: MailSettings, domain: str, public_url: str, keys: Receipts | None = None) -> None:
        self.store, self.targets, self.enqueue = store, targets, enqueue
        self.mail, self.domain, self.public_url = mail, domain, public_url.rstrip("/")
        self.keys = keys

    def known(self, token: str) -> bool:
        return self.targets.peek_reply(token)

    def standing(self, gid: str, seat: int, seq: int) -> Standing:
        """The seat's turn as the token's notice asked it, now. Steps that leave the game's state
        and prompt as they were (the clock's bookkeeping after every move, table talk, a
        reminder) do not void it; the game moves that changed them do, told in words."""
        now = match_at(self.store, gid)
        if now.seq <= seq:
            return Standing(now, ())
        before = match_at(self.store, gid, seq)
        if before.state == now.state and before.prompt == now.prompt and not now.over:
            return Standing(now, ())
        changed: list[str] = []
        for group in step_groups(self.store.read(gid, seq + 1, now.seq)):
            after = fold_match((e.event for e in group), gid, before)
            if group[0].event.type == COMMAND_ACCEPTED and (after.state != before.state or after.prompt != before.prompt):
                changed.append(last_move(before, group[0], seat))
            before = after
        return Standing(now, tuple(changed) or ("the game ended",))

    def play(self, token: str, text: str | None, subject: str = "") -> Outcome:
        """Play the reply's own text (`text`: the lines the writer wrote, one a line) for the
        token's seat: one command, in the game's notation."""
        ctx = self.targets.use_reply(token)
        if ctx is None:
            log.info("reply.unknown_token")
            return Outcome("unknown", "")
        lines = [line for line in (text or "").splitlines() if line.strip()]
        if "rule" in ctx:
            return RulingByMail(self).rule(ctx, token, lines[0] if lines else None)
        gid, seat, seq = ctx["game"], int(ctx["seat"]), int(ctx["seq"])
        bound = log.bind(game=gid, seat=seat, seq=seq, player=ctx["player"])
        now = self.standing(gid, seat, seq)
        title = f"{GAME_TITLES.get(now.now.game, now.now.game.capitalize())} {gid}"
        if not now.stands:
            return self._late(ctx, title, now)
        if not lines:
            return self._refused(ctx, title, now.now, "the reply held no command above the quoted mail")
        read = self._command(now.now, seat, lines)
        if isinstance(read, str):
            return self._refused(ctx, title, now.now, read)
        command, said = read
        for attempt in range(MAX_TRIES):
            # The seat's own command (its key scoped to the seat, events.store.commandids).
            cid = client_key(f"seat:{seat}", "mail-" + digest(token)[:32] + (f"-{attempt}" if attempt else ""))
            self.store.put_pending(gid, cid, {**command.to_json(), "expect": now.now.seq}, int(time.time() * 1000))
            self.enqueue(gid, cid)
            result = self._wait(gid, cid) or {}
            if result.get("status") != "conflict":
                break
            # Another step came first (often the clock's bookkeeping of the last move): look
            # again whether the turn still stands, and if it does, play on the game as it is.
            now = self.standing(gid, seat, seq)
            if not now.stands:
                return self._late(ctx, title, now)
        if result.get("status") == "accepted":
            return self._accepted(ctx, title, said, result, bound)
        reason = str(result.get("message") or "no answer in time (the move may still be applied)")
        return self._refused(ctx, title, match_at(self.store, gid), reason)

    def _command(self, match: Match, seat: int, lines: list[str]) -> tuple[Command, str] | str:
        """The one command the reply's lines hold, and its line; or why there is none. A line
        that is no command (a greeting, a thank-you) is passed over; two commands are refused,
        as the reply would not say which to play."""
        read: list[tuple[Command, str]] = []
        first_error = ""
        for line in lines:
            try:
                read.append((match.rules.parse_text(line, seat), line))
            except InvalidCommand as e:
                first_error = first_error or e.message
        if len(read) > 1:
            return (f"one move a reply: this one holds {len(read)} "
                    f"({'; '.join(repr(line) for _, line in read[:3])}); reply again with the one you mean")
        if not read:
            return first_error or "the reply held no command"
        return read[0]

    def _accepted(self, ctx: dict[str, Any], title: str, said: str, result: dict[str, Any],
                  bound: Any) -> Outcome:
        gid, seat = str(ctx["game"]), int(ctx["seat"])
        after = match_at(self.store, gid)
        receipt = self._receipt(gid, result)
        text = f"Accepted: {said}\n\n{self._position(after, seat)}\n\nYour seat: {self.public_url}/games/{gid}"
        if receipt is not None:
            text += ("\n\nYour receipt for this move, signed by the service (attached as a file too; "
                     f"`boardlog audit --receipt <file> <record>` checks a record holds it):\n{_json(receipt)}")
        again = None
        prompt = after.prompt
        if prompt is not None and seat in prompt.seats:
            # Still this seat's to play (a move of several steps): its next step by replying to this.
            again = self.targets.reply_token({**ctx, "seq": after.seq})
            every = [after.rules.format_text(c) for c in after.rules.legal_commands(after.state, seat)]
            text += ("\n\nIt is still your turn: reply to this mail with your next move. What you may send now:\n"
                     + "\n".join(f"  {c}" for c in every[:LEGAL_SHOWN]))
        out = Outcome("accepted", text)
        bound.info("reply.accepted", command=result.get("id"))
        self._answer(ctx, f"Re: {title}: accepted", out.text, again, receipt)
        return out

    def _receipt(self, gid: str, result: dict[str, Any]) -> dict[str, Any] | None:
        seqs = result.get("seq")
        if self.keys is None or not isinstance(seqs, list) or not seqs:
            return None
        envs = self.store.read(gid, int(seqs[-1]), int(seqs[-1]))
        if not envs:
            return None
        return self.keys.receipt(gid, envs[0].seq, envs[0].hash, envs[0].at)

    def _late(self, ctx: dict[str, Any], title: str, now: Standing) -> Outcome:
        """Too late: what changed the seat's prompt since its mail, and a fresh reply address
        when the turn is still (or again) the seat's."""
        gid, seat = str(ctx["game"]), int(ctx["seat"])
        moved = "The game is over" if now.now.over else "The game has moved on since that mail"
        text = f"{moved}: nothing was played."
        if now.changed:
            text += "\n\nWhat changed since:\n" + "\n".join(f"  {c}" for c in now.changed[-10:])
        prompt = now.now.prompt
        again = None
        if prompt is not None and seat in prompt.seats:
            again = self.targets.reply_token({**ctx, "seq": now.now.seq})
            text += f"\n\n{self._position(now.now, seat)}\nReply to this mail with your move to play it now."
        text += f"\n\nYour seat: {self.public_url}/games/{gid}"
        log.info("reply.stale", game=gid, seat=seat, seq=ctx["seq"], now=now.now.seq)
        self._answer(ctx, f"Re: {title}: too late", text, again)
        return Outcome("stale", text)

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
        every = [match.rules.format_text(c) for c in match.rules.legal_commands(match.state, seat)]
        legal = every[:LEGAL_SHOWN]
        more = f"\n  … and {len(every) - LEGAL_SHOWN} more, on your seat" if len(every) > LEGAL_SHOWN else ""
        text = (f"Not played: {reason}\n\nWhat you may send now (one move, as the first line of a reply to this "
                "mail):\n" + "\n".join(f"  {c}" for c in legal) + more
                + f"\n\nYour seat: {self.public_url}/games/{ctx['game']}")
        log.info("reply.refused", game=ctx["game"], seat=seat, reason=reason[:200])
        prompt = None if match.over else match.prompt
        again = self.targets.reply_token({**ctx, "seq": match.seq}) if prompt is not None and seat in prompt.seats \
            else None
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

    def _answer(self, ctx: dict[str, Any], subject: str, text: str, token: str | None,
                receipt: dict[str, Any] | None = None) -> None:
        msg = EmailMessage()
        msg["Subject"] = subject
        msg["From"] = self.mail.sender
        msg["To"] = ctx["address"]
        msg["Date"] = format_datetime(datetime.now(UTC))
        msg["Message-ID"] = make_msgid(domain="boardlog")
        msg["Auto-Submitted"] = "auto-replied"
        if token is not None:
            msg["Reply-To"] = reply_address(token, self.domain)
        # The last line: a reply that pastes this mail unmarked and writes below it is read below it.
        msg.set_content(f"{text}\n\n{END_MARKS[1]}\n")
        if receipt is not None:
            msg.add_attachment(_json(receipt).encode(), maintype="application", subtype="json",
                               filename=f"receipt-{receipt.get('game')}-{receipt.get('seq')}.json")
        try:
            send_mail(self.mail, msg)
        except SendFailed as e:
            log.warning("reply.answer_failed", game=ctx["game"], to=masked(ctx["address"]), error=str(e))


def _json(obj: Any) -> str:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode()


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
        cid = client_key("referee", "mail-" + digest(token)[:32])
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
