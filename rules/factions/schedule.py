"""Who acts next: rank order, the three tie-breakers, captains last, reinforcement order.

evolve copies the state once per event where it can: `schedule` takes the event's own changes
and makes them in the same copy as the new stage, turn and prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.factions.state import State, Unit, revise

Units = Mapping[str, Unit]


def pending(s: State, stage: str) -> list[Unit]:
    """Units still to activate in this stage of the round."""
    return _pending(s.units, stage)


def _pending(units: Units, stage: str) -> list[Unit]:
    if stage == "main":
        return [u for u in units.values() if not u.done and not u.commanding and not u.fresh]
    if stage == "captains":
        return [u for u in units.values() if u.commanding and not u.done]
    if stage == "fresh":
        return [u for u in units.values() if u.fresh and not u.done]
    return []


def tie_key(s: State, units: Units, seat: int) -> tuple[int, int, int]:
    """Rank Ties: most Captains, then most Units (Base Camp included), then (2 players) the
    Resource Advantage; with 3-4 players seats still equal roll a die (`RankTieRolled`)."""
    caps = count = 0
    for u in units.values():
        if u.seat == seat:
            count += 1
            if s.card(u).captain:
                caps += 1
    third = (0 if seat == s.center_seat else 1) if s.n == 2 else 0  # Resource Advantage: fewer tiles
    return (-caps, -count, third)


def _next_in_level(s: State, units: Units, stage: str, level: int, last: int, floor: int,
                   changes: dict[str, Any]) -> State:
    """The turn of the highest rank pending in `stage`; `level` and `last` are the rank and seat so
    far, `floor` the lowest rank begun in this stage (0: none)."""
    ready = _pending(units, stage)
    top = max(u.rank for u in ready)
    seats = sorted({u.seat for u in ready if u.rank == top})
    # Back at the rank a Step-1 recruit interrupted (top == floor, below the jumped rank), the rank
    # goes on alternating from the seat that activated last: no seat acts twice in a row for it.
    if last >= 0 and (top == level or top == floor < level):
        # Units then alternate: the next seat clockwise that still has a unit of this rank.
        for k in range(1, s.n + 1):
            seat = (last + k) % s.n
            if seat in seats:
                return revise(s, **changes, stage=stage, level=top, last=last, floor=floor, turn=seat, pk="turn",
                              ps=(seat,))
    floor = top if floor == 0 or top < floor else floor
    tied = seats
    if len(seats) > 1:
        keys = {seat: tie_key(s, units, seat) for seat in seats}
        best = min(keys.values())
        tied = [seat for seat in seats if keys[seat] == best]
    if len(tied) > 1:
        # 3-4 players, equal on Captains and Units: "players roll a six-sided die" for this tie.
        # decide rolls it at once (no prompt meanwhile); evolve gives the winner the turn.
        return revise(s, **changes, stage=stage, level=top, last=-1, floor=floor, turn=-1, pk="", ps=(),
                      rolloff=tuple(tied))
    first = tied[0]
    return revise(s, **changes, stage=stage, level=top, last=-1, floor=floor, turn=first, pk="turn", ps=(first,))


def schedule(s: State, **changes: Any) -> State:
    """The state with `changes` made and stage, turn and prompt set after the flow moved on.

    No unit is active. Of the fields the choice reads, only `units` may be among `changes`.
    """
    if s.phase != "play":
        return revise(s, **changes) if changes else s
    units = changes.get("units", s.units)
    stage = s.stage
    if stage in ("main", "captains"):
        if _pending(units, "main"):
            return _next_in_level(s, units, "main", s.level, s.last, s.floor, changes)
        if _pending(units, "captains"):
            if stage != "captains":
                return _next_in_level(s, units, "captains", 0, -1, 0, changes)
            return _next_in_level(s, units, "captains", s.level, s.last, s.floor, changes)
        return _reinforce_from(s, 0, changes)
    if stage == "fresh":
        return _fresh(s, units, s.level, s.last, s.floor, changes)
    return revise(s, **changes) if changes else s


def _fresh(s: State, units: Units, level: int, last: int, floor: int, changes: dict[str, Any]) -> State:
    """Units recruited in the Reinforcement Phase activate; then the round's upkeep."""
    if _pending(units, "fresh"):
        return _next_in_level(s, units, "fresh", level, last, floor, changes)
    return revise(s, **changes, stage="upkeep", level=level, last=last, pk="", ps=(), turn=-1)


def _reinforce_from(s: State, idx: int, changes: dict[str, Any]) -> State:
    for k in range(idx, len(s.order)):
        seat = s.order[k]
        if seat not in s.out:
            return revise(s, **changes, stage="reinforce", turn=seat, pk="reinforce", ps=(seat,), level=0, last=-1,
                          floor=0)
    return _fresh(s, changes.get("units", s.units), 0, -1, 0, changes)


def after_reinforce(s: State, seat: int) -> State:
    return _reinforce_from(s, s.order.index(seat) + 1, {})
