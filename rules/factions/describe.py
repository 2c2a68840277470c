"""factions in words: prompts, commands and events for a viewer, and the places a move touched."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rules.core import Command, Event, Told
from rules.words import event_name, places, seat_name, sentence, titled


def describe_prompt(s: Any, viewer: int | None, names: Sequence[str]) -> str:
    p = s.prompt
    if p is None:
        return "Nobody is to act."
    who = ", ".join(seat_name(names, x) for x in p.seats)
    return sentence(f"{who}: {titled(p.kind).lower()}", cap=False)


def describe_command(s: Any, c: Command, viewer: int | None, names: Sequence[str]) -> str:
    return sentence(f"{seat_name(names, c.seat)}: {titled(c.type.partition('.')[2]).lower()}", cap=False)


def describe_event(s: Any, e: Event, viewer: int | None, names: Sequence[str]) -> Told:
    return Told(event_name(e.type))


_SPACE = re.compile(r"^[a-z][1-9][0-9]?$")


def touched(s: Any, c: Command | None, events: Sequence[Event]) -> list[str]:
    found = places(*([] if c is None else [c.args]), *(e.data for e in events))
    return [x for x in found if _SPACE.match(x)]
