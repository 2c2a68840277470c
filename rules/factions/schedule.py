"""Who acts next: rank order, the three tie-breakers, captains last, reinforcement order."""

from __future__ import annotations

from rules.factions.state import State, Unit, revise


def pending(s: State, stage: str) -> list[Unit]:
    """Units still to activate in this stage of the round."""
    if stage == "main":
        return [u for u in s.units.values() if not u.done and not u.commanding and not u.fresh]
    if stage == "captains":
        return [u for u in s.units.values() if u.commanding and not u.done]
    if stage == "fresh":
        return [u for u in s.units.values() if u.fresh and not u.done]
    return []


def tie_key(s: State, seat: int) -> tuple[int, int, int]:
    """Rank Ties: most Captains, then most Units (Base Camp included), then the third breaker."""
    caps = units = 0
    for u in s.units.values():
        if u.seat == seat:
            units += 1
            if s.card(u).captain:
                caps += 1
    if s.n == 2:
        third = 0 if seat == s.center_seat else 1  # Resource Advantage: fewer tiles wins
    else:
        third = s.tie.index(seat) if seat in s.tie else seat
    return (-caps, -units, third)


def _next_in_level(s: State, stage: str) -> State:
    units = pending(s, stage)
    top = max(u.rank for u in units)
    seats = sorted({u.seat for u in units if u.rank == top})
    if top == s.level and s.last >= 0:
        # Units then alternate: the next seat clockwise that still has a unit of this rank.
        for k in range(1, s.n + 1):
            seat = (s.last + k) % s.n
            if seat in seats:
                return revise(s, stage=stage, turn=seat, pk="turn", ps=(seat,))
    first = seats[0] if len(seats) == 1 else min(seats, key=lambda seat: tie_key(s, seat))
    return revise(s, stage=stage, level=top, last=-1, turn=first, pk="turn", ps=(first,))


def schedule(s: State) -> State:
    """Set stage, turn and prompt after the flow moved on (no unit is active)."""
    if s.phase != "play":
        return s
    stage = s.stage
    if stage in ("main", "captains"):
        if pending(s, "main"):
            return _next_in_level(s, "main")
        if pending(s, "captains"):
            if stage != "captains":
                s = revise(s, level=0, last=-1)
            return _next_in_level(s, "captains")
        return _reinforce_from(s, 0)
    if stage == "reinforce":
        return s
    if stage == "fresh":
        if pending(s, "fresh"):
            return _next_in_level(s, "fresh")
        return revise(s, stage="upkeep", pk="", ps=(), turn=-1)
    return s


def _reinforce_from(s: State, idx: int) -> State:
    for k in range(idx, len(s.order)):
        seat = s.order[k]
        if seat not in s.out:
            return revise(s, stage="reinforce", turn=seat, pk="reinforce", ps=(seat,), level=0, last=-1)
    return schedule(revise(s, stage="fresh", level=0, last=-1))


def after_reinforce(s: State, seat: int) -> State:
    return _reinforce_from(s, s.order.index(seat) + 1)
