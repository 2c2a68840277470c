"""Reference boards as territory graphs with precomputed adjacency, per tribe count."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.dragondale.content import BOARDS

LEAVE_CAP = {"thicket": 2, "camp": 2}
ENTER_CAP = {"mountain": 2, "inner": 1}
TOKENS_PER_TRIBE = 16  # [Components: "72 insight tokens (16 per tribe + 8 neutral)"]


@dataclass(frozen=True, slots=True)
class Territory:
    """One territory: its kind and the marks printed on it."""

    id: str
    kind: str
    x: float
    y: float
    rune: str | None
    outer: bool
    arrows: dict[str, str]
    rune_stone: bool
    reward: bool
    first: bool

    @property
    def dragon(self) -> bool:
        return self.outer or self.kind == "inner"


@dataclass(frozen=True, slots=True)
class Board:
    """A board side for a tribe count: territories, adjacency, trees, camps."""

    key: str
    terr: dict[str, Territory]
    adj: dict[str, frozenset[str]]
    trees: dict[str, tuple[str, ...]]
    camps: tuple[str, ...]
    tunnels: tuple[str, ...]
    inner_by_rune: dict[str, str]
    outer_by_rune: dict[str, str]
    trees_in: dict[str, tuple[str, ...]]
    order: tuple[str, ...]


def _territory(t: dict[str, Any]) -> Territory:
    return Territory(
        id=t["id"], kind=t["kind"], x=float(t["x"]), y=float(t["y"]), rune=t.get("rune"),
        outer=bool(t.get("outer", False)), arrows=dict(t.get("arrows", {})),
        rune_stone=bool(t.get("rune_stone", False)), reward=bool(t.get("reward", False)),
        first=bool(t.get("first", False)),
    )


def _build(key: str) -> Board:
    src = BOARDS["four"] if key == "4" else BOARDS["two_three"]
    terrs = [dict(t) for t in src["territories"]]
    edges = [tuple(e) for e in src["edges"]]
    if key == "2":
        ov = BOARDS["overlay_two"]
        gone = set(ov["remove"])
        terrs = [t for t in terrs if t["id"] not in gone] + list(ov["add"])
        edges = [e for e in edges if not (set(e) & gone)] + [tuple(e) for e in ov["edges"]]
    terr = {t["id"]: _territory(t) for t in terrs}
    adj: dict[str, set[str]] = {t: set() for t in terr}
    for a, b in edges:
        if a not in terr or b not in terr:
            raise ValueError(f"board {key}: edge to unknown territory {a}-{b}")
        adj[a].add(b)
        adj[b].add(a)
    trees = {tr["id"]: tuple(tr["in"]) for tr in src["trees"]}
    for tid, where in trees.items():
        if not set(where) <= set(terr):
            raise ValueError(f"board {key}: tree {tid} off the board")
        if len(where) == 2 and where[1] not in adj[where[0]]:
            raise ValueError(f"board {key}: tree {tid} is not on a border")
    inner = {t.rune: t.id for t in terr.values() if t.kind == "inner" and t.rune}
    outer = {t.rune: t.id for t in terr.values() if t.outer and t.rune}
    if len(inner) != 3 or set(outer) != set(inner):
        raise ValueError(f"board {key}: each rune needs one inner and one outer Dragon territory")
    for t in terr.values():
        for target in t.arrows.values():
            if target not in terr or not terr[target].dragon:
                raise ValueError(f"board {key}: arrow from {t.id} to a non-Dragon territory")
    trees_in = {t: tuple(k for k, w in trees.items() if t in w) for t in terr}
    # set-up step 10 puts one token of each tribe on every territory without a reward and
    # step 11 one more by the Fury track: the 16 tokens a tribe has must be enough
    if sum(1 for t in terr.values() if not t.reward) + 1 > TOKENS_PER_TRIBE:
        raise ValueError(f"board {key}: more territories without a reward than a tribe has insight tokens")
    return Board(
        key=key, terr=terr, adj={k: frozenset(v) for k, v in adj.items()}, trees=trees,
        camps=tuple(t.id for t in terr.values() if t.kind == "camp"),
        tunnels=tuple(t.id for t in terr.values() if t.kind == "tunnel"),
        inner_by_rune=inner, outer_by_rune=outer, trees_in=trees_in, order=tuple(terr),
    )


BOARD_BY_KEY: dict[str, Board] = {k: _build(k) for k in ("2", "3", "4")}
BOARDS_BY_N: dict[int, Board] = {int(k): b for k, b in BOARD_BY_KEY.items()}


def board_for(n_tribes: int) -> Board:
    return BOARDS_BY_N[n_tribes]


def token_places(b: Board) -> list[str]:
    """Set-up step 10: "all territories of the board that do not contain an exploration reward"."""
    return [t.id for t in b.terr.values() if not t.reward]
