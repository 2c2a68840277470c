"""Upcasting: stored events in an older format read as the current format, as eventsourcing does.

The stored bytes never change (the hash chain covers them): an envelope keeps its data as
written, and the domain event made from it (`Envelope.event`) is upcast, so the fold, replay and
the audit's comparison all read one format. Each step takes an event type's data in one format
to the next; a step recognises its old format by its shape and leaves any later one alone, so
the steps of a type run in order and upcasting is idempotent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Step = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def _created_names_rules_version(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """GameCreated format 1 -> 2: records from before rules versions were named in a game's first
    event were made under each game's rules version 1 (rules/<game>/CHANGELOG.md)."""
    if "rules_version" in data:
        return data
    return {**data, "rules_version": 1}


UPCASTERS: dict[str, tuple[Step, ...]] = {
    "boardlog.GameCreated": (_created_names_rules_version,),
}


def upcast(type_: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    steps = UPCASTERS.get(type_)
    if steps is None:
        return data
    for step in steps:
        data = step(data)
    return data
