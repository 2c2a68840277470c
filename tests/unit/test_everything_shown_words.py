"""Words for a reader shown everything (the referee, the replay and move list after the end;
issue #21 item 2): the third person, every hidden thing named, never a seat's "your hand".
A Dragon Dale game played offline; the seat's own list keeps its second person."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from events.records.envelope import Envelope
from projections.moves import move_entries
from rules import catalog
from rules.core import EVERYTHING_SHOWN, Event
from tests.support.records import play_offline

catalog.load()
GID = "p01-abcdef012345"
SECOND_PERSON = re.compile(r"\b(you|your|yours)\b", re.IGNORECASE)


@cache
def _record() -> list[Envelope]:
    return play_offline("dragondale", ["ann", "bob", "cat"], {}, 5, gid=GID, max_commands=80)


def _texts(entries: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in entries if e["text"]] + [x["text"] for e in entries for x in e["events"]]


def test_the_referees_move_list_reads_in_the_third_person_with_every_hand_named() -> None:
    full, match = move_entries(_record(), GID, None, admin=True)
    assert match is not None
    texts = _texts(full)
    assert not [t for t in texts if SECOND_PERSON.search(t)]
    for name in ("ann", "bob", "cat"):
        hand = [t for t in texts if f"{name} holds “" in t]
        assert hand, f"{name}'s hand is named"
    # A seat's own list still speaks to it, and names no other seat's hand.
    own = _texts(move_entries(_record(), GID, 0)[0])
    assert any("your hand: “" in t for t in own)
    assert not any("bob holds" in t or "cat holds" in t for t in own)


def test_a_hidden_unit_of_another_seat_is_named_for_everything_shown() -> None:
    _, match = move_entries(_record(), GID, None, admin=True)
    assert match is not None
    s, game = match.state, match.rules
    hidden = [(seat, u) for seat, tr in enumerate(s.tribes) for u in tr.units if u.hidden]
    assert hidden, "some unit is hidden at the end of the record"
    seat, unit = hidden[0]
    other = (seat + 1) % len(s.tribes)
    # The platform's step (no seat) and another seat's step both moved it: everything shown names it.
    names = ["ann", "bob", "cat"]
    for by in (None, other):
        moved = Event("dragondale.UnitsMoved", {"moves": [[unit.id, "a", "b"]]}, by)
        shown = game.describe_event(s, moved, EVERYTHING_SHOWN, names).text
        assert "hidden" not in shown and f"{names[seat]}'s" in shown, shown
        assert "hidden unit" in game.describe_event(s, moved, other, names).text
        assert "hidden unit" in game.describe_event(s, moved, None, names).text
