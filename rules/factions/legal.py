"""Legal answers to each prompt; decide checks a command against the same lists."""

from __future__ import annotations

from typing import Any

from rules.core import Command
from rules.factions.board import Geometry, camp_spots, space_name, tile_spaces
from rules.factions.content import FACTIONS, Power
from rules.factions.schedule import pending
from rules.factions.state import BASE, State, Unit

Args = dict[str, Any]

# The command types that answer each prompt kind (the platform refuses any other type).
ANSWERS: dict[str, frozenset[str]] = {
    "advantage": frozenset({"factions.choose"}),
    "tile": frozenset({"factions.tile"}),
    "center": frozenset({"factions.center"}),
    "aside": frozenset({"factions.aside"}),
    "draft": frozenset({"factions.recruit", "factions.done"}),
    "reinforce": frozenset({"factions.recruit", "factions.done"}),
    "turn": frozenset({"factions.activate", "factions.command", "factions.recruit"}),
    "activation": frozenset({"factions.step", "factions.fly", "factions.land", "factions.attack",
                             "factions.shoot", "factions.use", "factions.end"}),
}


def _cmd(verb: str, seat: int, **args: Any) -> Command:
    return Command(f"factions.{verb}", args, seat)


# --- set-up ---------------------------------------------------------------

def advantage_options(s: State) -> list[str]:
    if s.n == 2:
        return ["terrain", "resource"]
    taken = {a for _, a in s.choices}
    return [a for a in ("tile_first", "resources", "recruit_last") if a not in taken]


def _tile_feasible(s: State, seat: int, num: int, spot: int, camps: frozenset[int]) -> bool:
    """After this placement, can the remaining turns still fill every base camp spot without water?"""
    placed = sum(1 for t in s.tiles if t is not None) + 1
    open_camps = sum(1 for c in camps if s.tiles[c - 1] is None and c != spot)
    if open_camps == 0:
        return True
    rest = s.tile_seq[placed:]
    total = 0
    for p in range(s.n):
        turns = sum(1 for q in rest if q == p)
        dry = sum(1 for t in s.hand[p] if not (p == seat and t == num)
                  and "W" not in FACTIONS[s.factions[p]].tiles[t - 1])
        total += min(turns, dry)
    return total >= open_camps


def tile_options(s: State, seat: int) -> list[Args]:
    camps = camp_spots(s.layout)
    out: list[Args] = []
    tiles = FACTIONS[s.factions[seat]].tiles
    for num in s.hand[seat]:
        pattern = tiles[num - 1]
        rots = (0,) if pattern[::-1] == pattern else (0, 180)
        for spot in range(1, len(s.tiles) + 1):
            if s.tiles[spot - 1] is not None:
                continue
            if spot in camps and "W" in pattern:
                continue
            if not _tile_feasible(s, seat, num, spot, camps):
                continue
            for rot in rots:
                out.append({"tile": num, "spot": spot, "rot": rot})
    return out


def center_placements(s: State, kind: str, space: str) -> list[tuple[str, str]] | None:
    """The Resource Centers a `center` command puts down, or None when it is not allowed now."""
    lay = s.layout
    w = lay.width
    other = "mana" if kind == "gold" else "gold"
    if s.n != 2:
        pairs = lay.center_pairs
        if kind != "gold" or s.center_step >= len(pairs) or space not in pairs[s.center_step]:
            return None
        a, b = pairs[s.center_step]
        return [("gold", space), ("mana", b if space == a else a)]
    names = {space_name(i, w): i for i in range(lay.width * lay.height)}
    i = names.get(space)
    if i is None:
        return None
    step = s.center_step
    spot = (5, 2, 8)[step]
    if i not in tile_spaces(spot, lay):
        return None
    x, y = i % w, i // w
    if step == 0:
        if kind != "gold":
            return None
        # The center tile's pair sits on a diagonal: the mana goes to the opposite corner.
        dx = 1 if x % 2 == 0 else -1
        dy = 1 if y % 2 == 0 else -1
        return [("gold", space), ("mana", space_name((y + dy) * w + x + dx, w))]
    if step == 2:
        first_kind = next(k for p, k, _ in s.centers if spot_row(p, w) == 0 and p % w in (2, 3))
        if kind == first_kind:
            return None
    out = [(kind, space)]
    if s.centers_reading == 6:
        # The edge center: opposite type, same row, two spaces between (the "Too much space" rule).
        ex = 5 if x == 2 else 0
        out.append((other, space_name(y * w + ex, w)))
    return out


def spot_row(i: int, width: int) -> int:
    return (i // width) // 2


def center_options(s: State) -> list[Args]:
    w = s.layout.width
    cands: list[str]
    if s.n == 2:
        spot = (5, 2, 8)[s.center_step]
        cands = [space_name(i, w) for i in tile_spaces(spot, s.layout)]
    else:
        cands = list(s.layout.center_pairs[s.center_step])
    out: list[Args] = []
    for kind in ("gold", "mana"):
        for sp in cands:
            if center_placements(s, kind, sp) is not None:
                out.append({"kind": kind, "space": sp})
    return out


def recruit_options(s: State, seat: int) -> list[str]:
    cards = FACTIONS[s.factions[seat]].units
    return [c for c in s.pool[seat] if cards[c].cost <= s.gold[seat]]


# --- rounds ---------------------------------------------------------------

def turn_options(s: State, seat: int) -> list[Command]:
    out: list[Command] = []
    if s.turn != seat:
        return out
    units = [u for u in pending(s, s.stage) if u.seat == seat]
    for u in units:
        if u.rank == s.level:
            out.append(_cmd("activate", seat, unit=u.code))
    if s.stage == "main":
        for cap in units:
            card = s.card(cap)
            if card.captain and card.rank == s.level and cap.pos >= 0:
                for u in units:
                    if u is not cap and u.rank <= s.level:
                        out.append(_cmd("command", seat, captain=cap.code, unit=u.code))
        if not one_recruit_made(s, seat):
            for code in recruit_options(s, seat):
                out.append(_cmd("recruit", seat, unit=code))
    return out


def one_recruit_made(s: State, seat: int) -> bool:
    """Step 3: "You may recruit a Unit before you activate one of your Units": one recruit, then
    the seat activates before it recruits again (rules version 2; version 1 allowed any number)."""
    return s.rules >= 2 and s.recruited == seat


def entry_steps(s: State, geo: Geometry, u: Unit) -> list[Args]:
    out: list[Args] = []
    w = geo.width
    # "If the spaces are blocked by enemy Units, Units entering from the Base Camp can move them to
    # an adjacent space": only when no entry space is open (rules version 2; RULINGS.md).
    blocked = all(e in s.occ for e in geo.entries[u.seat]) or s.rules < 2
    for e in geo.entries[u.seat]:
        k = s.occ.get(e)
        if k is None:
            out.append({"to": space_name(e, w)})
        elif s.units[k].seat != u.seat and blocked:
            for a in geo.ring[e]:
                if a not in s.occ:
                    out.append({"to": space_name(e, w), "aside": space_name(a, w)})
    return out


def move_steps(s: State, geo: Geometry, u: Unit) -> list[Args]:
    out: list[Args] = []
    w = geo.width
    bull = s.card(u).bullrush
    for q in geo.adj[u.seat][u.pos]:
        k = s.occ.get(q)
        if k is None:
            out.append({"to": space_name(q, w)})
        elif bull:
            for a in geo.ring[q]:
                if a not in s.occ:
                    out.append({"to": space_name(q, w), "aside": space_name(a, w)})
    return out


def melee_targets(s: State, geo: Geometry, u: Unit) -> list[int]:
    out = []
    for q in geo.adj[u.seat][u.pos]:
        k = s.occ.get(q)
        if k is not None:
            t = s.units[k]
            # Flying units are only adjacent to flying units (Aerial Units in combat).
            if t.seat != u.seat and t.flying == u.flying:
                out.append(q)
    return out


def shoot_targets(s: State, geo: Geometry, u: Unit) -> list[int]:
    rng = s.card(u).range
    if rng < 2:
        return []
    row = geo.dist[u.seat][u.pos]
    out = []
    for t in s.units.values():
        if t.seat == u.seat or t.pos < 0:
            continue
        d = row[t.pos]
        if u.flying:
            ok = t.flying and 2 <= d <= rng
        elif t.flying:
            ok = 1 <= d <= rng  # a flying unit is never adjacent to a ground shooter
        else:
            ok = 2 <= d <= rng
        if ok:
            out.append(t.pos)
    return sorted(out)


def reaches(s: State, u: Unit, t: Unit, p: Power) -> bool:
    """Whether `u`'s spell or ability may take `t` as a target, as far as flying goes.

    Spells: "Non-Aerial Units cannot target Aerial Units with spells or abilities", and "When
    flying, aerial Units may not cast spells or use ranged attacks on non-flying Units" (the whole
    sentence: a flyer's spells reach flyers only). Abilities: "Ability Damage cannot target Flying
    Units", and an aerial unit "must land to ... attack a non-flying Unit" (RULINGS.md, Combat).
    """
    if t.flying and not s.card(u).aerial:
        return False
    if p.kind == "spell":
        return t.flying or not u.flying
    if p.target == "enemy":
        return not t.flying and not u.flying
    return True


def power_targets(s: State, geo: Geometry, u: Unit, p: Power) -> list[int]:
    if p.kind == "passive":
        return []
    if p.uses is not None and u.uses_of(p.code) >= p.uses:
        return []
    if p.kind == "spell" and s.mana[u.seat] < p.mana:
        return []
    row = geo.dist[u.seat][u.pos]
    out = []
    for t in s.units.values():
        if t.pos < 0:
            continue
        d = row[t.pos]
        if d > p.range:
            continue
        if p.target == "enemy":
            if t.seat == u.seat or d < 1:
                continue
        elif p.target == "ally":
            if t.seat != u.seat:
                continue
            if p.effect == "heal" and t.damage == 0:
                continue
            if p.effect == "boost_attack" and t.atk_boost:
                continue
            if p.effect == "boost_health" and t.hp_boost:
                continue
        else:
            continue
        if reaches(s, u, t, p):
            out.append(t.pos)
    return sorted(out)


def activation_options(s: State, seat: int) -> list[Command]:
    if s.active is None:
        return []
    u = s.units[s.active]
    if u.seat != seat:
        return []
    geo = s.geo
    assert geo is not None
    w = geo.width
    out: list[Command] = []
    if u.pos == BASE:
        steps = entry_steps(s, geo, u)
        for a in steps:
            out.append(Command("factions.step", a, seat))
        if not steps:
            out.append(_cmd("end", seat))  # both entry spaces blocked: stay in Base Camp
        return out
    if s.moves_left > 0:
        for a in move_steps(s, geo, u):
            out.append(Command("factions.step", a, seat))
    card = s.card(u)
    if card.aerial:
        if not u.flying and s.mode == 0:
            out.append(_cmd("fly", seat))
        elif u.flying and s.mode != 2:
            out.append(_cmd("land", seat))
    for q in melee_targets(s, geo, u):
        out.append(_cmd("attack", seat, target=space_name(q, w)))
    for q in shoot_targets(s, geo, u):
        out.append(_cmd("shoot", seat, target=space_name(q, w)))
    for p in card.powers:
        for q in power_targets(s, geo, u, p):
            out.append(_cmd("use", seat, power=p.code, target=space_name(q, w)))
    out.append(_cmd("end", seat))
    return out


def legal(s: State, seat: int) -> list[Command]:
    if s.pk == "" or seat not in s.ps:
        return []
    pk = s.pk
    if pk == "advantage":
        return [_cmd("choose", seat, advantage=a) for a in advantage_options(s)]
    if pk == "tile":
        return [Command("factions.tile", a, seat) for a in tile_options(s, seat)]
    if pk == "center":
        return [Command("factions.center", a, seat) for a in center_options(s)]
    if pk == "aside":
        return [_cmd("aside", seat, unit=c) for c in s.pool[seat]]
    if pk == "draft":
        out = [_cmd("recruit", seat, unit=c) for c in recruit_options(s, seat)]
        if s.spent[seat] >= 5:
            out.append(_cmd("done", seat))
        return out
    if pk == "reinforce":
        return [*(_cmd("recruit", seat, unit=c) for c in recruit_options(s, seat)), _cmd("done", seat)]
    if pk == "turn":
        return turn_options(s, seat)
    if pk == "activation":
        return activation_options(s, seat)
    return []
