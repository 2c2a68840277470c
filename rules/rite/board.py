"""Hex geometry: axial coordinates, readable labels, adjacency, distances and straight lines."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

# Axial directions; an Elemental's side k (1-6) points along DIRS[(k - 1 + rotation) % 6].
DIRS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

ACCESSIBLE_KINDS = frozenset(
    {"basic", "firefly", "shrine", "banner", "beacon", "tunnel", "rune", "boneyard", "summon", "fog", "jungle"}
)
BLOCKING_KINDS = frozenset({"firelord", "earth", "fire"})
OBJECTIVE_KINDS = frozenset({"shrine", "beacon", "rune"})


class Geometry:
    """A hexagon of `radius` rings around the centre; tiles are indices 0..n-1 in reading order."""

    __slots__ = ("axial", "dist", "index", "labels", "lines", "nbr", "radius", "ring", "rings", "size")

    def __init__(self, radius: int) -> None:
        self.radius = radius
        cells = [
            (q, r)
            for r in range(-radius, radius + 1)
            for q in range(-radius, radius + 1)
            if abs(q + r) <= radius
        ]
        self.axial: tuple[tuple[int, int], ...] = tuple(cells)
        self.size = len(cells)
        pos = {c: i for i, c in enumerate(cells)}
        self.labels: tuple[str, ...] = tuple(
            f"{chr(ord('a') + q + radius)}{r + radius + 1}" for q, r in cells
        )
        self.index: dict[str, int] = {lab: i for i, lab in enumerate(self.labels)}
        self.nbr: tuple[tuple[int, ...], ...] = tuple(
            tuple(pos[(q + dq, r + dr)] for dq, dr in DIRS if (q + dq, r + dr) in pos) for q, r in cells
        )
        self.ring: tuple[int, ...] = tuple(max(abs(q), abs(r), abs(q + r)) for q, r in cells)
        self.rings: tuple[tuple[int, ...], ...] = tuple(
            tuple(i for i in range(self.size) if self.ring[i] == k) for k in range(radius + 1)
        )
        self.dist: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                max(abs(q1 - q2), abs(r1 - r2), abs(q1 + r1 - q2 - r2)) for q2, r2 in cells
            )
            for q1, r1 in cells
        )
        # Full-board straight lines (for Sign of the Dragon): constant q ("col"), r ("row"), s ("diag").
        lines: dict[str, tuple[int, ...]] = {}
        for v in range(-radius, radius + 1):
            lines[f"col:{chr(ord('a') + v + radius)}"] = tuple(i for i, (q, _) in enumerate(cells) if q == v)
            lines[f"row:{v + radius + 1}"] = tuple(i for i, (_, r) in enumerate(cells) if r == v)
            lines[f"diag:{v + radius + 1}"] = tuple(
                i for i, (q, r) in enumerate(cells) if -q - r == v
            )
        self.lines = lines

    def step(self, i: int, d: int) -> int | None:
        """The neighbour of tile `i` in direction `d`, or None off the board."""
        q, r = self.axial[i]
        dq, dr = DIRS[d % 6]
        lab = (q + dq, r + dr)
        if max(abs(lab[0]), abs(lab[1]), abs(lab[0] + lab[1])) > self.radius:
            return None
        return self._pos(lab)

    def _pos(self, c: tuple[int, int]) -> int:
        q, r = c
        return self.index[f"{chr(ord('a') + q + self.radius)}{r + self.radius + 1}"]

    def ray(self, i: int, d: int, length: int) -> list[int]:
        """Up to `length` tiles in a straight line from `i` (not including `i`)."""
        out: list[int] = []
        cur: int | None = i
        for _ in range(length):
            cur = self.step(cur, d) if cur is not None else None
            if cur is None:
                break
            out.append(cur)
        return out

    def direction(self, a: int, b: int) -> int | None:
        """The direction from `a` to `b` when they lie on one straight line, else None."""
        q1, r1 = self.axial[a]
        q2, r2 = self.axial[b]
        dq, dr = q2 - q1, r2 - r1
        n = max(abs(dq), abs(dr), abs(dq + dr))
        if n == 0:
            return None
        for d, (x, y) in enumerate(DIRS):
            if (x * n, y * n) == (dq, dr):
                return d
        return None

    def xy(self, i: int) -> tuple[float, float]:
        q, r = self.axial[i]
        return (q + r / 2.0, r * 0.866)


@lru_cache(maxsize=16)
def geometry(radius: int) -> Geometry:
    """The (immutable, shared) geometry of a board with `radius` rings."""
    return Geometry(radius)


def positions(values: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """Each value's positions in a sequence, ascending (tiles by kind, uids by unit kind)."""
    out: dict[str, list[int]] = {}
    for i, k in enumerate(values):
        out.setdefault(k, []).append(i)
    return {k: tuple(v) for k, v in out.items()}


_index_kinds = lru_cache(maxsize=64)(positions)


class _KindsMemo:
    """The last map's tile index, found by identity before any hashing of the (long) kinds tuple:
    the rules ask for it after nearly every event, and states share one kinds tuple all game."""

    __slots__ = ("pair",)

    def __init__(self) -> None:
        # One (kinds, index) pair, replaced whole: worker threads may race here harmlessly.
        self.pair: tuple[tuple[str, ...], dict[str, tuple[int, ...]]] = ((), {})


_memo = _KindsMemo()


def tiles_of(kinds: tuple[str, ...], kind: str) -> tuple[int, ...]:
    """The tiles of one kind on a map (a pure function of the map, memoised)."""
    pair = _memo.pair
    if pair[0] is not kinds:
        pair = (kinds, _index_kinds(kinds))
        _memo.pair = pair
    return pair[1].get(kind, ())
