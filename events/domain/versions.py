"""What the audit re-runs a record under: the rules version its first event names, and the opening
it re-makes (a game's set-up from its seed, or a fork's own first two events)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.domain.match import GAME_CREATED, commitment, created_event, fold_match
from events.domain.provenance import FORKED_FROM, provenance_of
from rules.core import Event, Game, RulesVersionUnavailable, SeatInfo, get_game, rules_version


def rules_for(created: Mapping[str, Any]) -> Game | str:
    """The game object of exactly the rules version the record names, or, when this build does
    not have it, a sentence saying so: the record is not re-run under other rules, since a
    difference would then say nothing about the record."""
    version = int(created.get("rules_version", 1))
    try:
        return get_game(str(created["game"]), version)
    except RulesVersionUnavailable as e:
        return (f"not re-run: the record was {e.message}, so its moves cannot be checked here; "
                f"audit it with a build that has {e.name} rules version {e.version}")


def opening(gid: str, game: Game, created: Mapping[str, Any], seed: bytes,
            recorded: Sequence[Event]) -> list[Event]:
    """The events the record must open with. A game: GameCreated and its set-up, re-made from the
    seed. A fork: its GameCreated (its commitment checked against the seed) and the ForkedFrom the
    record holds, whose state must be one these rules can make and which names the same origin; a
    fork's audit checks that position against nothing but itself (events.domain.provenance)."""
    if "fork" not in created:
        seats = [SeatInfo(s["seat"], s["name"]) for s in created["seats"]]
        referee = created.get("referee") or {}
        return created_event(gid, game, seats, created["options"], seed, created["entropy"],
                             referee.get("name"), created.get("platform"), referee.get("appointed"))
    if created.get("commitment") != commitment(seed) or created.get("draws") != 0 \
            or created.get("rules_version") != rules_version(game):
        raise ValueError("the fork's GameCreated does not hold its seed's commitment, no draws and its rules version")
    if len(recorded) < 2 or recorded[1].type != FORKED_FROM:
        raise ValueError(f"a fork's second event must be {FORKED_FROM}")
    forked = recorded[1]
    origin = provenance_of(created)[2]
    if origin is None or (forked.data.get("game"), forked.data.get("seq"), forked.data.get("head")) != origin:
        raise ValueError("the ForkedFrom names another origin than the GameCreated")
    opened = [Event(GAME_CREATED, created), forked]
    fold_match(opened, gid)  # raises ValueError for a state these rules cannot make
    return opened
