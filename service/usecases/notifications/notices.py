"""What a notice says, and which notices a game's new events call for.

Pure: from a match before and after a command's events, the seats to tell (a turn arriving, the
game's end, a conduct step in words) and, in a refereed game, what the referee is told (a dispute
opened, a message for them); and from a notice, its mail subject, plain and HTML bodies and
webhook payload. The last move is told as the notified seat may see it: the command record
redacted for that seat, then in words (the game's `describe_command` where it has one, else its
notation).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from events.domain.describe import MoveOf, describe_platform_event, no_moves
from events.domain.match import COMMAND_ACCEPTED, Match, command_of
from events.domain.platform import clock as clocks
from events.domain.platform.base import Context
from events.domain.platform.clock import REMINDER_DUE, TURN_TIMED_OUT
from events.domain.platform.conduct import PROPOSED, remaining
from events.domain.platform.disputes import DISPUTE_OPENED, DISPUTE_RESOLVED, open_dispute
from events.domain.platform.takeback import TAKEBACK_ASKED
from events.domain.platform.talk import MESSAGE_POSTED
from events.domain.positiontext import position_text
from events.records.envelope import Envelope
from projections.readmodels import view_of
from rules.core import Command, IllegalCommand, InvalidCommand
from rules.words import asked, listing

GAME_TITLES = {"rite": "Rite", "factions": "Factions: Battlegrounds", "dragondale": "Dragon Dale"}
# A notice's seat when it is the referee's: the referee holds no seat.
REFEREE = -1
# The referee's notices: a dispute opened, the reminder of one still unruled, a message for them.
REFEREE_KINDS = ("dispute", "dispute_reminder", "message")
# Whose idempotency key says its kind: news beside another notice of the same seq.
_KEYED_KINDS = ("dropped", "dispute_reminder")
SUBJECT_WORDS = 120
# A turn mail lists this many legal moves, then links to the seat for the rest.
LEGAL_LISTED = 30

# The moves since a seat's own last one, in words as that seat sees them (the notifier reads
# the log for them): `since(seat, seq)`.
Since = Callable[[int, int], Sequence[str]]


def no_history(seat: int, seq: int) -> Sequence[str]:
    return ()

# The move a dispute is about, in words as the referee reads it, from its CommandAccepted's seq.
MoveWords = Callable[[int], str]


def no_words(seq: int) -> str:
    return ""


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice for one player's seat, before it is addressed to a target."""

    game: str
    game_type: str
    seq: int  # the last event of the command that called for it
    seat: int
    seat_name: str
    # "turn" | "over" | "reminder" (a deadline nears) | "timeout" (a seat ran out of time) | "ask"
    # (another seat asks this one to accept or refuse: a draw, an abandonment, a takeback, a dispute)
    # | "dropped" (the seat's own queue of conditional moves was dropped: `asked` says why)
    # | "conduct" (a dispute opened in a refereed game, a ruling, a message: `asked` says it)
    # | the referee's (seat REFEREE): "dispute" (one opened: `asked` says it, `last` is the
    # disputed move), "dispute_reminder" (one still unruled), "message" (a message for them)
    kind: str
    asked: str  # what the turn asks, in words ("roll or note"); the outcome when over
    last: str  # the last move in words ("" at the start of a game)
    at: str  # when that command was accepted (ISO, UTC): notice latency counts from here
    deadline: str = ""  # a reminder's deadline (ISO, UTC), told in the player's own time zone
    dispute: int = 0  # the referee's notices: the open dispute's seq (its DisputeOpened's)
    turn: str = ""  # a conduct notice to a seat whose turn it now is: what the turn asks
    # A turn's mail: the moves since the seat's own last one (one a line), the position as the
    # seat may see it (the game's text board), its legal moves in notation (the first
    # LEGAL_LISTED, one a line, of `legal_count`), and the time zone its deadline is told in.
    since: str = ""
    board: str = ""
    legal: str = ""
    legal_count: int = 0
    zone: str = ""
    # The end ("over"): the final scores as the rules count them, in words ("ann 12, bob 9"; ""
    # when the game ended with none, e.g. by a resignation before the rules counted).
    scores: str = ""

    @property
    def choice(self) -> str:
        """The target choice (`events`) this notice goes by: a clock's reminder and timeout, a
        conduct step and what the referee is asked are news of a turn."""
        return "over" if self.kind == "over" else "turn"

    def key(self, player: str, target: str) -> str:
        """The idempotency key: one notice per (game, seq, player, target), ever. A queue dropped
        and a dispute's reminder are news beside the notice of the same seq, so their keys say so."""
        if self.kind in _KEYED_KINDS:
            return f"{self.game}:{self.seq}:{player}:{target}:{self.kind.rpartition('_')[2]}"
        return f"{self.game}:{self.seq}:{player}:{target}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Notice:
        return cls(**d)

    def in_zone(self, tz: str) -> Notice:
        """This notice as told to a player whose time zone is `tz` (their quiet hours' zone): a
        reminder names its deadline in that zone's clock time, and so does a turn's mail."""
        if not self.deadline:
            return self
        if self.kind != "reminder":
            return replace(self, zone=tz)
        return replace(self, asked=deadline_words(self.deadline, tz))

    @property
    def title(self) -> str:
        return GAME_TITLES.get(self.game_type, self.game_type.capitalize())

    def subject(self) -> str:
        said = _short(self.asked)
        if self.kind == "dispute":
            return f"{self.title} {self.game}: a dispute for you to rule — {said}"
        if self.kind == "dispute_reminder":
            return f"{self.title} {self.game}: reminder, a dispute waits for your ruling — {said}"
        if self.kind == "message":
            return f"{self.title} {self.game}: a message for the referee — {said}"
        if self.kind == "conduct":
            return f"{self.title} {self.game}: {said}"
        if self.kind == "reminder":
            return f"{self.title} {self.game}: reminder, your turn ends {self.asked}"
        if self.kind in ("timeout", "ask"):
            return f"{self.title} {self.game}: {self.asked}"
        if self.kind == "dropped":
            return f"{self.title} {self.game}: your queued moves were dropped"
        if self.kind == "over":
            return f"{self.title} {self.game}: the game is over, {self.asked}"
        # a dash, not brackets: the game's words often end in their own "(round 2)"
        return f"{self.title} {self.game}: your turn — {self.asked}"

    def seat_link(self, public_url: str) -> str:
        """The seat's board, naming the seat (`#seat=N`, no secret: opened where the player is not
        signed in, the board says "Sign in to play as <seat>" and leads back to it); the
        referee's goes straight to the ruling view of the dispute (the board page, opened on it:
        a referee signed in as a player needs no token, a token holder's browser keeps theirs)."""
        base = f"{public_url.rstrip('/')}/games/{self.game}"
        if self.seat == REFEREE:
            return f"{base}#dispute={self.dispute}" if self.dispute else base
        return f"{base}#seat={self.seat}"

    def replay_link(self, public_url: str) -> str:
        """The replay at this notice's step: what the last move changed, step by step."""
        return f"{public_url.rstrip('/')}/games/{self.game}/replay?seq={self.seq}"

    def lines(self, public_url: str) -> list[str]:
        if self.seat == REFEREE:
            return self._referee_lines(public_url)
        if self.kind == "conduct":
            return self._conduct_lines(public_url)
        if self.kind == "over":
            return self._over_lines(public_url)
        if self.kind == "reminder":
            first = f"it is still your turn in {self.title} {self.game}: your time runs out {self.asked}."
        elif self.kind == "timeout":
            first = f"in {self.title} {self.game}, {self.asked}."
        elif self.kind == "ask":
            first = f"in {self.title} {self.game}, {self.asked}: accept or refuse it on your seat."
        elif self.kind == "dropped":
            first = (f"your queue of conditional moves in {self.title} {self.game} was dropped: {self.asked}. "
                     "Play by hand, or queue again, on your seat.")
        else:
            first = f"it is your turn in {self.title} {self.game}: {self.asked}."
        out = [f"{self.seat_name}, {first}"]
        if self.kind == "turn" and self.deadline:
            out.append(f"Your time for it ends {deadline_words(self.deadline, self.zone or 'UTC')}.")
        if self.last:
            # the move in words, and where to see it: a seq here would be a number no page shows
            out.append(f"Last move: {self.last}")
            out.append(f"See it in the replay: {self.replay_link(public_url)}")
        out.append(f"Your seat: {self.seat_link(public_url)}")
        return out

    def _referee_lines(self, public_url: str) -> list[str]:
        where = f"{self.title} {self.game}"
        if self.kind == "message":
            out = [f"{self.seat_name}, a message for you as the referee of {where}: {self.asked}"]
        elif self.kind == "dispute_reminder":
            out = [f"{self.seat_name}, a dispute in {where} still waits for your ruling: {self.asked}",
                   "The game takes no moves until you rule."]
        else:
            out = [f"{self.seat_name}, you referee {where}: {self.asked}",
                   "The game takes no moves until you rule."]
        if self.last:
            out.append(f"The disputed move: {self.last}")
        if self.dispute:
            out.append(f"Rule on it (uphold or void, with a reason): {self.seat_link(public_url)}")
        else:
            out.append(f"The game: {self.seat_link(public_url)}")
        return out

    def _over_lines(self, public_url: str) -> list[str]:
        """The last mail: who won and why, the final scores, the last move, the replay from the
        start, the record to download and its audit, and the board, where "Play again" is."""
        base = f"{public_url.rstrip('/')}"
        out = [f"{self.seat_name}, the game is over: {self.asked}."]
        if self.scores:
            out.append(f"Final scores: {self.scores}.")
        if self.last:
            out.append(f"Last move: {self.last}")
        out += [f"Replay it from the start: {base}/games/{self.game}/replay?seq=1",
                f"Download the record: {base}/v1/games/{self.game}/export",
                f"Its audit (verified, unverifiable or failed): {base}/v1/games/{self.game}/audit",
                f"Play again, from the board: {self.seat_link(public_url)}"]
        return out

    def _conduct_lines(self, public_url: str) -> list[str]:
        out = [f"{self.seat_name}, in {self.title} {self.game}: {self.asked}"]
        if self.turn:
            out.append(f"It is your turn: {self.turn}.")
        out.append(f"See it in the replay: {self.replay_link(public_url)}")
        out.append(f"Your seat: {self.seat_link(public_url)}")
        return out

    def sheet(self, public_url: str) -> list[str]:
        """A turn's mail below its lines: what happened since the seat's last move, the position
        and every legal move (or the first LEGAL_LISTED and where the rest are): enough to play
        from the mail alone."""
        if self.kind not in ("turn", "reminder"):
            return []
        out: list[str] = []
        if self.since:
            out += ["", "Since your last move:", *(f"  {line}" for line in self.since.splitlines())]
        if self.board:
            out += ["", "The position as you see it:", *(f"  {line}" for line in self.board.splitlines())]
        if self.legal:
            out += ["", "Your legal moves (reply with one of them):", *(f"  {c}" for c in self.legal.splitlines())]
            listed = len(self.legal.splitlines())
            if self.legal_count > listed:
                out.append(f"  … and {self.legal_count - listed} more: {self.seat_link(public_url)}")
        return out

    def text(self, public_url: str, unsubscribe: str | None = None, sheet: bool = False) -> str:
        body = "\n".join(self.lines(public_url) + (self.sheet(public_url) if sheet else []))
        if unsubscribe:
            body += f"\n\n--\nStop these mails: {unsubscribe}\n"
        return body + "\n"

    def html(self, public_url: str, unsubscribe: str | None = None, sheet: bool = False) -> str:
        link = html.escape(self.seat_link(public_url), quote=True)
        if self.seat == REFEREE or self.kind in ("conduct", "over"):
            return self._html_lines(public_url, unsubscribe)
        parts = [f"<p>{html.escape(self.lines(public_url)[0])}</p>"]
        if self.kind == "turn" and self.deadline:
            parts.append(f"<p>{html.escape(self.lines(public_url)[1])}</p>")
        if self.last:
            replay = html.escape(self.replay_link(public_url), quote=True)
            parts.append(f"<p>Last move: <strong>{html.escape(self.last)}</strong> "
                         f'(<a href="{replay}">see it in the replay</a>)</p>')
        parts.append(f'<p><a href="{link}">Open your seat</a></p>')
        if sheet and self.sheet(public_url):
            # Notation and boards line up in a fixed font; every word is the players' or the game's: escaped.
            parts.append(f"<pre>{html.escape(chr(10).join(self.sheet(public_url)).strip())}</pre>")
        if unsubscribe:
            parts.append(f'<p style="color:#666;font-size:small"><a href="{html.escape(unsubscribe, quote=True)}">'
                         "Stop these mails</a></p>")
        return "<!doctype html><html><body>" + "".join(parts) + "</body></html>"

    def _html_lines(self, public_url: str, unsubscribe: str | None) -> str:
        """The referee's notices and a conduct step's: each line a paragraph, the links linked."""
        parts = []
        for line in self.lines(public_url):
            said, sep, url = line.rpartition(": ")
            if sep and url.startswith(("http://", "https://")):
                href = html.escape(url, quote=True)
                parts.append(f'<p><a href="{href}">{html.escape(said)}</a></p>')
            else:
                parts.append(f"<p>{html.escape(line)}</p>")
        if unsubscribe:
            parts.append(f'<p style="color:#666;font-size:small"><a href="{html.escape(unsubscribe, quote=True)}">'
                         "Stop these mails</a></p>")
        return "<!doctype html><html><body>" + "".join(parts) + "</body></html>"

    def payload(self, public_url: str, key: str) -> dict[str, Any]:
        """The webhook's JSON body (documented in the OpenAPI as NoticePayload)."""
        return {"type": f"boardlog.notice.{self.kind}", "id": key, "game": self.game, "game_type": self.game_type,
                "seq": self.seq, "seat": None if self.seat == REFEREE else self.seat,
                "role": "referee" if self.seat == REFEREE else "seat", "seat_name": self.seat_name,
                "asked": self.asked, "last_move": self.last, "at": self.at, "deadline": self.deadline or None,
                "dispute": self.dispute or None, "turn": self.turn or None, "url": self.seat_link(public_url)}


def _short(words: str) -> str:
    """Words as a subject holds them: one line, cut at SUBJECT_WORDS characters."""
    line = " ".join(words.split())
    return line if len(line) <= SUBJECT_WORDS else line[: SUBJECT_WORDS - 1].rstrip() + "…"


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def deadline_words(deadline: str, tz: str = "UTC") -> str:
    """A deadline as a player reads it on their own clock: "at 15:00 on Thu 3 Dec (Europe/Paris)"
    (an ISO instant told a player to work out their own offset). Seconds only where there are
    some (a clock of seconds); a zone that is no zone reads as UTC."""
    try:
        instant = datetime.fromisoformat(deadline.replace("Z", "+00:00"))
    except ValueError:
        return f"at {deadline}"
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone, tz = ZoneInfo("UTC"), "UTC"
    local = instant.astimezone(zone)
    clock = local.strftime("%H:%M:%S" if local.second else "%H:%M")
    # English names whatever the process's locale (strftime's %a and %b follow it)
    return f"at {clock} on {_DAYS[local.weekday()]} {local.day} {_MONTHS[local.month - 1]} ({tz})"


def _asked(match: Match, seat: int) -> str:
    """What the prompt asks of `seat`, in the game's own sentence as that seat may read it,
    without the names it starts with ("take an action, use a power or pass (round 2)"); where a
    game has no sentence, the commands that answer it ("note or roll")."""
    prompt = match.prompt
    if prompt is None:
        return ""
    try:
        said = str(match.rules.describe_prompt(match.state, seat, [s.name for s in match.seats]))
    except Exception:
        said = ""  # a game whose words fail here: its commands say it
    what = asked(said)
    if what:
        return what
    kinds = sorted(t.split(".", 1)[-1] for t in match.rules.answers(prompt))
    if not kinds:
        return prompt.kind
    return listing(kinds, joint="or")


def _outcome(match: Match, seat: int) -> str:
    """How the game ended, told to `seat`: "you won", "ann won", "you and bob won", with the
    reason when the game gives one ("ann won (resigned: bob)"); a game without a winner, its reason."""
    out = match.outcome()
    if out is None:
        return "ended"
    names = [s.name for s in match.seats]
    winners = [w for w in getattr(out, "winners", ()) if isinstance(w, int) and 0 <= w < len(names)]
    reason = str(getattr(out, "reason", "") or "")
    if not winners:
        return reason or "ended"
    who = ["you" if w == seat else names[w] for w in sorted(winners, key=lambda w: w != seat)]
    said = listing(who) + " won"
    return f"{said} ({reason})" if reason else said


def final_scores(match: Match) -> str:
    """The outcome's scores by seat, as the rules counted them: "ann 12, bob 9" ("" for none)."""
    out = match.outcome()
    scores = tuple(getattr(out, "scores", ()) or ())
    names = [s.name for s in match.seats]
    return ", ".join(f"{names[i] if i < len(names) else f'seat {i}'} {v}" for i, v in enumerate(scores))


def last_move(before: Match, accepted: Envelope | None, seat: int) -> str:
    """The command of `accepted` in words, as `seat` may see it."""
    if accepted is None:
        return ""
    game = before.rules
    command = command_of(accepted.event)
    try:
        seen = game.redact_command(command, seat)
    except Exception:
        seen = None
    if seen is None:
        return "a move you cannot see"
    return _in_words(before, seen, seat)


def referee_move(before: Match, accepted: Envelope) -> str:
    """The command of `accepted` in words as the referee reads it: everything shown (the
    referee reads every seat's secrets), told as to no seat."""
    return _in_words(before, command_of(accepted.event), None)


def _in_words(before: Match, seen: Command, seat: int | None) -> str:
    game = before.rules
    names = [s.name for s in before.seats]
    who = names[seen.seat] if seen.seat is not None and 0 <= seen.seat < len(names) else "someone"
    describe = getattr(game, "describe_command", None)
    if describe is not None:
        try:
            return str(describe(before.state, seen, seat, names))
        except Exception:
            pass  # a game whose words are not there yet: its notation says it
    try:
        return f"{who}: {game.format_text(seen)}"
    except Exception:
        return f"{who}: {seen.type}"


def step_groups(tail: Sequence[Envelope]) -> list[list[Envelope]]:
    """The tail cut where each command (or the game's creation) begins."""
    groups: list[list[Envelope]] = []
    for env in tail:
        if env.event.type == COMMAND_ACCEPTED or not groups:
            groups.append([env])
        else:
            groups[-1].append(env)
    return groups


def clock_notices(after: Match, group: Sequence[Envelope]) -> list[Notice]:
    """A clock's news in one step: a reminder to the seat whose deadline nears; when a seat ran
    out of time, every other seat is told what follows (under `pause`, that the game waits), and
    the seat itself what the platform did for it and how many more timeouts forfeit it."""
    names = [s.name for s in after.seats]
    out: list[Notice] = []
    last = group[-1]
    for env in group:
        t, d = env.event.type, env.event.data
        seat = d.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(names):
            continue
        if t == REMINDER_DUE:
            deadline = str(d.get("deadline", ""))
            out.append(Notice(after.gid, after.game, last.seq, seat, names[seat], "reminder",
                              deadline_words(deadline), "", last.at, deadline))
        elif t == TURN_TIMED_OUT:
            follows = {"pause": "the game waits for them", "forfeit": "they forfeit",
                       "skip": "the platform answered for them"}.get(str(d.get("action")), "")
            words = f"{names[seat]} ran out of time: {follows}" if follows else f"{names[seat]} ran out of time"
            out += [Notice(after.gid, after.game, last.seq, s.seat, s.name, "timeout", words, "", last.at)
                    for s in after.seats if s.seat != seat]
            out.append(Notice(after.gid, after.game, last.seq, seat, names[seat], "timeout", _own_timeout(d),
                              "", last.at))
    return out


def _own_timeout(d: Mapping[str, Any]) -> str:
    """A timeout told to the seat that ran out of time: what followed, and (a clock under the
    abandon rule) how many more in a row forfeit it."""
    action, n, limit = str(d.get("action")), d.get("in_a_row"), d.get("abandon_after")
    if action == "forfeit":
        times = f" {n} turns in a row" if isinstance(n, int) and n > 1 else ""
        return f"you ran out of time{times}: you forfeit, and the game goes on without you"
    follows = "the game waits for your move" if action == "pause" else "the game passed for you"
    words = f"you ran out of time; {follows}"
    if isinstance(n, int) and isinstance(limit, int) and limit > n:
        words += f"; {limit - n} more and you forfeit"
    return words


ASKING = (PROPOSED, TAKEBACK_ASKED, DISPUTE_OPENED)
_WAITS = ": the game waits for the referee's ruling"


def _said(after: Match, t: str, d: Mapping[str, Any], move_of: MoveOf) -> str:
    """A platform event in the move list's words, without its full stop."""
    return describe_platform_event(t, d, [s.name for s in after.seats], move_of, after.referee).text.rstrip(".")


def conduct_notices(after: Match, group: Sequence[Envelope], move_of: MoveOf = no_moves) -> list[Notice]:
    """A draw or an abandonment proposed, a takeback asked, a dispute opened in an unrefereed game:
    every other seat still playing is asked to answer. In a refereed game a dispute opened is
    told to every other seat still playing (the game waits for the referee); a ruling to every
    seat still playing, with its reason; a message to the seats
    the prompt names, other than its author (rather than their turn again). `move_of` numbers the
    move a takeback or a dispute is about, as the move list does."""
    names = [s.name for s in after.seats]
    first, last = group[0], group[-1]
    actor = first.event.seat if first.event.type == COMMAND_ACCEPTED else None
    playing = [s for s in remaining(after) if s != actor]
    out: list[Notice] = []

    def tell(seats: Sequence[int], kind: str, words: str) -> None:
        out.extend(Notice(after.gid, after.game, last.seq, s, names[s], kind, words, "", last.at) for s in seats)

    for env in group:
        t, d = env.event.type, env.event.data
        if t in ASKING and not (t == DISPUTE_OPENED and after.referee is not None):
            tell([s for s in playing if s != d.get("seat")], "ask", _said(after, t, d, move_of))
        elif t == DISPUTE_OPENED:
            tell([s for s in playing if s != d.get("seat")], "conduct", _said(after, t, d, move_of) + _WAITS)
        elif t == DISPUTE_RESOLVED:
            # every seat, the last voter too: a void may hand it its turn back, told here
            tell(remaining(after), "conduct", _said(after, t, d, move_of))
        elif t == MESSAGE_POSTED and after.prompt is not None:
            tell([s for s in after.prompt.seats if s in playing and s != d.get("seat")], "conduct",
                 _said(after, t, d, move_of))
    return out


def for_referee(after: Match, data: Mapping[str, Any]) -> bool:
    """Whether a message is addressed to the referee: one of a seat's that names them ("@referee"
    or "@" and their name, in any case), or any seat's while a dispute is open (the referee is
    the one who reads a dispute's talk). The referee's own never is."""
    if after.referee is None or data.get("referee") is True or data.get("seat") is None:
        return False
    if open_dispute(after) is not None:
        return True
    text = str(data.get("text", ""))
    names = ("referee", *after.referee.split())
    return any(re.search(rf"@{re.escape(n)}(?!\w)", text, re.IGNORECASE) for n in (after.referee, *names))


def referee_notices(after: Match, group: Sequence[Envelope], move_of: MoveOf = no_moves,
                    disputed: MoveWords = no_words) -> list[Notice]:
    """What a refereed game's step tells its referee: a dispute opened (with the disputed move in
    words, `disputed` of its seq), a message addressed to them (`for_referee`)."""
    if after.referee is None:
        return []
    last = group[-1]
    out: list[Notice] = []
    for env in group:
        t, d = env.event.type, env.event.data
        if t == DISPUTE_OPENED:
            on = d.get("on")
            move = disputed(on) if isinstance(on, int) else ""
            out.append(Notice(after.gid, after.game, last.seq, REFEREE, after.referee, "dispute",
                              _said(after, t, d, move_of), move, last.at, dispute=env.seq))
        elif t == MESSAGE_POSTED and for_referee(after, d):
            d_open = open_dispute(after)
            out.append(Notice(after.gid, after.game, last.seq, REFEREE, after.referee, "message",
                              _said(after, t, d, move_of), "", last.at, dispute=d_open.seq if d_open else 0))
    return out


def turn_deadline(after: Match, seat: int, at: str) -> str:
    """The seat's deadline for the prompt `after` holds, as the clock sets it: the clock's own
    step follows the move that called for it, so it is worked out here as that step decides it
    at the move's time `at` (the step comes a few ms later: the real deadline is never earlier)."""
    if clocks.setting_of(after) is None or after.over:
        return ""
    if clocks.due_change(after) is None:
        return clocks.clock_of(after).deadline(seat) or ""
    try:
        events = clocks.COMMANDS[clocks.CLOCK].decide(after, Command(clocks.CLOCK, {}, None), Context(at=at))
    except (IllegalCommand, InvalidCommand):
        return clocks.clock_of(after).deadline(seat) or ""
    deadlines = events[0].data.get("deadlines") if events else None
    return str(deadlines.get(str(seat), "")) if isinstance(deadlines, Mapping) else ""


def turn_sheet(n: Notice, after: Match, since: Since = no_history) -> Notice:
    """A turn notice with what its mail holds beside it: the moves since the seat's last one,
    the position as the seat's own view shows it, its legal moves, its deadline."""
    game = after.rules
    try:
        legal = [game.format_text(c) for c in game.legal_commands(after.state, n.seat)]
    except Exception:
        legal = []  # a game whose notation fails here: the seat's page lists them
    try:
        # The seat's own view, by the one function the board page and GET …/view.txt print too.
        board = position_text(game, view_of(after, n.seat), [s.name for s in after.seats]).rstrip("\n")
    except Exception:
        board = ""  # a board its words fail on: the page shows it
    return replace(n, since="\n".join(since(n.seat, n.seq)), board=board, legal="\n".join(legal[:LEGAL_LISTED]),
                   legal_count=len(legal), deadline=n.deadline or turn_deadline(after, n.seat, n.at))


def notices_for(before: Match | None, after: Match, group: Sequence[Envelope],
                move_of: MoveOf = no_moves, disputed: MoveWords = no_words,
                since: Since = no_history) -> list[Notice]:
    """The notices one step calls for: each seat the prompt now names that it did not name
    before, or that it names again after another seat's game move (a turn arriving); every seat
    when the game has just ended; a conduct step in words (a seat it gives the turn to reads
    that in the same notice); and the referee's (seat REFEREE). One notice a seat and step."""
    first, last = group[0], group[-1]
    accepted = first if first.event.type == COMMAND_ACCEPTED else None
    names = [s.name for s in after.seats]
    base = before if before is not None else after

    def notice(seat: int, kind: str, asked: str) -> Notice:
        words = last_move(base, accepted, seat) if before is not None else ""
        return Notice(after.gid, after.game, last.seq, seat, names[seat] if seat < len(names) else f"seat {seat}",
                      kind, asked, words, last.at)

    if before is None:
        told: list[Notice] = []
    else:
        told = [*conduct_notices(after, group, move_of), *clock_notices(after, group),
                *referee_notices(after, group, move_of, disputed)]
    if after.over:
        if before is not None and before.over:
            return []
        return [replace(notice(s.seat, "over", _outcome(after, s.seat)), scores=final_scores(after))
                for s in after.seats] + [
            n for n in told if n.seat == REFEREE]
    prompt = after.prompt
    if prompt is None:
        return _once(told)
    was = set(before.prompt.seats) if before is not None and before.prompt is not None else set()
    actor = accepted.event.seat if accepted is not None else None
    # A platform command (a dispute, a ruling, a message, an answer to a proposal) is no move:
    # a seat the prompt named before is not told of its turn again.
    conduct = accepted is not None and str(accepted.event.data.get("type", "")).startswith("boardlog.")
    turns = {s: _asked(after, s) for s in prompt.seats
             if s not in was or (actor is not None and actor != s and not conduct)}
    # A reminder is a turn's mail again: the position and the moves, to answer it by reply.
    told = [turn_sheet(n, after) if n.kind == "reminder" else n for n in told]
    # A seat asked to answer, or told a conduct step, reads that rather than its turn again.
    told = [replace(n, turn=turns[n.seat]) if n.kind == "conduct" and n.seat in turns else n for n in told]
    covered = {n.seat for n in told}
    return _once(told + [turn_sheet(notice(s, "turn", asked), after, since)
                         for s, asked in turns.items() if s not in covered])


def _once(notices: Sequence[Notice]) -> list[Notice]:
    """The first notice of each seat and kind of key: one notice a game, seq, player and target."""
    seen: set[str] = set()
    out = []
    for n in notices:
        k = n.key(str(n.seat), "")
        if k not in seen:
            seen.add(k)
            out.append(n)
    return out
