"""The moves since a seat's own last one, in words as that seat sees them: what its turn mail
tells first. Read from the game's move list (projections/moves.py) built for that seat, so a
hidden detail reads as the seat may see it, and the game's own steps (the volcano, the Dragon)
are told beside the players' commands."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from events.store.store import EventStore
from projections.moves import move_entries

# At most this many entries are told; a seat away for longer reads the rest on its page.
TOLD = 40


def moves_since(store: EventStore, gid: str) -> Callable[[int, int], Sequence[str]]:
    """`since(seat, seq)`: the entries of the move list after the seat's own last command, up to
    `seq` (the step of its turn), each "n. sentence"; read only when a turn notice asks."""

    def since(seat: int, seq: int) -> Sequence[str]:
        entries, _ = move_entries(store.read(gid, 1, seq), gid, seat)
        mine = [i for i, e in enumerate(entries) if e.get("seat") == seat and e.get("move") is not None]
        after = entries[mine[-1] + 1:] if mine else entries
        out = []
        for e in after:
            if e.get("move") is None and not e.get("heading"):
                continue  # the platform's own bookkeeping (a clock set): no news to a player
            mark = f"{e['move']}. " if e.get("move") is not None else ""
            out.append(f"{mark}{e.get('text')}" + (" (taken back)" if e.get("undone") else ""))
        return out[-TOLD:]

    return since
