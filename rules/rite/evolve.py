"""The pure fold: one event in, the next state out. Never draws, never decides."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules.core import Event

from .board import geometry
from .primal_base import HANDLERS as PRIMAL_HANDLERS
from .primal_base import lurking, set_unit
from .state import BOARD, Player, State, initial_units, revise, with_player, with_unit

Data = Mapping[str, Any]


def _idx(s: State, label: str) -> int:
    return s.geo.index[label]


def _set_player(s: State, seat: int, **kw: Any) -> tuple[Player, ...]:
    ps = list(s.players)
    ps[seat] = with_player(ps[seat], **kw)
    return tuple(ps)


def _game_started(s: State, d: Data) -> State:
    factions = tuple(d["factions"])
    radius = int(d["radius"])
    units = initial_units(factions)
    n = geometry(radius).size
    o = d["options"]
    return revise(
        s,
        phase="map",
        rules=int(d.get("rules", 2)),
        factions=factions,
        method=d["map"],
        opts=(bool(o["volcano"]), bool(o["fireflies"]), bool(o["elementals"]), bool(o["firelord"])),
        radius=radius,
        kinds=("",) * n,
        tfac=("",) * n,
        tnum=(0,) * n,
        units=units,
        occ=(-1,) * n,
        players=tuple(Player(f) for f in factions),
        order=tuple(d["order"]),
        mode="none",
    )


def _map_built(s: State, d: Data) -> State:
    kinds, tfac, tnum = list(s.kinds), list(s.tfac), list(s.tnum)
    for lab, kind, fac, num in d["tiles"]:
        i = _idx(s, lab)
        kinds[i], tfac[i], tnum[i] = kind, fac, num
    return revise(s, kinds=tuple(kinds), tfac=tuple(tfac), tnum=tuple(tnum))


def _hands_dealt(s: State, d: Data) -> State:
    return revise(s, hands=tuple(tuple(h) for h in d["hands"]), mode="place", placed=0)


def _tile_placed(s: State, d: Data) -> State:
    i = _idx(s, d["at"])
    kinds, tfac, tnum = list(s.kinds), list(s.tfac), list(s.tnum)
    kinds[i], tfac[i], tnum[i] = d["kind"], d["faction"], d["num"]
    hands = list(s.hands)
    h = list(hands[d["seat"]])
    h.remove(d["tile"])
    hands[d["seat"]] = tuple(h)
    return revise(
        s, kinds=tuple(kinds), tfac=tuple(tfac), tnum=tuple(tnum), hands=tuple(hands), placed=s.placed + 1
    )


def _tiles_swapped(s: State, d: Data) -> State:
    a, b = _idx(s, d["a"]), _idx(s, d["b"])
    kinds, tfac, tnum = list(s.kinds), list(s.tfac), list(s.tnum)
    kinds[a], kinds[b] = kinds[b], kinds[a]
    tfac[a], tfac[b] = tfac[b], tfac[a]
    tnum[a], tnum[b] = tnum[b], tnum[a]
    return revise(s, kinds=tuple(kinds), tfac=tuple(tfac), tnum=tuple(tnum))


def _mode_set(s: State, d: Data) -> State:
    # `queue` (rules version 2): the steps of the end of the round left when this prompt paused it
    queue = tuple(d["queue"]) if "queue" in d else s.queue
    return revise(s, mode=d["mode"], mctx=tuple(d.get("ctx", ())), resume=d.get("resume", s.resume), queue=queue)


def _flow_queued(s: State, d: Data) -> State:
    return revise(s, mode="flow", queue=tuple(d["steps"]), active=-1)


def _flow_step(s: State, d: Data) -> State:
    return revise(s, queue=s.queue[1:])


def _play_started(s: State, d: Data) -> State:
    return revise(s, phase="play", round=1, hands=())


def _turn_started(s: State, d: Data) -> State:
    # `lurking` records where the Raptors start the turn, a fact Surprise Attack looks back on.
    return revise(
        s, active=d["seat"], mode="turn", mctx=(), actions=0, tpowers=frozenset(), lurking=lurking(s, d["seat"])
    )


def _move_unit(s: State, uid: int, tiles: tuple[int, ...], where: str) -> State:
    return set_unit(s, uid, tiles, where, s.units[uid].controller)


def _undeliver(s: State, *uids: int) -> State:
    if s.delivered and any(u in s.delivered for u in uids):
        return revise(s, delivered=s.delivered.difference(uids))
    return s


def _unit_placed(s: State, d: Data) -> State:
    return _undeliver(_move_unit(s, d["uid"], (_idx(s, d["at"]),), BOARD), d["uid"])


def _unit_moved(s: State, d: Data) -> State:
    uid = d["uid"]
    s = _move_unit(s, uid, (_idx(s, d["path"][-1]),), BOARD)
    u = s.units[uid]
    if u.controller != u.owner and u.owner >= 0 and uid not in s.held and s.factions[u.controller] == "chaos":
        return revise(s, delivered=s.delivered | {uid})
    return _undeliver(s, uid)


def _units_swapped(s: State, d: Data) -> State:
    a, b = d["a"], d["b"]
    ta, tb = s.units[a].tiles, s.units[b].tiles
    s = _move_unit(s, a, (), BOARD)
    s = _move_unit(s, b, ta, BOARD)
    return _undeliver(_move_unit(s, a, tb, BOARD), a, b)


def _unit_removed(s: State, d: Data) -> State:
    uid = d["uid"]
    s = _move_unit(s, uid, (), d["to"])
    # Control ends when a unit leaves the board, wherever it goes (reserve, a power card, the box).
    if s.units[uid].controller != s.units[uid].owner:
        units = list(s.units)
        units[uid] = with_unit(units[uid], controller=units[uid].owner)
        s = revise(s, units=tuple(units))
    if uid in s.held:
        s = revise(s, held=tuple(x for x in s.held if x != uid))
    return _undeliver(s, uid)


def _energy_spent(s: State, d: Data) -> State:
    p = s.players[d["seat"]]
    return revise(
        s,
        players=_set_player(
            s, d["seat"], round_e=p.round_e - d["round"], reserve_e=p.reserve_e - d["reserve"], rage=p.rage - d["rage"]
        ),
    )


def _faction_gained(s: State, d: Data) -> State:
    p = s.players[d["seat"]]
    return revise(s, players=_set_player(s, d["seat"], faction_e=min(10, p.faction_e + d["n"])))


def _rage_gained(s: State, d: Data) -> State:
    p = s.players[d["seat"]]
    return revise(s, players=_set_player(s, d["seat"], rage=min(10, p.rage + d["n"])))


def _action_taken(s: State, d: Data) -> State:
    return revise(s, actions=s.actions + 1)


def _power_used(s: State, d: Data) -> State:
    p = s.players[d["seat"]]
    used = list(p.used)
    used[d["card"]] += 1
    flags = s.rflags | {d["power"]} if d.get("round") else s.rflags
    return revise(
        s,
        players=_set_player(s, d["seat"], used=(used[0], used[1], used[2], used[3])),
        tpowers=s.tpowers | {d["power"]},
        rflags=flags,
    )


def _flag_set(s: State, d: Data) -> State:
    return revise(s, rflags=s.rflags | {d["flag"]})


def _rite_done(s: State, d: Data) -> State:
    return revise(s, rites=s.rites | {d["rite"]})


def _unlocked(s: State, d: Data) -> State:
    return revise(s, players=_set_player(s, d["seat"], level=d["level"]))


def _tile_activated(s: State, d: Data) -> State:
    return revise(s, activated=s.activated | {_idx(s, d["at"])})


def _rock_placed(s: State, d: Data) -> State:
    return revise(s, rocks=s.rocks | {_idx(s, d["at"])})


def _rock_removed(s: State, d: Data) -> State:
    return revise(s, rocks=s.rocks - {_idx(s, d["at"])})


def _fire_placed(s: State, d: Data) -> State:
    return revise(s, fire=s.fire | {_idx(s, d["at"])})


def _fire_removed(s: State, d: Data) -> State:
    return revise(s, fire=s.fire - {_idx(s, d["at"])})


def _passed(s: State, d: Data) -> State:
    return revise(s, players=_set_player(s, d["seat"], passed=True), passed=(*s.passed, d["seat"]))


def _round_ended(s: State, d: Data) -> State:
    ps = tuple(
        with_player(p, round_e=v[0], reserve_e=v[1], faction_e=v[2], level=v[3], passed=False)
        for p, v in zip(s.players, d["players"], strict=True)
    )
    return revise(s, players=ps, round=d["round"], order=tuple(d["order"]), passed=())


def _round_started(s: State, d: Data) -> State:
    # The new round is the flow's last step, so its queue is spent (version 1 has popped it by now).
    return revise(s, rflags=frozenset(), queue=())


def _volcano_rolled(s: State, d: Data) -> State:
    return revise(s, die=d["die"], history=(*s.history, d["die"]))


def _runes_pending(s: State, d: Data) -> State:
    return revise(s, runes=tuple(_idx(s, t) for t in d["tiles"]), runes_due=int(d["n"]))


def _reacts_set(s: State, d: Data) -> State:
    return revise(s, reacts=tuple(_idx(s, t) for t in d["tiles"]))


def _game_won(s: State, d: Data) -> State:
    return revise(s, phase="over", mode="over", winner=d["seat"], reason=d["reason"], active=-1)


# --- Chaos: control, controlled units points, Total Control ------------------------------------


def _unit_flipped(s: State, d: Data) -> State:
    uid = d["uid"]
    units = list(s.units)
    units[uid] = with_unit(units[uid], controller=d["to"])
    held = s.held
    if d["why"] in ("thought", "puppet"):
        held = (*held, uid)
    elif d["why"] == "release":
        held = tuple(x for x in held if x != uid)
    return _undeliver(revise(s, units=tuple(units), held=held), uid)


def _controlled_scored(s: State, d: Data) -> State:
    scored = list(s.scored) or [0] * len(s.factions)
    scored[d["seat"]] += d["n"]
    return revise(s, scored=tuple(scored))


def _proxy_set(s: State, d: Data) -> State:
    return revise(s, proxy=d["seat"])


def _rises_pending(s: State, d: Data) -> State:
    return revise(s, rises=tuple(_idx(s, t) for t in d["tiles"]))


def _evolved_held(s: State, d: Data) -> State:
    """A unit under temporary control that evolves stays held: the new unit takes its place."""
    out = PRIMAL_HANDLERS["rite.UnitEvolved"](s, d)
    if d["uid"] in s.held:
        out = revise(out, held=tuple(d["into"] if x == d["uid"] else x for x in out.held))
    return _undeliver(out, d["uid"], d["into"])


_HANDLERS: dict[str, Callable[[State, Data], State]] = {
    "rite.GameStarted": _game_started,
    "rite.MapBuilt": _map_built,
    "rite.HandsDealt": _hands_dealt,
    "rite.TilePlaced": _tile_placed,
    "rite.TilesSwapped": _tiles_swapped,
    "rite.ModeSet": _mode_set,
    "rite.FlowQueued": _flow_queued,
    "rite.FlowStepped": _flow_step,
    "rite.PlayStarted": _play_started,
    "rite.TurnStarted": _turn_started,
    "rite.UnitPlaced": _unit_placed,
    "rite.UnitMoved": _unit_moved,
    "rite.UnitsSwapped": _units_swapped,
    "rite.UnitDefeated": _unit_removed,
    "rite.UnitRemoved": _unit_removed,
    "rite.EnergySpent": _energy_spent,
    "rite.FactionEnergyGained": _faction_gained,
    "rite.RageGained": _rage_gained,
    "rite.ActionTaken": _action_taken,
    "rite.PowerUsed": _power_used,
    "rite.FlagSet": _flag_set,
    "rite.RiteDone": _rite_done,
    "rite.PowersUnlocked": _unlocked,
    "rite.TileActivated": _tile_activated,
    "rite.RockPlaced": _rock_placed,
    "rite.RockRemoved": _rock_removed,
    "rite.FireTokenPlaced": _fire_placed,
    "rite.FireTokenRemoved": _fire_removed,
    "rite.Passed": _passed,
    "rite.RoundEnded": _round_ended,
    "rite.RoundStarted": _round_started,
    "rite.VolcanoRolled": _volcano_rolled,
    "rite.ReactionsPending": _reacts_set,
    "rite.RunesPending": _runes_pending,
    "rite.GameWon": _game_won,
    # version 3: simultaneous Elementals whose order changes nothing act in reading order (engine)
    "rite.OrderFixed": lambda s, d: s,
    # the Primals' own events (primal_base)
    **PRIMAL_HANDLERS,
    # Chaos: control, controlled units points, Total Control; and a held unit evolving (over the
    # Primals' UnitEvolved)
    "rite.UnitFlipped": _unit_flipped,
    "rite.ControlledScored": _controlled_scored,
    "rite.ProxySet": _proxy_set,
    "rite.RisesPending": _rises_pending,
    "rite.UnitEvolved": _evolved_held,
}

EVENT_TYPES = frozenset(_HANDLERS)


def evolve(s: State, e: Event) -> State:
    """Apply one event; unknown event types are an error, never silently skipped."""
    try:
        h = _HANDLERS[e.type]
    except KeyError:
        raise ValueError(f"unknown Rite event {e.type!r}") from None
    return h(s, e.data)
