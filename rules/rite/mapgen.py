"""Building the map: tile pools from the set-up table, the three balance rules, and the
Random, Pre-made and Player-made methods (Set-Up sections of the rulebook)."""

from __future__ import annotations

from collections.abc import Sequence

from rules.core import Rng

from .board import ACCESSIBLE_KINDS, BLOCKING_KINDS, OBJECTIVE_KINDS, Geometry, geometry
from .content import (
    COLUMNS,
    FACTIONS,
    MAPS,
    TURN_TRACK,
    column_for,
    counts_for,
    role_counts,
    roles,
    volcano_basics,
)

Tile = tuple[str, str, int]  # kind, faction ("" when none), number (Firefly 1-6, Elemental rotation)
VOLCANO_KINDS = frozenset({"firefly", "earth", "fire"})
_KIND_OWNER = {d[k]: f for f, d in FACTIONS.items() for k in ("objective", "special") if d[k]}


def radius_for(factions: Sequence[str]) -> int:
    return int(COLUMNS[column_for(factions)]["rings"])


def spec(t: Tile) -> str:
    """The notation of a tile in hand: `basic`, `firefly3`, `earth`, `summon-goblins`, `shrine`."""
    kind, fac, num = t
    if kind == "firefly":
        return f"firefly{num}"
    if kind == "summon":
        return f"summon-{fac}"
    return kind


def parse_spec(text: str) -> Tile | None:
    if text.startswith("firefly") and text[7:].isdigit() and 1 <= int(text[7:]) <= 6:
        return ("firefly", "", int(text[7:]))
    if text.startswith("summon-") and text[7:] in FACTIONS:
        return ("summon", text[7:], 0)
    if text in _KIND_OWNER:
        return (text, _KIND_OWNER[text], 0)
    if text in ("basic", "earth", "fire"):
        return (text, "", 0)
    return None


def _strip(t: Tile, opts: tuple[bool, bool, bool, bool]) -> Tile:
    """Apply the removal options: a removed volcano tile is played with its basic side up."""
    _, fireflies, elementals, _ = opts
    if (t[0] == "firefly" and not fireflies) or (t[0] in ("earth", "fire") and not elementals):
        return ("basic", "", 0)
    return t


def centre_tile(opts: tuple[bool, bool, bool, bool]) -> Tile:
    return ("firelord", "", 0) if opts[3] else ("basic", "", 0)


def faction_tiles(fac: str, role: str, counts: dict[str, int]) -> list[Tile]:
    """A faction's own tiles (Set-Up: Player Made, step 2), counted as the faction of the column
    it stands for (`role`); Chaos and Primals have no objective tiles."""
    d = FACTIONS[fac]
    n = role_counts(counts, role)
    obj: list[Tile] = [(d["objective"], fac, 0)] * n["objective"] if d["objective"] else []
    return obj + [("summon", fac, 0)] * n["summon"] + [(d["special"], fac, 0)] * n["special"]


def volcano_tiles(counts: dict[str, int]) -> list[Tile]:
    return (
        [("firefly", "", n) for n in range(1, counts["firefly"] + 1)]
        + [("earth", "", 0)] * counts["earth"]
        + [("fire", "", 0)] * counts["fire"]
    )


def pool(factions: Sequence[str], opts: tuple[bool, bool, bool, bool]) -> list[Tile]:
    """Every tile but the centre one, in a fixed order."""
    column = column_for(factions)
    counts = counts_for(column)
    role = roles(factions, column)
    tiles: list[Tile] = [("basic", "", 0)] * counts["basic"] + volcano_tiles(counts)
    for fac in TURN_TRACK:
        if fac in factions:
            tiles += faction_tiles(fac, role[fac], counts)
    return [_strip(t, opts) for t in tiles]


def violates(geo: Geometry, kinds: Sequence[str], i: int, kind: str) -> bool:
    """Would `kind` on tile `i` break a balance rule, given the tiles placed so far ("" = empty)?"""
    if kind == "summon" and geo.ring[i] != geo.radius:
        return True
    if kind in BLOCKING_KINDS and any(kinds[j] in BLOCKING_KINDS for j in geo.nbr[i]):
        return True
    for o in (i, *geo.nbr[i]):
        ko = kind if o == i else kinds[o]
        if ko in OBJECTIVE_KINDS:
            ok = 0
            for j in geo.nbr[o]:
                kj = kind if j == i else kinds[j]
                if kj == "" or (kj in ACCESSIBLE_KINDS and kj != "fog"):
                    ok += 1
            if ok < 4:
                return True
    return False


def map_valid(geo: Geometry, kinds: Sequence[str]) -> bool:
    return all(not violates(geo, kinds, i, kinds[i]) for i in range(geo.size) if kinds[i])


def _with(kinds: list[str], i: int, k: str) -> list[str]:
    out = list(kinds)
    out[i] = k
    return out


def random_map(factions: Sequence[str], opts: tuple[bool, bool, bool, bool], rng: Rng) -> list[tuple[int, Tile]]:
    """Set-Up: Random, steps 3-9: ring by ring, redrawing a tile that breaks a rule, then the last ring."""
    radius = radius_for(factions)
    geo = geometry(radius)
    board: list[Tile | None] = [None] * geo.size
    kinds = [""] * geo.size
    centre = geo.rings[0][0]
    board[centre] = centre_tile(opts)
    kinds[centre] = board[centre][0]  # type: ignore[index]
    tiles = pool(factions, opts)
    inner = rng.shuffled([t for t in tiles if t[0] != "summon"])

    def swap_for(i: int, bag: list[Tile]) -> tuple[int, int]:
        """No tile fits on `i`: the players agree to swap a drawn tile with a placed one (a basic
        one when possible) so that both places keep the rules. The first tile in the bag for which
        such a swap exists, and the place it goes to; (0, -1) when there is none."""
        order = sorted((j for j in range(geo.size) if kinds[j] and kinds[j] != "firelord"), key=lambda j: kinds[j] != "basic")
        for n, x in enumerate(bag):
            for j in order:
                kj = kinds[j]
                sw = _with(_with(kinds, i, kj), j, x[0])
                if not violates(geo, sw, i, kj) and not violates(geo, sw, j, x[0]):
                    return n, j
        return 0, -1

    def swap_placed(i: int, bag: list[Tile]) -> bool:
        """Still no way: swap two placed tiles so that both keep the rules and a tile of the bag
        then fits on `i` (the rulebook's "swap two tiles" taken literally)."""
        placed = [j for j in range(geo.size) if kinds[j] and kinds[j] != "firelord"]
        for ia, a in enumerate(placed):
            for b in placed[ia + 1:]:
                ka, kb = kinds[a], kinds[b]
                if ka == kb:
                    continue
                sw = _with(_with(kinds, a, kb), b, ka)
                if violates(geo, sw, a, kb) or violates(geo, sw, b, ka):
                    continue
                if any(not violates(geo, sw, i, x[0]) for x in bag):
                    board[a], board[b] = board[b], board[a]
                    kinds[a], kinds[b] = kb, ka
                    return True
        return False

    def place(i: int, bag: list[Tile]) -> None:
        k = next((n for n, x in enumerate(bag) if not violates(geo, kinds, i, x[0])), None)
        j = -1
        if k is None:
            k, j = swap_for(i, bag)
            if j < 0 and swap_placed(i, bag):
                k = next(n for n, x in enumerate(bag) if not violates(geo, kinds, i, x[0]))
        t = bag.pop(k)
        if t[0] in ("earth", "fire"):
            t = (t[0], t[1], rng.below(6))
        if j >= 0:
            board[i], kinds[i] = board[j], kinds[j]
            board[j], kinds[j] = t, t[0]
        else:
            board[i], kinds[i] = t, t[0]

    for ring in range(1, radius):
        for i in geo.rings[ring]:
            place(i, inner)
    last = rng.shuffled(inner + [t for t in tiles if t[0] == "summon"])
    for i in geo.rings[radius]:
        place(i, last)
    return [(i, t) for i, t in enumerate(board) if t is not None]


def premade_map(factions: Sequence[str], opts: tuple[bool, bool, bool, bool]) -> list[tuple[int, Tile]]:
    """The reference map of the factions' set-up column; faction tiles go by turn-track slot."""
    column = column_for(factions)
    m = MAPS[column]
    geo = geometry(radius_for(factions))
    slots = [f for f in TURN_TRACK if f in factions]
    out: list[tuple[int, Tile]] = []
    for lab, kind, slot, num in m["tiles"]:
        fac = slots[slot] if slot >= 0 else ""
        if kind == "objective":
            kind = FACTIONS[fac]["objective"]
        elif kind == "special":
            kind = FACTIONS[fac]["special"]
        t: Tile = (kind, fac, num)
        if kind == "firelord":
            t = centre_tile(opts)
        out.append((geo.index[lab], _strip(t, opts)))
    return out


def deal_hands(
    factions: Sequence[str], opts: tuple[bool, bool, bool, bool], order: Sequence[int], rng: Rng
) -> list[list[str]]:
    """Set-Up: Player Made, steps 2-7: the hands of tiles, as notation strings, by seat."""
    column = column_for(factions)
    counts = counts_for(column)
    role = roles(factions, column)
    n = len(factions)
    # step 2: each player's own tiles
    hands: list[list[Tile]] = [faction_tiles(f, role[f], counts) for f in factions]
    # step 4: 2 objective tiles (if possible) and 2 summoning tiles to each other player in a
    # 2- or 3-player game, 1 and 1 in a 4- or 5-player game (gifts go in turn order)
    give = 2 if n <= 3 else 1
    gifts: list[list[Tile]] = [[] for _ in range(n)]
    for a in order:
        obj = FACTIONS[factions[a]]["objective"]
        for b in order:
            if a == b:
                continue
            for kind in (obj, "summon"):
                for _ in range(give):
                    t = next((x for x in hands[a] if x[0] == kind), None)
                    if t is None:  # "if possible": Chaos and Primals have no objective tiles
                        continue
                    hands[a].remove(t)
                    gifts[b].append(t)
    for b in range(n):
        hands[b] += gifts[b]
    # step 5: basic tiles to the players with fewer tiles, until all have the same amount
    most = max(len(h) for h in hands)
    spare = counts["basic"]
    for seat in order:
        h = hands[seat]
        while len(h) < most and spare > 0:
            h.append(("basic", "", 0))
            spare -= 1
    # step 6: the volcano tiles (plus 2 or 3 basic tiles in some line-ups), divided equally at random
    extra = min(volcano_basics(column), spare)
    spare -= extra
    vol = rng.shuffled(volcano_tiles(counts) + [("basic", "", 0)] * extra)
    for k, t in enumerate(vol):
        hands[order[k % n]].append(t)
    # step 7: the remaining basic tiles one by one in turn-track order
    k = 0
    while spare > 0:
        hands[order[k % n]].append(("basic", "", 0))
        spare -= 1
        k += 1
    return [sorted(spec(_strip(t, opts)) for t in h) for h in hands]


def current_ring(geo: Geometry, kinds: Sequence[str]) -> tuple[int, ...]:
    for ring in geo.rings:
        empty = tuple(i for i in ring if not kinds[i])
        if empty:
            return empty
    return ()
