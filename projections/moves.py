"""The move list: a game's log as one numbered entry per command, in words, for one viewer.

Each accepted command opens an entry (who, its notation, its sentence, the random results it
drew, the cells it touched, and its events in words); an event the game marks with a heading
(the volcano, the end of a round) opens an entry of its own with no seat, and the events after
it, up to the next command or heading, go under it. The events are redacted for the viewer as
`GET /events` redacts them (`projections.replay.events_for`), so an entry says of hidden things
only what the viewer may see, and an event the viewer may not see is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from events.domain.describe import describe_platform_command, describe_platform_event
from events.domain.match import COMMAND_ACCEPTED, Match, fold_match
from events.mapping.envelope import Envelope
from projections.readmodels import redact_envelope
from rules.core import Command, Event, Game
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
    move: int | None = None  # the command's number among the commands (None: a heading)

    def to_json(self, game: Game) -> dict[str, Any]:
        try:
            cells = game.touched(self.state, self.command, self.game_events) if self.state is not None else []
        except (KeyError, IndexError, ValueError, TypeError):
            cells = []  # a redacted command may lack what the game would read; no cells, not a 500
        out: dict[str, Any] = {
            "n": self.n, "seq_from": self.seq_from, "seq_to": self.seq_to, "seat": self.seat,
            "who": self.who, "notation": self.notation, "text": self.text, "draws": self.draws,
            "cells": cells, "events": self.events, "move": self.move,
        }
        if self.heading is not None:
            out["heading"] = self.heading
        if self.redacted:
            out["redacted"] = True
        return out


def move_entries(envelopes: Sequence[Envelope], gid: str, viewer: int | None, admin: bool = False) -> tuple[list[dict[str, Any]], Match | None]:
    """Every entry of the log `envelopes` (from seq 1) for `viewer` (the admin sees every event
    unredacted, as on /events), and the match at its end."""
    match: Match | None = None
    entries: list[_Entry] = []
    current: _Entry | None = None
    moves = 0
    for env in envelopes:
        before = match
        match = fold_match([env.event], gid, match)
        game = match.rules
        names = [s.name for s in match.seats]
        seen = env.to_json() if admin else redact_envelope(match, env, viewer)
        if seen is None:
            continue
        state_before = None if before is None else before.state
        if env.type == COMMAND_ACCEPTED:
            d = seen["data"]
            cmd = Command(d["type"], d.get("args", {}), env.seat)
            platform = cmd.type.startswith("boardlog.")
            if platform:
                text, notation = describe_platform_command(cmd, names), None
            else:
                text = game.describe_command(state_before, cmd, viewer, names)
                notation = None if seen.get("redacted") else game.format_text(cmd)
            current = _Entry(len(entries) + 1, env.seq, env.seq, env.seat, seat_name(names, env.seat), None,
                             notation, text, None if platform else cmd, state_before,
                             redacted=bool(seen.get("redacted")), move=moves + 1)
            moves += 1
            entries.append(current)
            continue
        if env.type.startswith("boardlog."):
            told = describe_platform_event(seen["type"], seen["data"], names)
        else:
            event = Event(seen["type"], seen["data"], env.seat)
            told = game.describe_event(state_before, event, viewer, names)
        opens = told.heading is not None and (current is None or current.seat is not None
                                                or current.heading != told.heading)
        if opens or current is None:
            current = _Entry(len(entries) + 1, env.seq, env.seq, None, None, told.heading or "Set-up", None,
                             told.text, None, state_before)
            entries.append(current)
        current.seq_to = env.seq
        current.events.append({"seq": env.seq, "type": seen["type"], "text": told.text})
        if told.draw:
            current.draws.append(told.draw)
        if not env.type.startswith("boardlog."):
            current.game_events.append(Event(seen["type"], seen["data"], env.seat))
    if match is None:
        return [], None
    return [e.to_json(match.rules) for e in entries], match


def page(entries: list[dict[str, Any]], before: int | None, limit: int) -> dict[str, Any]:
    """The last `limit` entries numbered below `before` (all, by default), oldest first, with the
    `before` to ask for the page older than this one (null on the first page)."""
    limit = max(1, min(limit, MAX_LIMIT))
    end = len(entries) if before is None else max(0, min(before - 1, len(entries)))
    start = max(0, end - limit)
    chunk = entries[start:end]
    return {"entries": chunk, "total": len(entries), "older": chunk[0]["n"] if chunk and start > 0 else None}
