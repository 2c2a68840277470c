"""Folding events into state: pure, never draws."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules.core import Event
from rules.factions.board import build_geometry, parse_space, rotate
from rules.factions.content import FACTIONS, LAYOUTS
from rules.factions.schedule import after_reinforce, schedule
from rules.factions.state import Setup, State, Unit, revise, revise_setup, revise_unit

D = Mapping[str, Any]


def _set(t: tuple, i: int, v: Any) -> tuple:
    return (*t[:i], v, *t[i + 1:])


def _add(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    return (*t[:i], t[i] + v, *t[i + 1:])


def _su(s: State, **kw: Any) -> State:
    """The state with some set-up fields changed."""
    return revise(s, setup=revise_setup(s.setup, **kw))


def _put(s: State, u: Unit) -> dict[str, Unit]:
    units = dict(s.units)
    units[u.key] = u
    return units


def _setup(s: State, d: D) -> State:
    n = len(d["factions"])
    lay = LAYOUTS[n]
    setup = Setup(
        centers_reading=d["centers"], ranking=tuple(d["ranking"]), tiles=(None,) * (lay.width * lay.height // 4),
        hand=tuple((1, 2, 3, 4, 5) for _ in range(n)), aside=((),) * n, spent=(0,) * n, drafted=(False,) * n,
    )
    s = State(
        n=n, rules=d.get("rules", 1), factions=tuple(d["factions"]), setup=setup, phase="advantage",
        pool=tuple(tuple(FACTIONS[f].units) for f in d["factions"]),
        gold=(10,) * n, mana=(10,) * n, vp=(0,) * n, eliminated=((),) * n, empty_phases=(0,) * n,
    )
    if n == 4:
        return _advantages_settled(s)
    return revise(s, pk="advantage", ps=(s.ranking[0],))


def _advantages_settled(s: State) -> State:
    """Turn the advantages into tile, center and recruit orders (2 Player / 3 and 4 Player Setup)."""
    n = s.n
    if n == 2:
        seat, adv = s.choices[0]
        p1 = seat if adv == "terrain" else 1 - seat
        p2 = 1 - p1
        s = _su(s, tile_first=p1, center_seat=p2, recruit_last=p2, order=(p1, p2), tile_seq=(p1, p2) * 4 + (p1,))
        return revise(s, phase="tiles", pk="tile", ps=(p1,))
    if n == 3:
        taken = dict((adv, seat) for seat, adv in s.choices)
        left = [a for a in ("tile_first", "resources", "recruit_last") if a not in taken]
        taken[left[0]] = s.ranking[2]
        first, cseat, last = taken["tile_first"], taken["resources"], taken["recruit_last"]
    else:
        first = cseat = last = s.ranking[0]
    tile_seq = tuple((first + k) % n for k in range(n)) * 4
    order = tuple((last + 1 + k) % n for k in range(n))
    if n == 3 and s.rules >= 2:
        # "the player who placed a Terrain Tile first recruits Units first, then the player seated
        # clockwise" (FAQ), and the recruit_last seat last: the third seat goes between (RULINGS.md).
        order = (first, 3 - first - last, last)
    s = _su(s, tile_first=first, center_seat=cseat, recruit_last=last, order=order, tile_seq=tile_seq)
    return revise(s, phase="tiles", pk="tile", ps=(first,))


def _advantage(s: State, d: D) -> State:
    s = _su(s, choices=(*s.choices, (d["seat"], d["advantage"])))
    if s.n == 2 or len(s.choices) == 2:
        return _advantages_settled(s)
    return revise(s, pk="advantage", ps=(s.ranking[len(s.choices)],))


def _tile(s: State, d: D) -> State:
    seat, num, spot, rot = d["seat"], d["tile"], d["spot"], d["rot"]
    pattern = rotate(FACTIONS[s.factions[seat]].tiles[num - 1], rot)
    tiles = _set(s.tiles, spot - 1, (seat, pattern))
    hand = _set(s.hand, seat, tuple(t for t in s.hand[seat] if t != num))
    placed = sum(1 for t in tiles if t is not None)
    s = _su(s, tiles=tiles, hand=hand)
    if placed < len(tiles):
        nxt = s.tile_seq[placed]
        return revise(s, pk="tile", ps=(nxt,))
    geo = build_geometry(s.layout, tiles)
    return revise(s, geo=geo, phase="centers", pk="center", ps=(s.center_seat,))


def centers_needed(s: State) -> int:
    """Player commands in the Resource Center step (2 players: center, south row, north row)."""
    if s.n == 2:
        return 3
    return len(s.layout.center_pairs) if s.centers_reading == 6 else 2


def _center(s: State, d: D) -> State:
    w, h = s.layout.width, s.layout.height
    placed = tuple((parse_space(c["space"], w, h) or 0, c["kind"], -1) for c in d["placed"])
    s = revise(_su(s, center_step=s.center_step + 1), centers=s.centers + placed)
    if s.center_step < centers_needed(s):
        return s
    first = s.order[0]
    return revise(s, phase="aside", pk="aside", ps=(first,))


def _aside(s: State, d: D) -> State:
    seat, code = d["seat"], d["unit"]
    s = revise(_su(s, aside=_set(s.aside, seat, (*s.aside[seat], code))),
               pool=_set(s.pool, seat, tuple(c for c in s.pool[seat] if c != code)))
    for seat2 in s.order:
        if len(s.aside[seat2]) < 3:
            return revise(s, pk="aside", ps=(seat2,))
    return revise(s, phase="draft", pk="draft", ps=(s.order[0],))


def _recruit(s: State, d: D) -> State:
    seat, code = d["seat"], d["unit"]
    card = s.card_of(seat, code)
    fresh = s.phase == "play" and s.stage == "reinforce"
    u = Unit(seat, code, card.rank, flying=card.aerial, fresh=fresh)
    changes = {"units": _put(s, u), "gold": _add(s.gold, seat, -card.cost),
               "pool": _set(s.pool, seat, tuple(c for c in s.pool[seat] if c != code))}
    if s.phase == "draft":
        return revise(s, **changes, setup=revise_setup(s.setup, spent=_add(s.spent, seat, card.cost)))
    if s.stage == "main":
        # A newly recruited higher Rank can move the Rank Order up (Step 3, example). The seat has
        # now recruited its one Unit before its next activation (Step 3 item 1).
        return schedule(s, **changes, recruited=seat)
    return revise(s, **changes)


def _done(s: State, d: D) -> State:
    seat = d["seat"]
    if s.phase == "draft":
        s = _su(s, drafted=_set(s.drafted, seat, True))
        for seat2 in s.order:
            if not s.drafted[seat2]:
                return revise(s, pk="draft", ps=(seat2,))
        return revise(s, pk="", ps=())
    return after_reinforce(s, seat)


def _round(s: State, d: D) -> State:
    units: dict[str, Unit] = {}
    home: set[str] = set()
    geo = s.geo
    assert geo is not None
    for k, u in s.units.items():
        # Step 5: End of Activation, Command and one-round tokens go.
        u2 = revise_unit(u, done=False, commanding=False, fresh=False, weak=0) if (
            u.done or u.commanding or u.fresh or u.weak) else u
        units[k] = u2
        if u.pos >= 0 and geo.owner[u.pos] == u.seat:
            home.add(k)
    s = revise(s, phase="play", stage="main", round=d["round"], units=units,
                home_start=frozenset(home), level=0, last=-1, floor=0, active=None, recruited=-1)
    return schedule(s)


def _activate(s: State, key: str, **changes: Any) -> State:
    u = s.units[key]
    recruited = -1 if s.recruited == u.seat else s.recruited
    return revise(s, **changes, active=key, moves_left=s.card(u).movement, mode=0, last=u.seat,
                  pk="activation", ps=(u.seat,), recruited=recruited)


def _activated(s: State, d: D) -> State:
    return _activate(s, d["unit"])


def _commanded(s: State, d: D) -> State:
    # The Captain commands another unit, so the token changes nothing `_activate` reads.
    cap = s.units[d["captain"]]
    return _activate(s, d["unit"], units=_put(s, revise_unit(cap, commanding=True)))


def _moved(s: State, d: D) -> State:
    geo = s.geo
    assert geo is not None
    w, h = geo.width, geo.height
    key = d["unit"]
    u = s.units[key]
    to = parse_space(d["to"], w, h)
    assert to is not None
    units = dict(s.units)
    occ = dict(s.occ)
    if u.pos >= 0:
        del occ[u.pos]
    if d.get("aside") is not None:
        other_key = occ[to]
        aside = parse_space(d["aside"], w, h)
        assert aside is not None
        units[other_key] = revise_unit(units[other_key], pos=aside)
        occ[aside] = other_key
    units[key] = revise_unit(u, pos=to)
    occ[to] = key
    return revise(s, units=units, occ=occ, moves_left=s.moves_left - 1)


def _claimed(s: State, d: D) -> State:
    seat, bonus = d["seat"], d["bonus"]
    geo = s.geo
    assert geo is not None
    pos = parse_space(d["space"], geo.width, geo.height)
    centers = tuple((p, k, seat) if p == pos else (p, k, o) for p, k, o in s.centers)
    kind = next(k for p, k, _ in s.centers if p == pos)
    if kind == "gold":
        return revise(s, centers=centers, gold=_add(s.gold, seat, bonus))
    return revise(s, centers=centers, mana=_add(s.mana, seat, bonus))


def _flew(s: State, d: D) -> State:
    u = s.units[d["unit"]]
    return revise(s, units=_put(s, revise_unit(u, flying=True)), mode=1)


def _landed(s: State, d: D) -> State:
    u = s.units[d["unit"]]
    return revise(s, units=_put(s, revise_unit(u, flying=False)), mode=2)


def _power_used(s: State, d: D) -> State:
    u = s.units[d["unit"]]
    seat = u.seat
    power = d["power"]
    used = tuple((p, n + 1) if p == power else (p, n) for p, n in u.used)
    if not any(p == power for p, _ in u.used):
        used = (*used, (power, 1))
    return revise(s, units=_put(s, revise_unit(u, used=used)), mana=_add(s.mana, seat, -d["mana"]))


def _damaged(s: State, d: D) -> State:
    u = s.units[d["unit"]]
    return revise(s, units=_put(s, revise_unit(u, damage=d["damage"], hp_boost=0, atk_boost=0)))


def _healed(s: State, d: D) -> State:
    u = s.units[d["unit"]]
    return revise(s, units=_put(s, revise_unit(u, damage=d["damage"])))


def _boosted(s: State, d: D) -> State:
    u = s.units[d["unit"]]
    if d["stat"] == "attack":
        u = revise_unit(u, atk_boost=1)
    else:
        u = revise_unit(u, hp_boost=1)
    return revise(s, units=_put(s, u))


def _weakened(s: State, d: D) -> State:
    u = s.units[d["unit"]]
    return revise(s, units=_put(s, revise_unit(u, weak=1)))


def _pushed(s: State, d: D) -> State:
    geo = s.geo
    assert geo is not None
    key = d["unit"]
    u = s.units[key]
    to = parse_space(d["to"], geo.width, geo.height)
    assert to is not None
    occ = dict(s.occ)
    del occ[u.pos]
    occ[to] = key
    return revise(s, units=_put(s, revise_unit(u, pos=to)), occ=occ)


def _eliminated(s: State, d: D) -> State:
    key, by, points = d["unit"], d["by"], d["vp"]
    u = s.units[key]
    units = dict(s.units)
    del units[key]
    occ = dict(s.occ)
    if u.pos >= 0:
        occ.pop(u.pos, None)
    return revise(s, units=units, occ=occ, vp=_add(s.vp, by, points),
                   eliminated=_set(s.eliminated, u.seat, (*s.eliminated[u.seat], u.code)))


def _tie_rolled(s: State, d: D) -> State:
    w = d["winner"]
    return revise(s, rolloff=(), turn=w, pk="turn", ps=(w,))


def _ended(s: State, d: D) -> State:
    u = s.units.get(d["unit"])
    units = s.units
    if u is not None:
        units = _put(s, revise_unit(u, done=True))
    return schedule(s, units=units, active=None, moves_left=0, mode=0)


def _counted(s: State, d: D) -> State:
    gold = tuple(g + a for g, (a, _) in zip(s.gold, d["gains"], strict=True))
    mana = tuple(m + b for m, (_, b) in zip(s.mana, d["gains"], strict=True))
    return revise(s, gold=gold, mana=mana, empty_phases=tuple(d["empty"]))


def _lost(s: State, d: D) -> State:
    seat = d["seat"]
    units = {k: u for k, u in s.units.items() if u.seat != seat}
    occ = {p: k for p, k in s.occ.items() if k in units}
    return revise(s, out=s.out | {seat}, units=units, occ=occ)


def _won(s: State, d: D) -> State:
    return revise(s, phase="over", winners=tuple(d["winners"]), reason=d["reason"], pk="", ps=(),
                   active=None)


HANDLERS: dict[str, Callable[[State, D], State]] = {
    "factions.GameSetUp": _setup,
    "factions.AdvantageChosen": _advantage,
    "factions.TilePlaced": _tile,
    "factions.CentersPlaced": _center,
    "factions.UnitSetAside": _aside,
    "factions.UnitRecruited": _recruit,
    "factions.RecruitingDone": _done,
    "factions.RoundStarted": _round,
    "factions.UnitActivated": _activated,
    "factions.CaptainCommanded": _commanded,
    "factions.UnitMoved": _moved,
    "factions.CenterClaimed": _claimed,
    "factions.TookOff": _flew,
    "factions.Landed": _landed,
    "factions.PowerUsed": _power_used,
    "factions.UnitDamaged": _damaged,
    "factions.UnitHealed": _healed,
    "factions.UnitBoosted": _boosted,
    "factions.UnitWeakened": _weakened,
    "factions.UnitPushed": _pushed,
    "factions.UnitEliminated": _eliminated,
    "factions.ActivationEnded": _ended,
    "factions.RankTieRolled": _tie_rolled,
    "factions.ResourcesCounted": _counted,
    "factions.SeatLost": _lost,
    "factions.GameWon": _won,
}

# Events that record a fact (an attack and its die roll) without changing the state.
RECORD_ONLY = frozenset({"factions.AttackMade"})


def evolve(s: State, e: Event) -> State:
    h = HANDLERS.get(e.type)
    if h is None:
        if e.type in RECORD_ONLY:
            return s
        raise ValueError(f"unknown event {e.type}")
    return h(s, e.data)
