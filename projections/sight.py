"""What the referee sees, and the record a seat or the admin may export before the end.

Nobody reads another seat's secrets before the end but a game's referee (a player or a token the
game names at creation, never a seat): not the admin token, not the creator, not an export. The
admin is told what a spectator is told, so the creator who also plays a seat learns nothing more.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from events.domain.match import Match
from events.records.codec import canonical
from events.store.store import EventStore
from projections.readmodels import view_of
from projections.replay import events_for


def referee_view(match: Match) -> dict[str, Any]:
    """The public board, and beside it every seat's board as that seat sees it (its secrets)."""
    out = view_of(match, None)
    out["referee"] = True
    out["seat_boards"] = [match.rules.view(match.state, s.seat) for s in match.seats]
    return out


def redacted_lines(store: EventStore, gid: str, seat: int | None) -> Iterator[bytes]:
    """The log as `seat` (None: a spectator, the admin) may see it, as JSON Lines, then a line
    saying so. It is not a record: its redacted events do not hash to the chain, so it audits as
    nothing, and the full, signed record is exported after the end (or by the referee)."""
    for row in events_for(store, gid, seat):
        yield canonical(row) + b"\n"
    yield canonical({"redacted": {"viewer": "spectator" if seat is None else f"seat {seat}",
                                  "why": "the game is not over: this is the log as this viewer may see it, "
                                         "not the record (the record is exported after the end)"}}) + b"\n"
