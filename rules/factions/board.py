"""Battleground geometry: space names, terrain, tile owners, and per-seat adjacency and distances."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from rules.factions.content import Layout

COLS = "abcdefgh"


def space_name(i: int, width: int) -> str:
    return f"{COLS[i % width]}{i // width + 1}"


def parse_space(s: str, width: int, height: int) -> int | None:
    """The index of a space name like 'c4', or None when it is off this board."""
    if len(s) < 2 or s[0] not in COLS or not s[1:].isdigit():
        return None
    x, y = COLS.index(s[0]), int(s[1:]) - 1
    if x >= width or not 0 <= y < height:
        return None
    return y * width + x


def rotate(pattern: str, rot: int) -> str:
    """A tile pattern 'ab/cd' (north row first) turned by 0 or 180 degrees."""
    return pattern[::-1] if rot == 180 else pattern


def tile_spaces(spot: int, layout: Layout) -> tuple[int, ...]:
    """The four space indices of tile spot `spot` (1-based, row by row from the south-west)."""
    tw = layout.width // 2
    tx, ty = (spot - 1) % tw, (spot - 1) // tw
    x0, y0, w = 2 * tx, 2 * ty, layout.width
    return (y0 * w + x0, y0 * w + x0 + 1, (y0 + 1) * w + x0, (y0 + 1) * w + x0 + 1)


def spot_of(i: int, width: int) -> int:
    x, y = i % width, i // width
    return (y // 2) * (width // 2) + x // 2 + 1


def terrain_at(pattern: str, i: int, width: int) -> str:
    lx, ly = (i % width) % 2, (i // width) % 2
    return pattern[lx] if ly == 1 else pattern[3 + lx]


def tile_terrain(pattern: str, rot: int, spot: int, layout: Layout) -> tuple[tuple[int, str], ...]:
    """(space, terrain) of the four spaces a tile covers placed on `spot` turned by `rot`, in the
    order of tile_spaces: what a `tile` choice lays down, before it is chosen."""
    turned = rotate(pattern, rot)
    return tuple((i, terrain_at(turned, i, layout.width)) for i in tile_spaces(spot, layout))


def camp_spots(layout: Layout) -> frozenset[int]:
    """Tile spots holding a base camp's entry spaces: no water may go there."""
    out = set()
    for pair in layout.entries:
        for s in pair:
            i = parse_space(s, layout.width, layout.height)
            assert i is not None
            out.add(spot_of(i, layout.width))
    return frozenset(out)


def orth(i: int, width: int, height: int) -> tuple[int, ...]:
    x, y = i % width, i // width
    out = []
    for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        nx, ny = x + dx, y + dy
        if 0 <= nx < width and 0 <= ny < height:
            out.append(ny * width + nx)
    return tuple(out)


def ring(i: int, width: int, height: int) -> tuple[int, ...]:
    """The up to eight spaces around `i`, diagonals included, whoever owns their tiles."""
    x, y = i % width, i // width
    out = []
    for dx, dy in ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)):
        nx, ny = x + dx, y + dy
        if 0 <= nx < width and 0 <= ny < height:
            out.append(ny * width + nx)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Geometry:
    """Everything fixed once the last Terrain Tile is down; built in evolve, never drawn."""

    width: int
    height: int
    terrain: tuple[str, ...]
    owner: tuple[int, ...]
    spot: tuple[int, ...]
    ring: tuple[tuple[int, ...], ...]  # the eight spaces around each: where a bullrushed unit may go
    adj: tuple[tuple[tuple[int, ...], ...], ...]  # per seat, per space
    dist: tuple[tuple[tuple[int, ...], ...], ...]  # per seat, per space, per space
    entries: tuple[tuple[int, int], ...]


def build_geometry(layout: Layout, tiles: tuple[tuple[int, str] | None, ...]) -> Geometry:
    w, h = layout.width, layout.height
    n = w * h
    terrain = ["P"] * n
    owner = [-1] * n
    for spot0, t in enumerate(tiles):
        if t is None:
            continue
        seat, pattern = t
        for i in tile_spaces(spot0 + 1, layout):
            terrain[i] = terrain_at(pattern, i, w)
            owner[i] = seat
    orths = tuple(orth(i, w, h) for i in range(n))
    adj_all = []
    dist_all = []
    for seat in range(layout.seats):
        adj = []
        for i in range(n):
            nb = list(orths[i])
            if owner[i] == seat:
                x, y = i % w, i // w
                for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                    nx, ny = x + dx, y + dy
                    # Diagonals only on and onto your own Home Terrain Tiles (Movement).
                    if 0 <= nx < w and 0 <= ny < h and owner[ny * w + nx] == seat:
                        nb.append(ny * w + nx)
            adj.append(tuple(nb))
        adj_all.append(tuple(adj))
        rows = []
        for src in range(n):
            d = [99] * n
            d[src] = 0
            q = deque([src])
            while q:
                c = q.popleft()
                for nb2 in adj[c]:
                    if d[nb2] == 99:
                        d[nb2] = d[c] + 1
                        q.append(nb2)
            rows.append(tuple(d))
        dist_all.append(tuple(rows))
    entries = tuple(
        (parse_space(a, w, h) or 0, parse_space(b, w, h) or 0) for a, b in layout.entries
    )
    return Geometry(w, h, tuple(terrain), tuple(owner), tuple(spot_of(i, w) for i in range(n)),
                    tuple(ring(i, w, h) for i in range(n)), tuple(adj_all), tuple(dist_all), entries)
