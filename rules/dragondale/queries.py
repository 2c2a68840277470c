"""Read-only questions about a state: who is where, victory points, movement limits."""

from __future__ import annotations

from itertools import combinations

from rules.dragondale.board import BOARDS_BY_N, ENTER_CAP, LEAVE_CAP, Board
from rules.dragondale.content import TRACK, TRIBES
from rules.dragondale.state import State, Token, Unit

INF = 99


def board(s: State) -> Board:
    return BOARDS_BY_N[s.n]


def units_at(s: State, seat: int, terr: str) -> list[Unit]:
    return [u for u in s.tribes[seat].units if u.loc == terr]


def seats_at(s: State, terr: str) -> list[int]:
    return [i for i, t in enumerate(s.tribes) if any(u.loc == terr for u in t.units)]


def enemies_at(s: State, seat: int, terr: str) -> list[int]:
    return [i for i in seats_at(s, terr) if i != seat]


def free_for(s: State, seat: int, terr: str) -> bool:
    """No unit of another tribe and not the Dragon."""
    return s.dragon != terr and not enemies_at(s, seat, terr)


def conqueror(s: State, terr: str) -> int | None:
    if s.dragon == terr:
        return None
    here = seats_at(s, terr)
    return here[0] if len(here) == 1 else None


def rune_count(s: State, seat: int) -> int:
    b = board(s)
    return sum(1 for t in b.terr.values() if t.rune_stone and conqueror(s, t.id) == seat)


def conquered_runes(s: State) -> int:
    b = board(s)
    return sum(1 for t in b.terr.values() if t.rune_stone and conqueror(s, t.id) is not None)


def vp(s: State, seat: int) -> int:
    # felled wood counts once secured: "altered" means "felled and secured" [General Flow]
    trees = sum(2 for t in s.trees if t.by == seat and t.state != "unaltered" and t.id not in s.wood)
    return trees + rune_count(s, seat) + (1 if s.dragon_vp == seat else 0)


def can_enter(s: State, seat: int, terr: str) -> bool:
    """Encampments admit only their own tribe."""
    return BOARDS_BY_N[s.n].terr[terr].kind != "camp" or s.tribes[seat].camp == terr


def leave_cap(kind: str) -> int:
    return LEAVE_CAP.get(kind, INF)


def enter_cap(kind: str) -> int:
    return ENTER_CAP.get(kind, INF)


def other_tunnels(s: State, leaving: str) -> list[str]:
    """Where a unit goes before others leave the Root Tunnel `leaving`: "any other ROOT TUNNEL",
    whoever is in it (an enemy or the Dragon there means an encounter, not a sealed tunnel)."""
    return [t for t in board(s).tunnels if t != leaving]


def pay_resources(s: State, seat: int) -> int:
    t = s.tribes[seat]
    return len(t.tokens) + len(t.hand)


def occupancy(s: State) -> dict[str, set[int]]:
    """Which tribes have units in each territory."""
    occ: dict[str, set[int]] = {}
    for i, t in enumerate(s.tribes):
        for u in t.units:
            if u.loc is not None:
                occ.setdefault(u.loc, set()).add(i)
    return occ


def explore_ok(
    s: State, seat: int, direction: str, target: str, via: list[str],
    occ: dict[str, set[int]] | None = None, counts: dict[str, int] | None = None,
) -> bool:
    """Whether some choice of units makes this exploration legal under every territory rule."""
    b = board(s)
    if occ is None:
        occ = occupancy(s)
    if counts is None:
        counts = {}
        for u in s.tribes[seat].units:
            if u.loc is not None:
                counts[u.loc] = counts.get(u.loc, 0) + 1

    if target not in b.terr or not 1 <= len(via) <= 2 or len(set(via)) != len(via):
        return False
    if any(v not in b.adj[target] for v in via):
        return False
    marsh = 0
    if direction == "in":
        tk = b.terr[target].kind
        if not can_enter(s, seat, target) or enter_cap(tk) < len(via):
            return False
        for src in via:
            n = counts.get(src, 0)
            k = b.terr[src].kind
            if n < 1 or k == "fog":
                return False
            if k == "tunnel" and (n < 2 or not other_tunnels(s, src)):
                return False
            marsh += k == "marsh"
    else:
        n = counts.get(target, 0)
        k = b.terr[target].kind
        if n < len(via) or leave_cap(k) < len(via):
            return False
        if k == "fog" and len(via) != 2:
            return False
        if k == "tunnel" and (n - 1 < len(via) or not other_tunnels(s, target)):
            return False
        if sum(1 for v in via if b.terr[v].kind == "inner") > 1:
            return False
        if any(not can_enter(s, seat, v) for v in via):
            return False
        marsh = k == "marsh"
    return pay_resources(s, seat) >= marsh


def take_range(s: State, seat: int, mv: dict, i: int) -> tuple[int, int, list[str]]:
    """For leg i of an exploration: min and max units and the units that may go."""
    b = board(s)
    legs = mv["legs"]
    used = sum(len(leg["units"]) for leg in legs[:i])
    rest = len(legs) - i - 1
    leg = legs[i]
    src = leg["from"]
    taken = {u for lg in legs[:i] for u in lg["units"]}
    avail = [u.id for u in units_at(s, seat, src) if u.id not in taken]
    n = len(units_at(s, seat, src))
    sk = b.terr[src].kind
    budget = min(n - (1 if sk == "tunnel" else 0), leave_cap(sk))
    if mv["dir"] == "in":
        hi = min(budget, enter_cap(b.terr[mv["target"]].kind) - used - rest)
    else:
        hi = min(enter_cap(b.terr[leg["to"]].kind), budget - used - rest)
        if sk == "fog":
            hi = min(hi, 1)
    return 1, min(hi, len(avail)), avail


def stance_cards(s: State, seat: int, utype: str) -> list[str]:
    t = TRIBES[s.tribes[seat].name]
    out = [c["id"] for c in t["stances"][utype]]
    if s.experienced:
        left = set(t.get("leave_out_experienced", []))
        out = [c for c in out if c not in left]
    return out


def unit_types(s: State, seat: int) -> list[str]:
    return list(TRIBES[s.tribes[seat].name]["stances"])


def forced_options(s: State, seat: int, terr: str, maxd: int) -> list[str]:
    """Destinations for "move all your units into max. N free adjacent territories"."""
    b = board(s)
    units = units_at(s, seat, terr)
    n = len(units)
    k = b.terr[terr].kind
    if n == 0 or k == "tunnel" or n > leave_cap(k):
        return []
    dests = sorted(d for d in b.adj[terr] if free_for(s, seat, d) and can_enter(s, seat, d))
    out: list[str] = []
    if k != "fog":
        out += [f"to:{d}" for d in dests if enter_cap(b.terr[d].kind) >= n]
    if maxd >= 2 and n >= 2 and (k != "fog" or n == 2):
        types = sorted({u.type for u in units})
        for d1 in dests:
            for d2 in dests:
                if d1 == d2:
                    continue
                inner = (b.terr[d1].kind == "inner") + (b.terr[d2].kind == "inner")
                if inner > 1 or enter_cap(b.terr[d1].kind) < n - 1:
                    continue
                out += [f"to:{d1}+{d2}:{t}" for t in types]
    return out


def play_order(start: int, n: int) -> list[int]:
    """Seats in playing order from the starting tribe (seat numbers go round the table, which is
    clockwise for 2 and 4 tribes and counter-clockwise for 3, by the placing of the encampments)."""
    return [(start + i) % n for i in range(n)]


def dominance_rank(s: State, side: int) -> int:
    return s.dominance.index(side)


def might(s: State, level: int, itype: str) -> int:
    col = "might_top" if itype in s.fury_top else "might_bottom"
    return int(TRACK[col][str(level)])


def token_combos(tokens: tuple[Token, ...], cost: dict) -> list[list[int]]:
    """Every way to pay a tree or card cost, as sorted index lists.

    Every combination is offered, also those of identical tokens: keeping one per kind of token
    would make the public payment say which held tokens differ in type.
    """
    idx = list(range(len(tokens)))
    if cost["kind"] == "any":
        groups = [[i] for i in idx]
    elif cost["kind"] == "type":
        pool = [i for i in idx if tokens[i].type == cost["type"]]
        groups = [list(c) for c in combinations(pool, cost["count"])]
    elif cost["kind"] == "same":
        groups = []
        for ty in {tokens[i].type for i in idx}:
            pool = [i for i in idx if tokens[i].type == ty]
            groups += [list(c) for c in combinations(pool, cost["count"])]
    else:  # four different types
        groups = [list(c) for c in combinations(idx, 4) if len({tokens[i].type for i in c}) == 4]
    return sorted(sorted(g) for g in groups)
