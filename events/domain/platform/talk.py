"""Table talk: seats and the referee post plain-text messages to the game; the admin can hide an
abusive one. The referee's message has no seat: it is marked `"referee": true` (the HTTP layer
marks the referee's command so, and only it can), and every reader shows it as the referee's.

A message is a `boardlog.MessagePosted` event in the game's log (so replay shows it and the audit
re-runs it); hiding appends `boardlog.MessageHidden`, and the original stays in the record: only
the views (the chat, the move list) say "hidden by the admin". Both may follow the end.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from events.domain.matchstate import Match
from events.domain.names import deceptive
from events.domain.platform.base import Context, Fold, PlatformCommand
from rules.core import Command, Event, IllegalCommand

POST = "boardlog.post"
HIDE = "boardlog.hide"
MESSAGE_POSTED = "boardlog.MessagePosted"
MESSAGE_HIDDEN = "boardlog.MessageHidden"
MAX_TEXT = 2000
MAX_REASON = 200
KEY = "talk"

# Line breaks and tabs are text; anything else names refuse (events.domain.names.deceptive: NUL,
# escapes, the bidirectional overrides that make a message read backwards...) is refused.
_ALLOWED_CONTROLS = frozenset("\n\t")


@dataclass(frozen=True, slots=True)
class Message:
    seq: int  # the seq of its MessagePosted event: the message's id
    seat: int | None  # None: the referee's
    text: str
    at: str
    on: int | None = None  # the seq of the command it comments, when sent with one
    hidden: bool = False

    @property
    def referee(self) -> bool:
        return self.seat is None


@dataclass(frozen=True, slots=True)
class Talk:
    messages: tuple[Message, ...] = ()


NO_TALK = Talk()  # a match with no messages: one shared (frozen) value, as the clock's NO_CLOCK


def talk_of(match: Match) -> Talk:
    found = match.platform.get(KEY)
    return found if isinstance(found, Talk) else NO_TALK


def text_problem(text: Any, names_rule: bool = True) -> IllegalCommand | None:
    """Why `text` cannot be a message (None: it can): 1 to 2,000 characters of plain text.
    `names_rule` False: the rule of games made before the one name rule (no "talk_rule" in
    their GameCreated), which refused only control, format and surrogate characters: their
    records re-run under it, so a message they accepted stays accepted."""
    if not isinstance(text, str):
        return IllegalCommand("bad_message", "'text' is the message, a string")
    if len(text) > MAX_TEXT:
        return IllegalCommand("message_too_long", f"a message is at most {MAX_TEXT} characters, not {len(text)}")
    if not text.strip():
        return IllegalCommand("message_empty", "a message has at least one character besides spaces")
    if not names_rule:
        for ch in text:
            if ch not in _ALLOWED_CONTROLS and unicodedata.category(ch) in ("Cc", "Cf", "Cs"):
                return IllegalCommand("bad_message", f"a message is plain text: character U+{ord(ch):04X} is not")
        return None
    found = deceptive(text, _ALLOWED_CONTROLS)
    if found is not None:
        return IllegalCommand("bad_message", f"a message is plain text, and holds {found[1]}")
    return None


def _post(match: Match, command: Command, context: Context) -> list[Event]:
    seat, args = command.seat, command.args
    by_referee = seat is None and args.get("referee") is True and match.referee is not None
    if not by_referee and (seat is None or not 0 <= seat < len(match.seats)):
        raise IllegalCommand("seat_required", "a message is posted by a seat or the game's referee")
    extra = set(args) - {"text", "on", "referee"}
    if extra:
        raise IllegalCommand("bad_args", f"unknown fields: {sorted(extra)}")
    problem = text_problem(args.get("text"), match.settings.get("talk_rule") == "names")
    if problem is not None:
        raise problem
    who: dict[str, Any] = {"referee": True} if by_referee else {"seat": seat}
    data: dict[str, Any] = {**who, "text": args["text"], "at": context.at}
    on = args.get("on")
    if on is not None:
        # Set by the worker for a command's comment: the seq of that command's CommandAccepted.
        if not isinstance(on, int) or isinstance(on, bool) or not 1 <= on <= match.seq:
            raise IllegalCommand("bad_args", "'on' is the seq of the command the message comments")
        data["on"] = on
    return [Event(MESSAGE_POSTED, data, seat)]


def _hide(match: Match, command: Command, context: Context) -> list[Event]:
    args = command.args
    seq = args.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise IllegalCommand("bad_args", "'seq' is the seq of the message to hide")
    found = next((m for m in talk_of(match).messages if m.seq == seq), None)
    if found is None:
        raise IllegalCommand("unknown_message", f"no message at seq {seq}")
    if found.hidden:
        raise IllegalCommand("already_hidden", f"the message at seq {seq} is hidden already")
    reason = args.get("reason", "")
    if not isinstance(reason, str) or len(reason) > MAX_REASON:
        raise IllegalCommand("bad_args", f"'reason' is a text of at most {MAX_REASON} characters")
    return [Event(MESSAGE_HIDDEN, {"seq": seq, "reason": reason, "at": context.at}, None)]


def _with(match: Match, talk: Talk) -> Match:
    return replace(match, platform=MappingProxyType({**match.platform, KEY: talk}))


def _fold_posted(match: Match, event: Event) -> Match:
    d = event.data
    on = d.get("on")
    seat = None if d.get("referee") is True else int(d["seat"])
    message = Message(match.seq, seat, str(d["text"]), str(d.get("at", "")), on if isinstance(on, int) else None)
    return _with(match, Talk((*talk_of(match).messages, message)))


def _fold_hidden(match: Match, event: Event) -> Match:
    seq = event.data["seq"]
    talk = talk_of(match)
    return _with(match, Talk(tuple(replace(m, hidden=True) if m.seq == seq else m for m in talk.messages)))


COMMANDS: dict[str, PlatformCommand] = {
    POST: PlatformCommand(_post, who="seat_or_referee", after_end=True),
    HIDE: PlatformCommand(_hide, who="admin", after_end=True),
}
EVENTS: dict[str, Fold] = {MESSAGE_POSTED: _fold_posted, MESSAGE_HIDDEN: _fold_hidden}


def hidden_in_log(rows: list[dict[str, Any]], match: Callable[[], Match]) -> list[dict[str, Any]]:
    """Log rows (envelopes as JSON) with each message the admin hid since shown as hidden: its
    text left out, `hidden` said; the hash stays the original's (the record keeps the text).
    `match` gives the match at the head, asked only when the rows hold a message."""
    if not any(r.get("type") == MESSAGE_POSTED for r in rows):
        return rows
    hidden = {m.seq for m in talk_of(match()).messages if m.hidden}
    for r in rows:
        if r.get("type") == MESSAGE_POSTED and r.get("seq") in hidden:
            r["data"] = {**r["data"], "text": None, "hidden": "hidden by the admin"}
            r["redacted"] = True
    return rows
