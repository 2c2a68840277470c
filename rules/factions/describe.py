"""Factions: Battlegrounds in words: prompts, commands and events for a viewer, and the spaces a
move touched.

Units go by the names on their Faction Unit Cards (content/factions.json, the labelled reference
set where the rulebook prints none), spells and abilities by theirs, Resource Centers as Gold Mines
and Mana Pools. Every Factions event is public. `s` is the state before the command or event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rules.core import Command, Event, Told
from rules.eventwords import tell
from rules.words import (
    article,
    listing,
    places,
    plain,
    seat_name,
    sentence,
    titled,
)

from .board import space_name, tile_spaces, tile_terrain
from .content import FACTIONS, LAYOUTS, TERRAIN_NAMES
from .state import BASE, State

CENTERS = {"gold": "Gold Mine", "mana": "Mana Pool"}
ADVANTAGES = {
    "tile": "the Terrain Tile Advantage", "terrain": "the Terrain Tile Advantage", "resource": "the Resource Advantage",
    "tile_first": "to place a Terrain Tile first", "resources": "to place the Resource Centers",
    "recruit_last": "to recruit Units last",
}
STATS = {"attack": "attack", "health": "health"}
PROMPTS = {
    "advantage": "choose an advantage",
    "tile": "place a Terrain Tile: choose a tile, a spot and a rotation",
    "center": "place a Resource Center",
    "aside": "set a Warband card aside",
    "draft": "recruit Units for the Vanguard, or be done",
    "reinforce": "recruit Units in the Reinforcement Phase, or be done",
    "turn": "activate a Unit",
    "activation": "move, attack, use a spell or end the activation",
    "captain": "command a Unit with a Captain, or be done",
}


def _faction(s: State, seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(s.factions) and s.factions[seat] in FACTIONS:
        return FACTIONS[s.factions[seat]].name
    return "a Faction"


def card_name(s: State, seat: Any, code: Any) -> str:
    """A unit code of a seat's Faction by its card's name ("Zyan Militia")."""
    if isinstance(seat, int) and 0 <= seat < len(s.factions):
        fac = FACTIONS.get(s.factions[seat])
        if fac is not None and code in fac.units:
            return fac.units[code].name
    return "unit"


def _key(key: Any) -> tuple[int, str]:
    seat, _, code = str(key).partition(":")
    return (int(seat) if seat.isdigit() else -1), code


def _space(s: State, pos: int) -> str:
    if s.geo is None or pos < 0:
        return "its Base Camp"
    return space_name(pos, s.geo.width)


def _unit(s: State, key: Any, names: Sequence[str], me: int | None = None, where: bool = True) -> str:
    """ "bob's Zyan Militia on c3", "their Bowman in its Base Camp"."""
    seat, code = _key(key)
    name = card_name(s, seat, code)
    who = "their" if me is not None and seat == me else f"{seat_name(names, seat)}'s"
    u = s.units.get(str(key))
    if not where or u is None:
        return f"{who} {name}"
    return f"{who} {name} " + (f"on {_space(s, u.pos)}" if u.pos != BASE else "in its Base Camp")


def _at(s: State, label: Any, names: Sequence[str], me: int | None = None) -> str:
    if s.geo is None or not isinstance(label, str):
        return str(label)
    for pos, key in s.occ.items():
        if space_name(pos, s.geo.width) == label:
            return _unit(s, key, names, me)
    return label


def _power_name(s: State, key: Any, code: Any) -> str:
    seat, unit = _key(key)
    if isinstance(seat, int) and 0 <= seat < len(s.factions):
        fac = FACTIONS.get(s.factions[seat])
        card = fac.units.get(unit) if fac else None
        p = card.power(str(code)) if card else None
        if p is not None:
            return p.name
    return "a spell"


def _own_code_name(s: State, seat: Any, code: Any) -> str:
    return card_name(s, seat, code)


def laid(s: State, seat: Any, a: Mapping[str, Any]) -> str:
    """What a `tile` choice lays down, space by space ("Water on a1; Plains on b1, a2 and b2"), so
    that the choice says the terrain before it is made (issue #38 item 10); "" for odd args."""
    num, spot, rot = a.get("tile"), a.get("spot"), a.get("rot")
    if not (isinstance(seat, int) and 0 <= seat < len(s.factions) and s.n in LAYOUTS
            and isinstance(num, int) and isinstance(spot, int) and rot in (0, 180)):
        return ""
    tiles = FACTIONS[s.factions[seat]].tiles
    lay = LAYOUTS[s.n]
    if not (1 <= num <= len(tiles) and 1 <= spot <= (lay.width // 2) * (lay.height // 2)):
        return ""
    spaces = tile_terrain(tiles[num - 1], rot, spot, lay)
    return "; ".join(f"{TERRAIN_NAMES[k]} on {listing(space_name(i, lay.width) for i, x in spaces if x == k)}"
                     for k in "WIP" if any(x == k for _, x in spaces))


# --- prompts ----------------------------------------------------------------------------------


def describe_prompt(s: State, viewer: int | None, names: Sequence[str]) -> str:
    p = s.prompt
    if p is None:
        return "The game is over." if s.phase == "over" else "Nobody is to act."
    who = listing(seat_name(names, x) for x in p.seats)
    if p.kind == "activation" and s.active is not None:
        left = s.moves_left
        return (f"{who}: act with {_unit(s, s.active, names, None)}: move ({left} left), attack, use a spell "
                "or end the activation.")
    if p.kind == "tile" and p.seats and p.seats[0] < len(s.hand):
        hand = [str(t) for t in s.hand[p.seats[0]]]
        tiles = f"Terrain Tile {hand[0]}" if len(hand) == 1 else f"one of Terrain Tiles {listing(hand)}"
        return f"{who}: place {tiles}: choose a spot and a rotation."
    rnd = f" (round {s.round})" if s.phase == "play" and s.round else ""
    return f"{who}: {PROMPTS.get(p.kind, 'choose one of the options')}{rnd}."


# --- commands ---------------------------------------------------------------------------------


def describe_command(s: State, c: Command, viewer: int | None, names: Sequence[str]) -> str:
    who = seat_name(names, c.seat)
    a = c.args
    v = c.type.partition(".")[2]
    active = _unit(s, s.active, names, c.seat, where=False) if s.active else "their Unit"
    if v == "choose":
        adv = str(a.get("advantage"))
        return f"{who} chooses {ADVANTAGES.get(adv, plain(adv))}."
    if v == "tile":
        turned = " turned 180°" if a.get("rot") == 180 else ""
        terrain = laid(s, c.seat, a)
        return (f"{who} places their Terrain Tile {a.get('tile')} on spot {a.get('spot')}{turned}"
                f"{': ' + terrain if terrain else ''}.")
    if v == "center":
        return f"{who} places a {CENTERS.get(str(a.get('kind')), 'Resource Center')} on {a.get('space')}."
    if v == "aside":
        return f"{who} sets aside {article(_own_code_name(s, c.seat, a.get('unit')))}."
    if v == "recruit":
        code = str(a.get("unit"))
        fac = FACTIONS.get(s.factions[c.seat]) if isinstance(c.seat, int) and c.seat < len(s.factions) else None
        cost = fac.units[code].cost if fac and code in fac.units else None
        return f"{who} recruits {article(_own_code_name(s, c.seat, code))}" + (f" for {cost} gold." if cost else ".")
    if v == "done":
        return f"{who} is done recruiting." if s.phase in ("draft", "play") and s.stage != "captains" else f"{who} is done."
    if v == "activate":
        key = f"{c.seat}:{a.get('unit')}"
        return f"{who} activates {_unit(s, key, names, c.seat)}."
    if v == "step":
        # two steps to one space differ only by where the unit standing there is pushed
        pushed = f", pushing the enemy Unit there to {a.get('aside')}" if a.get("aside") else ""
        return f"{who} moves {active} to {a.get('to')}{pushed}."
    if v == "attack":
        return f"{who}'s {active.removeprefix('their ')} attacks {_at(s, a.get('target'), names, c.seat)}."
    if v == "shoot":
        return f"{who}'s {active.removeprefix('their ')} shoots at {_at(s, a.get('target'), names, c.seat)}."
    if v == "use":
        return (f"{who}'s {active.removeprefix('their ')} uses {_power_name(s, s.active, a.get('power'))}"
                f" on {_at(s, a.get('target'), names, c.seat)}.")
    if v == "command":
        cap = _own_code_name(s, c.seat, a.get("captain"))
        return f"{who}'s Captain {cap} commands their {_own_code_name(s, c.seat, a.get('unit'))}."
    if v == "fly":
        return f"{who}'s {active.removeprefix('their ')} takes off."
    if v == "land":
        return f"{who}'s {active.removeprefix('their ')} lands."
    if v == "end":
        return f"{who} ends the activation of {active}."
    return sentence(f"{who}: {titled(v).lower()}", cap=False)


# --- events -----------------------------------------------------------------------------------

EventWords = Callable[[State, Mapping[str, Any], Any, Sequence[str]], "Told | str"]


def _set_up(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> Told:
    facs = d.get("factions", [])
    who = [f"{seat_name(names, i)} leads {FACTIONS[f].name if f in FACTIONS else titled(f)}" for i, f in enumerate(facs)]
    rolls = d.get("rolls", [])
    rolled = [f"{seat_name(names, i)} {'-'.join(str(x) for x in r)}" for i, r in enumerate(rolls) if r]
    text = f"Factions: Battlegrounds begins: {listing(who)}."
    if rolled:
        text += f" Rolls for advantage: {listing(rolled)}."
    return Told(text, heading="Set-up", draw=f"advantage rolls: {', '.join(rolled)}" if rolled else None)


def _moved(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    unit = _unit(s, d.get("unit"), names, where=False)
    if d.get("from") == "base":
        return f"{unit} enters the Battleground at {d.get('to')}."
    return f"{unit} moves from {d.get('from')} to {d.get('to')}."


def _attack(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> Told:
    unit = _unit(s, d.get("unit"), names)
    target = _unit(s, d.get("target"), names)
    kind = str(d.get("kind"))
    how = {"melee": "attacks", "ranged": "shoots at", "spell": "casts"}.get(kind, "attacks")
    if kind == "spell":
        text = f"{unit} casts {_power_name(s, d.get('unit'), d.get('power'))} at {target}"
    else:
        text = f"{unit} {how} {target}"
    roll = d.get("roll")
    if roll is not None:
        text += f": the evade roll is {roll}, " + ("a hit." if d.get("hit") else "evaded.")
    else:
        text += "." if d.get("hit") else ": evaded."
    return Told(text, draw=f"evade roll {roll}" if roll is not None else None)


def _claimed(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    kind = "Resource Center"
    if s.geo is not None:
        for pos, k, _owner in s.centers:
            if space_name(pos, s.geo.width) == d.get("space"):
                kind = CENTERS.get(k, kind)
    frm = d.get("from")
    text = f"{seat_name(names, d.get('seat'))} claims the {kind} on {d.get('space')}"
    if isinstance(frm, int) and frm >= 0:
        text += f" from {seat_name(names, frm)}"
    bonus = d.get("bonus")
    return text + (f" and gains {bonus} bonus." if bonus else ".")


def _counted(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> Told:
    gains = d.get("gains", [])
    parts = [f"{seat_name(names, i)} {g[0]} gold and {g[1]} mana" for i, g in enumerate(gains) if len(g) == 2]
    return Told(f"Resources are counted: {'; '.join(parts) or 'nothing'}.", heading="Upkeep")


def _tie_rolled(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> Told:
    pairs = zip(d.get("seats", []), d.get("rolls", []), strict=False)
    rolls = [f"{seat_name(names, x)} {'-'.join(str(r) for r in rs)}" for x, rs in pairs]
    text = f"A die breaks the rank tie: {listing(rolls)}; {seat_name(names, d.get('winner'))} goes first."
    return Told(text, draw=f"rank tie rolls: {', '.join(rolls)}")


def _won(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> Told:
    who = listing(seat_name(names, x) for x in d.get("winners", []))
    reason = str(d.get("reason") or "")
    return Told(f"{who} wins" + (f": {reason}." if reason else "."), heading="The end")


def _centers(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    placed = [f"{article(CENTERS.get(str(p.get('kind')), 'Resource Center'))} on {p.get('space')}"
              for p in d.get("placed", []) if isinstance(p, Mapping)]
    return f"{seat_name(names, d.get('seat'))} places {listing(placed)}."


def _tile(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    turned = " turned 180°" if d.get("rot") == 180 else ""
    return (f"{seat_name(names, d.get('seat'))} places {_faction(s, d.get('seat'))} Terrain Tile {d.get('tile')} "
            f"on spot {d.get('spot')}{turned}.")


EVENTS: dict[str, EventWords] = {
    "factions.GameSetUp": _set_up,
    "factions.AdvantageChosen": lambda s, d, seat, names: (
        f"{seat_name(names, d.get('seat'))} chooses {ADVANTAGES.get(str(d.get('advantage')), 'an advantage')}."),
    "factions.TilePlaced": _tile,
    "factions.CentersPlaced": _centers,
    "factions.UnitSetAside": lambda s, d, seat, names: (
        f"{seat_name(names, d.get('seat'))} sets aside {article(card_name(s, d.get('seat'), d.get('unit')))}."),
    "factions.UnitRecruited": lambda s, d, seat, names: (
        f"{seat_name(names, d.get('seat'))} recruits {article(card_name(s, d.get('seat'), d.get('unit')))}"
        f" for {d.get('cost')} gold."),
    "factions.RecruitingDone": lambda s, d, seat, names: f"{seat_name(names, d.get('seat'))} is done recruiting.",
    "factions.RoundStarted": lambda s, d, seat, names: Told(
        f"Round {d.get('round')} begins" + (
            f"; the die breaks the rank tie: {listing(seat_name(names, x) for x in d['tie'])}." if d.get("tie")
            else "."),
        heading=f"Round {d.get('round')}", draw="rank tie by die" if d.get("tie") else None),
    "factions.UnitActivated": lambda s, d, seat, names: f"{_unit(s, d.get('unit'), names)} is activated.",
    "factions.UnitMoved": _moved,
    "factions.ActivationEnded": lambda s, d, seat, names: (
        f"The activation of {_unit(s, d.get('unit'), names, where=False)} ends."),
    "factions.CenterClaimed": _claimed,
    "factions.PowerUsed": lambda s, d, seat, names: (
        f"{_unit(s, d.get('unit'), names)} uses {_power_name(s, d.get('unit'), d.get('power'))} on {d.get('target')}"
        f" for {d.get('mana')} mana."),
    "factions.UnitBoosted": lambda s, d, seat, names: (
        f"{_unit(s, d.get('unit'), names)} gains a boost to its {STATS.get(str(d.get('stat')), 'stats')}."),
    "factions.AttackMade": _attack,
    "factions.UnitDamaged": lambda s, d, seat, names: (
        f"{_unit(s, d.get('unit'), names)} takes {d.get('amount')} damage ({d.get('damage')} in all)."),
    "factions.UnitEliminated": lambda s, d, seat, names: (
        f"{_unit(s, d.get('unit'), names)} is eliminated; {seat_name(names, d.get('by'))} scores {d.get('vp')} VP."),
    "factions.UnitHealed": lambda s, d, seat, names: (
        f"{_unit(s, d.get('unit'), names)} is healed by {d.get('amount')} ({d.get('damage')} damage left)."),
    "factions.UnitPushed": lambda s, d, seat, names: (
        f"{_unit(s, d.get('unit'), names, where=False)} is pushed from {d.get('from')} to {d.get('to')}."),
    "factions.UnitWeakened": lambda s, d, seat, names: f"{_unit(s, d.get('unit'), names)} is weakened.",
    "factions.TookOff": lambda s, d, seat, names: f"{_unit(s, d.get('unit'), names)} takes off.",
    "factions.Landed": lambda s, d, seat, names: f"{_unit(s, d.get('unit'), names)} lands.",
    "factions.CaptainCommanded": lambda s, d, seat, names: (
        f"{_unit(s, d.get('captain'), names, where=False)} commands {_unit(s, d.get('unit'), names)}."),
    "factions.ResourcesCounted": _counted,
    "factions.RankTieRolled": _tie_rolled,
    "factions.SeatLost": lambda s, d, seat, names: (
        f"{seat_name(names, d.get('seat'))} loses the Battleground" + (
            f": {d['reason']}." if d.get("reason") else ".")),
    "factions.GameWon": _won,
}


# Bookkeeping a reader may skip: a headed step's summary leaves these out.
QUIET = frozenset({"factions.ActivationEnded"})


def describe_event(s: State, e: Event, viewer: int | None, names: Sequence[str]) -> Told:
    return tell(EVENTS, QUIET, e.type, s, e.data, e.seat, names)


# --- touched ----------------------------------------------------------------------------------


def touched(s: State, c: Command | None, events: Sequence[Event]) -> list[str]:
    lay = LAYOUTS.get(s.n) if s.n else None
    valid = None if lay is None else {space_name(i, lay.width) for i in range(lay.width * lay.height)}
    sources: list[Any] = []
    if c is not None:
        sources.append(c.args)
        if c.type == "factions.tile" and lay is not None and isinstance(c.args.get("spot"), int):
            sources.append({"tiles": [space_name(i, lay.width) for i in tile_spaces(c.args["spot"], lay)]})
    for e in events:
        sources.append(e.data)
        if e.type == "factions.CentersPlaced":
            sources.extend(p for p in e.data.get("placed", []) if isinstance(p, Mapping))
    found = places(*sources)
    return [x for x in found if valid is None or x in valid]
