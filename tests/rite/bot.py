"""An objective-seeking bot for Rite's random-play tests: uniform bots wander for tens of
thousands of commands, so part of the time this one looks one command ahead and takes the one
that most improves its faction's progress."""

from __future__ import annotations

import random
from collections.abc import Callable

from rules.core import Command, Rng
from rules.decider import decide
from rules.rite import GAME
from rules.rite.state import BOARD, State

Score = Callable[[State, int], float]


def _tiles_of(s: State, kind: str) -> list[int]:
    return [i for i, k in enumerate(s.kinds) if k == kind]


def _own(s: State, t: int, seat: int, kinds: tuple[str, ...] = ()) -> bool:
    u = s.occ[t]
    if u < 0:
        return False
    unit = s.units[u]
    return unit.controller == seat and (not kinds or unit.kind in kinds)


def _humans(s: State, seat: int) -> float:
    score = 0.0
    for t in _tiles_of(s, "shrine"):
        if t in s.activated:
            score += 30
            continue
        near = sum(1 for j in s.geo.nbr[t] if _own(s, j, seat))
        score += (4 if _own(s, t, seat, ("cleric", "angel")) else 0) + min(3, near)
    return score


def _goblins(s: State, seat: int) -> float:
    score = 0.0
    for t in _tiles_of(s, "beacon"):
        if t in s.activated:
            score += 30
        elif s.occ[t] >= 0:
            score += 2
    return score + 2 * sum(1 for u in s.units if u.kind == "sorcerer" and u.where == BOARD and u.controller == seat)


def _undead(s: State, seat: int) -> float:
    score = 0.0
    for t in _tiles_of(s, "rune"):
        if t in s.activated:
            score += 30
        elif _own(s, t, seat, ("necromancer", "death")):
            score += 4
    return score


def _chaos(s: State, seat: int) -> float:
    """Controlled units points, plus enemy units Chaos controls (more once moved onto their own
    summoning tiles, which is what scores at step 8)."""
    score = 10.0 * sum(s.scored)
    for uid, u in enumerate(s.units):
        if u.where == BOARD and u.controller == seat and 0 <= u.owner != seat:
            score += 4 if uid in s.delivered else 1
    return score


def _primals(s: State, seat: int) -> float:
    grown = {"raptor": 1.0, "rex": 3.0, "ultimatosaur": 8.0}
    return 4 * s.consumed + sum(grown.get(u.kind, 0.0) for u in s.units if u.where == BOARD and u.controller == seat)


SCORES: dict[str, Score] = {
    "humans": _humans, "goblins": _goblins, "undead": _undead, "chaos": _chaos, "primals": _primals,
}


def progress(s: State, seat: int) -> float:
    """How far `seat`'s faction is towards its objective, plus a little for units on the board."""
    fn = SCORES.get(s.factions[seat])
    own = sum(1 for u in s.units if u.where == BOARD and u.controller == seat)
    return (fn(s, seat) if fn else 0.0) + 0.1 * own


def seeking(greed: float = 0.7, sample: int = 10) -> Callable[[State, int, list[Command], random.Random], Command]:
    """A policy: with probability `greed`, the best of `sample` legal commands by `progress`."""
    look = Rng(b"bot-lookahead")

    def choose(s: State, seat: int, legal: list[Command], bot: random.Random) -> Command:
        if len(legal) == 1 or bot.random() >= greed:
            return bot.choice(legal)
        before = progress(s, seat)
        best, best_gain = legal[0], float("-inf")
        for c in bot.sample(legal, min(sample, len(legal))):
            after = s
            after = decide(GAME, s, c, look).state
            gain = progress(after, seat) - before
            if gain > best_gain:
                best, best_gain = c, gain
        return best

    return choose
