"""The move list: a game's log as one entry per command, in words, for one viewer.

Each accepted command opens an entry (who, its notation, its sentence, the random results it
drew, the cells it touched, and its events in words). Only moves are numbered (`move`): the
game's own commands and a timeout, which plays the timed-out seat's turn; a chat line or a table
action (a proposal, a dispute, a vacation) stands at its place in the list with no number, so
the numbers players quote are the moves' (issue #40). An event the game marks with a heading
(the volcano, the end of a round) opens an entry of its own with no seat, and the events after
it, up to the next command or heading, go under it. The events are redacted for the viewer as
`GET /events` redacts them (`projections.replay.events_for`), so an entry says of hidden things
only what the viewer may see, and an event the viewer may not see is left out.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from events.domain.describe import describe_platform_command, describe_platform_event
from events.domain.match import COMMAND_ACCEPTED, GAME_CREATED, Match, fold_match
from events.domain.platform.talk import MESSAGE_HIDDEN, MESSAGE_POSTED
from events.domain.queued import QUEUED_PART
from events.records.envelope import Envelope
from projections.readmodels import redact_envelope
from rules.core import EVERYTHING_SHOWN, Command, Event, Game
from rules.words import seat_name

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


@dataclass
class _Entry:
    n: int
    seq_from: int
    seq_to: int
    seat: int | None
    who: str | None
    heading: str | None
    notation: str | None
    text: str
    command: Command | None
    state: Any  # the game's state before the entry's first event: what `touched` reads
    draws: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    game_events: list[Event] = field(default_factory=list)
    redacted: bool = False
    move: int | None = None  # the move's number among the moves (None: a heading, a chat line, a table action)
    at: str | None = None  # when its first event was appended
    rng: dict[str, int] | None = None  # the draw range of the command (or set-up) its events came from
    undone: int | None = None  # the seq of the take-back (or voided dispute) that undid it
    queued: bool = False  # played by the platform from its seat's queue of conditional moves

    def to_json(self, game: Game) -> dict[str, Any]:
        try:
            cells = game.touched(self.state, self.command, self.game_events) if self.state is not None else []
        except (KeyError, IndexError, ValueError, TypeError):
            cells = []  # a redacted command may lack what the game would read; no cells, not a 500
        text = self.text
        if self.seat is None and self.heading is not None:
            # a headed step reads as what happened in it: "The volcano erupts: 4. A rock falls on c3."
            said = [e["text"] for e in self.events if not e.get("quiet")]
            text = " ".join(said) if said else text
        out: dict[str, Any] = {
            "n": self.n, "seq_from": self.seq_from, "seq_to": self.seq_to, "seat": self.seat,
            "who": self.who, "notation": self.notation, "text": text, "draws": self.draws,
            "cells": cells, "events": self.events, "move": self.move, "at": self.at,
        }
        if self.rng is not None:
            out["rng"] = self.rng
        if self.queued:
            out["queued"] = True
        if self.undone is not None:
            out["undone"] = self.undone
        if self.heading is not None:
            out["heading"] = self.heading
        if self.redacted:
            out["redacted"] = True
        return out


class MoveList:
    """One viewer's move list of one game, built by feeding it the log in order from seq 1.

    Fed again with the envelopes after `seq`, it carries on where it stopped, so a reader that
    keeps it (the API keeps a few) pays for each event once, not on every request. Entries before
    the last never change again (an event only ever joins the newest entry): their JSON is kept.
    """

    def __init__(self, gid: str, viewer: int | None, admin: bool = False) -> None:
        self.gid, self.viewer, self.admin = gid, viewer, admin
        self.match: Match | None = None  # the platform's facts; its `state` is refreshed only at the end
        self.state: Any = None  # the game's state, folded as we go (a Match copy per event costs more)
        self.seq = 0
        self.moves = 0
        self.names: list[str] = []
        self._last: _Entry | None = None  # the newest entry, still growing
        self._frozen: list[dict[str, Any]] = []  # the JSON of every entry before it
        self._rng: dict[str, int] | None = None  # the draws of the command whose events come now
        self._command_seqs: list[int] = []  # each numbered move's CommandAccepted seq, in order: move n at [n - 1]

    def feed(self, envelopes: Sequence[Envelope]) -> None:
        for env in envelopes:
            if env.seq != self.seq + 1:
                raise ValueError(f"the move list of {self.gid} is at seq {self.seq}, not {env.seq - 1}")
            self._one(env)
            self.seq = env.seq
        if self.match is not None and self.match.state is not self.state:
            self.match = replace(self.match, state=self.state, seq=self.seq)

    def _one(self, env: Envelope) -> None:
        before = self.state
        if self.match is None or env.type.startswith("boardlog."):
            m = self.match if self.match is None else replace(self.match, state=self.state, seq=self.seq)
            self.match = fold_match([env.event], self.gid, m)
            self.state = self.match.state
            self.names = [x.name for x in self.match.seats]
        else:
            self.state = self.match.rules.evolve(self.state, env.event)
        match = self.match
        # redact_envelope reads the game's rules from the match, never its state (Game.redact
        # sees the event alone), so the match need not be rebuilt for every event.
        seen = env.to_json() if self.admin else redact_envelope(match, env, self.viewer)
        current = self._last
        if seen is None:
            if current is not None:
                current.seq_to = env.seq  # the viewer may not see it; the entry still spans it
            return
        game, names, viewer = match.rules, self.names, self.viewer
        if self.admin:
            # Everything shown (the referee, or after the end): in the third person, every hidden
            # thing named, not in the words of the seat whose step it is ("your hand").
            viewer = EVERYTHING_SHOWN
        if env.type == COMMAND_ACCEPTED:
            d = seen["data"]
            r = d.get("rng")
            self._rng = {"from": r[0], "to": r[1], "seq": env.seq} if isinstance(r, list) and len(r) == 2 else None
            cmd = Command(d["type"], d.get("args", {}), env.seat)
            platform = cmd.type.startswith("boardlog.")
            if not _is_move(cmd.type) and current is not None:
                # The clock set after a move is part of that move's entry, not a move of its own.
                current.seq_to = env.seq
                return
            if platform:
                text, notation = describe_platform_command(cmd, names, self.move_of, match.referee), None
            else:
                text = game.describe_command(before, cmd, viewer, names)
                notation = None if seen.get("redacted") else game.format_text(cmd)
            numbered = _is_numbered(cmd.type)
            if numbered:
                self.moves += 1
                self._command_seqs.append(env.seq)
            by_referee = env.seat is None and cmd.args.get("referee") is True and match.referee is not None
            who = f"{match.referee} (referee)" if by_referee else seat_name(names, env.seat)
            self._open(_Entry(self._count + 1, env.seq, env.seq, env.seat, who, None,
                              notation, text, None if platform else cmd, before,
                              redacted=bool(seen.get("redacted")), move=self.moves if numbered else None, at=env.at, rng=self._rng,
                              queued=QUEUED_PART in (env.command or "")))
            return
        if env.type == GAME_CREATED:
            self._rng = {"from": 0, "to": int(seen["data"].get("draws", 0)), "seq": env.seq}
        if env.type.startswith("boardlog."):
            told = describe_platform_event(seen["type"], seen["data"], names, self.move_of, match.referee)
        else:
            told = game.describe_event(before, Event(seen["type"], seen["data"], env.seat), viewer, names)
        opens = told.heading is not None and (current is None or current.seat is not None
                                                or current.heading != told.heading)
        if opens or current is None:
            current = _Entry(self._count + 1, env.seq, env.seq, None, None, told.heading or "Set-up", None,
                             told.text, None, before, at=env.at, rng=self._rng)
            self._open(current)
        undone = _undoes(seen)
        if undone is not None:
            self._undo(undone, env.seq)
        if seen["type"] == MESSAGE_HIDDEN:
            self._hide(seen["data"].get("seq"))
        current.seq_to = env.seq
        current.events.append({"seq": env.seq, "type": seen["type"], "text": told.text, **({"quiet": True} if told.quiet else {})})
        if told.draw:
            current.draws.append(told.draw)
        if not env.type.startswith("boardlog."):
            current.game_events.append(Event(seen["type"], seen["data"], env.seat))

    def move_of(self, seq: int) -> int | None:
        """The number of the move whose entry holds `seq` (None before the first move): how a
        dispute or a takeback names the move it is about, as the list numbers it."""
        return bisect_right(self._command_seqs, seq) or None

    def _undo(self, seqs: tuple[int, int], at_seq: int) -> None:
        """Strike through the entries a take-back (or a voided dispute) at `at_seq` undid: those
        that begin within its seqs (they stay in the list, marked with its seq)."""
        first, last = seqs
        for e in self._frozen:
            if first <= e["seq_from"] <= last and "undone" not in e:
                e["undone"] = at_seq
        cur = self._last
        if cur is not None and first <= cur.seq_from <= last and cur.undone is None:
            cur.undone = at_seq

    def _hide(self, seq: object) -> None:
        """A message the admin hid reads as hidden in the list (the log keeps it: the record)."""
        entries = [e["events"] for e in self._frozen] + ([self._last.events] if self._last is not None else [])
        for events in entries:
            for e in events:
                if e["seq"] == seq and e["type"] == MESSAGE_POSTED:
                    e["text"] = "A message hidden by the admin." if not self.admin else e["text"] + " (hidden by the admin)"
                    return

    @property
    def _count(self) -> int:
        return len(self._frozen) + (self._last is not None)

    def _open(self, entry: _Entry) -> None:
        if self._last is not None and self.match is not None:
            # only the JSON stays: the entry's state and events are let go
            self._frozen.append(self._last.to_json(self.match.rules))
        self._last = entry

    def entries(self) -> list[dict[str, Any]]:
        """Every entry so far, oldest first (the newest one built afresh: it may still grow)."""
        if self._last is None or self.match is None:
            return list(self._frozen)
        return [*self._frozen, self._last.to_json(self.match.rules)]


TAKEN_BACK = "boardlog.TakenBack"
# The platform's own clock commands: their events join the entry before them (events.domain.platform.clock).
CLOCK_BOOKKEEPING = frozenset({"boardlog.clock"})


def _is_move(command_type: str) -> bool:
    """Whether a command is a move of its own in the list (the clock's join the one before)."""
    return command_type not in CLOCK_BOOKKEEPING


# A timeout plays the timed-out seat's turn (a skip, or the game's default): players name it as
# that turn ("ann's timeout (move 12)"), so it is numbered with the moves.
NUMBERED_PLATFORM_COMMANDS = frozenset({"boardlog.timeout"})


def _is_numbered(command_type: str) -> bool:
    """Whether an entry's command takes a move number: the game's own commands and a timeout.
    Chat and table actions (boardlog.post, propose, dispute, ...) stand unnumbered at their place."""
    return not command_type.startswith("boardlog.") or command_type in NUMBERED_PLATFORM_COMMANDS


def move_number(envelopes: Iterable[Envelope], seq: int) -> int | None:
    """The number the move list gives the move whose entry holds `seq`, counted from the log
    (its envelopes from seq 1): for a reader without the list at hand, such as a notice."""
    n = 0
    for env in envelopes:
        if env.seq > seq:
            break
        if env.type == COMMAND_ACCEPTED and _is_numbered(str(env.data.get("type"))):
            n += 1
    return n or None


def _undoes(seen: dict[str, Any]) -> tuple[int, int] | None:
    """The seqs a compensating event undid, first to last (None: it undoes nothing). A voided
    dispute is followed by the same `TakenBack` a takeback appends."""
    if seen.get("type") != TAKEN_BACK:
        return None
    d = seen.get("data") or {}
    first, last, to = d.get("first"), d.get("last"), d.get("to_seq")
    if not isinstance(first, int) and isinstance(to, int):
        first = to + 1
    if not isinstance(first, int) or isinstance(first, bool):
        return None
    return first, last if isinstance(last, int) and not isinstance(last, bool) else seen["seq"] - 1


def move_entries(envelopes: Sequence[Envelope], gid: str, viewer: int | None, admin: bool = False) -> tuple[list[dict[str, Any]], Match | None]:
    """Every entry of the log `envelopes` (from seq 1) for `viewer` (the admin sees every event
    unredacted, as on /events), and the match at its end."""
    moves = MoveList(gid, viewer, admin)
    moves.feed(envelopes)
    return moves.entries(), moves.match


def page(entries: list[dict[str, Any]], before: int | None, limit: int) -> dict[str, Any]:
    """The last `limit` entries numbered below `before` (all, by default), oldest first, with the
    `before` to ask for the page older than this one (null on the first page)."""
    limit = max(1, min(limit, MAX_LIMIT))
    end = len(entries) if before is None else max(0, min(before - 1, len(entries)))
    start = max(0, end - limit)
    chunk = entries[start:end]
    return {"entries": chunk, "total": len(entries), "older": chunk[0]["n"] if chunk and start > 0 else None}
