"""Read-only questions about a position: access, Taunt, defeat costs, immunity, movement paths,
where a defeated unit goes, and what the Undead may do about a defeat (their reaction options)."""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import Any

from rules.core import Command, IllegalCommand

from .board import ACCESSIBLE_KINDS, tiles_of
from .content import UNITS
from .primal_base import ULT, adjacent_units, grow, is_primal, jungle_immune
from .state import BOARD, BOX, CARD, RESERVE, VOLCANO, State, uids_of


def cmd(t: str, seat: int, **args: Any) -> Command:
    return Command("rite." + t, args, seat)


def tile(s: State, label: Any) -> int:
    """The index of a tile named in a command; an unknown name is `bad_tile`."""
    i = s.geo.index.get(label) if isinstance(label, str) else None
    if i is None:
        raise IllegalCommand("bad_tile", f"no tile {label!r} on this board")
    return i

COMMANDERS = frozenset(k for k, u in UNITS.items() if u.commander)


def open_tile(s: State, i: int) -> bool:
    """Accessible in the rulebook's sense: a walkable tile with no unit and no rock."""
    return s.kinds[i] in ACCESSIBLE_KINDS and s.occ[i] < 0 and i not in s.rocks


def cost_of(kind: str) -> int:
    return UNITS[kind].cost


def on_board(s: State, seat: int, kind: str) -> list[int]:
    return [uid for uid, u in enumerate(s.units) if u.where == BOARD and u.kind == kind and u.controller == seat]


def in_reserve(s: State, seat: int, kind: str, card: bool = False) -> int:
    """A uid of `kind` that `seat` may place (its reserve, or its power card when `card`), else -1."""
    fallback = -1
    units = s.units
    for uid in uids_of(s, kind):
        u = units[uid]
        if u.owner == seat:
            if u.where == RESERVE:
                return uid
            if card and u.where == CARD and fallback < 0:
                fallback = uid
    return fallback


def sacred(s: State, uid: int) -> bool:
    """Sacred Grounds: Human units on or next to a shrine tile shrug off the volcano and enemies."""
    if "sacred" not in s.rflags:
        return False
    u = s.units[uid]
    # "Friendly" is by controller: a Human unit controlled by Chaos is no longer protected.
    if u.where != BOARD or u.controller < 0 or s.factions[u.controller] != "humans":
        return False
    t = u.tiles[0]
    return s.kinds[t] == "shrine" or any(s.kinds[j] == "shrine" for j in s.geo.nbr[t])


def taunters(s: State, uid: int) -> list[int]:
    """Tiles of enemy Knights adjacent to the unit (Taunt)."""
    u = s.units[uid]
    if u.where != BOARD or u.controller == VOLCANO or jungle_immune(s, uid, -2):
        return []
    out = []
    for t in u.tiles:
        for j in s.geo.nbr[t]:
            v = s.occ[j]
            if v >= 0:
                w = s.units[v]
                if w.kind == "knight" and w.controller != u.controller and w.controller != VOLCANO:
                    out.append(j)
    return out


def taunt_tiles(s: State, seat: int) -> frozenset[int]:
    """Tiles where a unit of `seat` is stopped by an enemy Knight's Taunt."""
    out: set[int] = set()
    for uid in uids_of(s, "knight"):
        w = s.units[uid]
        if w.where == BOARD and w.controller != seat:
            out.update(s.geo.nbr[w.tiles[0]])
    return frozenset(out)


def protection(s: State, uid: int) -> int:
    """Barrier (+2 per Cleric) and Divine Shield (+5 per Angel): the unit itself or a friendly neighbour."""
    u = s.units[uid]
    extra = 0
    for v in (uid, *adjacent_units(s, uid)):
        if v >= 0:
            w = s.units[v]
            if w.controller == u.controller:
                if w.kind == "cleric":
                    extra += 2
                elif w.kind == "angel":
                    extra += 5
    return extra


def backup(s: State, uid: int) -> int:
    u = s.units[uid]
    t = u.tiles[0]
    n = 0
    for v in adjacent_units(s, uid):
        if s.units[v].controller == u.controller:
            n += 1
    if u.controller >= 0 and s.factions[u.controller] == "humans":
        n += sum(1 for j in (t, *s.geo.nbr[t]) if s.kinds[j] == "banner")
    return n


def surround(s: State, uid: int, seat: int, attacker: int) -> int:
    n = 0
    for v in adjacent_units(s, uid):
        if v != attacker and s.units[v].controller == seat:
            n += 1
    return n


def defeat_cost(s: State, uid: int, seat: int, attacker: int) -> int:
    """Defeat action: cost + backup - surround (+ Barrier / Divine Shield), never below 0; own
    units skip backup and surround. A defeat priced 0 is still the turn's action (RULINGS, Turn)."""
    u = s.units[uid]
    base = cost_of(u.kind) + grow(s, uid) + protection(s, uid)
    if u.controller == seat:
        return base
    return max(0, base + backup(s, uid) - surround(s, uid, seat, attacker))


def fire_cost(s: State, uid: int) -> int:
    """What a unit costs to defeat for Fireball: backup and surround ignored."""
    return cost_of(s.units[uid].kind) + grow(s, uid) + protection(s, uid)


def intelligent_ok(s: State, uid: int) -> bool:
    """Intelligent: three adjacent units of one controller, pairwise not adjacent."""
    by: dict[int, list[int]] = {}
    for v in adjacent_units(s, uid):
        by.setdefault(s.units[v].controller, []).append(v)
    for us in by.values():
        if len(us) >= 3:
            n = len(us)
            for a in range(n):
                for b in range(a + 1, n):
                    for c in range(b + 1, n):
                        x, y, z = us[a], us[b], us[c]
                        if not (_touch(s, x, y) or _touch(s, x, z) or _touch(s, y, z)):
                            return True
    return False


def _touch(s: State, a: int, b: int) -> bool:
    da = s.geo.dist
    return any(da[x][y] <= 1 for x in s.units[a].tiles for y in s.units[b].tiles)


def defeatable(s: State, uid: int, by: int, source: str) -> bool:
    """May this unit be defeated by `by` (a seat, or VOLCANO) through `source`?

    Sources: action, fireball, breathe, sign, presence, token, volcano.
    """
    u = s.units[uid]
    kind = u.kind
    if kind == "death":
        return False
    commander = kind in COMMANDERS
    if commander and source in ("volcano", "breathe", "sign", "presence", "token"):
        return False
    if kind == "firefly" and source == "volcano":
        return False
    if jungle_immune(s, uid, by):
        return False
    if (by == VOLCANO or by != u.controller) and sacred(s, uid) and (by == VOLCANO or s.factions[by] != "humans"):
        return False
    return not (kind == "wyrmling" and not intelligent_ok(s, uid))


def is_goblin(s: State, uid: int) -> bool:
    o = s.units[uid].owner
    return o >= 0 and s.factions[o] == "goblins"


def necro_free(s: State, seat: int) -> frozenset[int]:
    """Tiles from which a Warrior steps for free: on or next to a friendly Necromancer."""
    out: set[int] = set()
    for uid in uids_of(s, "necromancer"):
        w = s.units[uid]
        if w.where == BOARD and w.controller == seat:
            t = w.tiles[0]
            out.add(t)
            out.update(s.geo.nbr[t])
    return frozenset(out)


def reach(s: State, uid: int, budget: int) -> dict[int, tuple[int, int]]:
    """Where a unit may end a move within `budget` energy: {tile: (cost, parent)}; the start maps to parent -1.

    The whole path must be possible: friendly units may be passed, enemy units and inaccessible
    tiles not (except by a Slippery Fighter), a Taunted tile ends the move, a fire token ends a
    non-commander's move (it is defeated there), and for Goblin units tunnels join each other.
    """
    best = reach_all(s, uid, budget)
    start = s.units[uid].tiles[0]
    return {j: v for j, v in best.items() if j == start or open_tile(s, j)}


def path_from(best: dict[int, tuple[int, int]], to: int) -> list[int]:
    """Walk parents back from `to`; requires the intermediate tiles to be in `best`."""
    out = [to]
    while best[out[-1]][1] >= 0:
        out.append(best[out[-1]][1])
    out.reverse()
    return out


def reach_all(
    s: State, uid: int, budget: int, until: frozenset[int] = frozenset(), target: int = -1
) -> dict[int, tuple[int, int]]:
    """Every tile a move may pass through within `budget`, with (cost, parent); see `reach`.
    With `until`, the search stops as soon as it finds one of those tiles (whether any is
    reachable); with `target`, once that tile's cost and path are final (a move's own route)."""
    u = s.units[uid]
    start = u.tiles[0]
    seat = u.controller
    geo = s.geo
    slippery = u.kind == "fighter"
    commander = u.kind in COMMANDERS
    stop = taunt_tiles(s, seat)
    if stop and is_primal(s, uid):
        # Taunt is an enemy ability: it cannot touch a Primal unit standing on a jungle tile.
        stop = frozenset(t for t in stop if s.kinds[t] != "jungle")
    stop |= fog_stops(s, uid)
    if start in stop:
        return {start: (0, -1)}
    free_from = necro_free(s, seat) if u.kind == "warrior" else frozenset()
    kinds = s.kinds
    tunnels = tiles_of(kinds, "tunnel") if is_goblin(s, uid) else ()
    # Locals for the search's inner loop, which runs for every neighbour of every tile reached.
    rocks, occ, units, fire, nbr = s.rocks, s.occ, s.units, s.fire, geo.nbr
    best: dict[int, tuple[int, int]] = {start: (0, -1)}
    get = best.get
    dq: deque[int] = deque([start])
    while dq:
        cur = dq.popleft()
        if cur == target:
            # 0-1 search: a tile's first time out of the queue is at its least cost, and every
            # tile on its parent chain came out before it, so nothing later changes its route.
            return best
        c0 = best[cur][0]
        if cur != start and (cur in stop or (cur in fire and not commander)):
            continue
        w = 0 if cur in free_from else 1
        nc = c0 + w
        if nc > budget:
            continue
        nbrs = nbr[cur]
        if tunnels and kinds[cur] == "tunnel":
            nbrs = nbrs + tuple(t for t in tunnels if t != cur)
        for j in nbrs:
            old = get(j)
            if old is not None and old[0] <= nc:
                continue
            if not slippery:
                if kinds[j] not in ACCESSIBLE_KINDS or j in rocks:
                    continue
                v = occ[j]
                if v >= 0 and units[v].controller != seat:
                    continue
            best[j] = (nc, cur)
            if j in until:
                return best
            if w == 0:
                dq.appendleft(j)
            else:
                dq.append(j)
    return best


def payer(s: State, seat: int) -> int:
    """Whose energy pays for `seat`'s actions: Chaos's own while it plays as `seat` (Total Control)."""
    return s.active if s.proxy == seat and s.proxy >= 0 else seat


def budget(s: State, seat: int) -> int:
    p = s.players[payer(s, seat)]
    return p.round_e + p.reserve_e


def fog_stops(s: State, uid: int) -> frozenset[int]:
    """Fog tiles end the move of a unit they would flip (rulebook image 11: the Rex moving onto fog)."""
    u = s.units[uid]
    if "chaos" not in s.factions or u.controller != u.owner or u.owner < 0 or u.kind in COMMANDERS:
        return frozenset()
    if s.factions[u.owner] == "chaos":
        return frozenset()
    tiles = fog_tiles(s.kinds)
    if tiles and "sacred" in s.rflags and s.factions[u.controller] == "humans":
        # Sacred Grounds keeps fog on or next to a shrine from flipping the Humans' units.
        tiles = frozenset(t for t in tiles if not any(s.kinds[j] == "shrine" for j in (t, *s.geo.nbr[t])))
    return tiles


def fog_tiles(kinds: tuple[str, ...]) -> frozenset[int]:
    return _as_set(tiles_of(kinds, "fog"))


@lru_cache(maxsize=64)
def _as_set(tiles: tuple[int, ...]) -> frozenset[int]:
    return frozenset(tiles)


def destination(s: State, uid: int) -> str:
    u = s.units[uid]
    if u.kind == ULT:
        return RESERVE  # the one commander that goes back to the reserve (Commanders)
    if u.kind in COMMANDERS:
        return BOX
    if u.owner >= 0:
        fac = s.factions[u.owner]
        lvl = s.players[u.owner].level
        if lvl >= 10 and (
            (fac == "goblins" and u.kind == "firebringer") or (fac == "undead" and u.kind == "deathbringer")
        ):
            return CARD
    return RESERVE


def reaction_options(s: State, tile: int) -> list[str]:
    """What the Undead may do about an enemy defeated on `tile`: Rise Again and/or Soul Reaper."""
    und = s.seat_of("undead")
    out: list[str] = []
    if not open_tile(s, tile):
        return out
    lab = s.geo.labels[tile]
    if in_reserve(s, und, "warrior") >= 0:
        for u in s.units:
            if (
                u.kind == "necromancer" and u.where == BOARD and u.controller == und
                and s.geo.dist[u.tiles[0]][tile] <= 3
            ):
                out.append(f"rise:{lab}")
                break
    for u in s.units:
        if u.kind == "death" and u.where == BOARD and u.controller == und and u.tiles[0] != tile:
            out.append(f"reap:{lab}")
    return out


def react_choices(s: State) -> list[str]:
    opts: list[str] = []
    reap = False
    for t in s.reacts:
        for o in reaction_options(s, t):
            opts.append(o)
            reap = reap or o.startswith("reap:")
    # mctx[0]: Death has already been placed by Soul Reaper in this batch
    reaped = bool(s.mctx[0]) if s.mode == "react" and s.mctx else False
    if not reap or reaped:
        opts = [o for o in opts if not o.startswith("reap:")]
        opts.append("done")
    return opts
