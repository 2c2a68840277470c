"""Rite in words: prompts, commands and events for a viewer, and the tiles a move touched.

Units, tiles and powers go by the rulebook's names (content/texts.json); a unit is named
with its controller ("ann's Knight on c4"), a Firefly as the volcano's. Every Rite event is public,
so the viewer changes nothing here. `s` is always the state before the command or event.
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
    plural,
    seat_name,
    sentence,
    titled,
)

from .content import TEXTS
from .evolve import evolve
from .state import VOLCANO, State

UNITS: dict[str, str] = {k: u["name"] for k, u in TEXTS["units"].items()}
POWERS: dict[str, str] = TEXTS["powers"]
TILES: dict[str, str] = {k: t["phrase"] for k, t in TEXTS["tiles"].items()}
FACTIONS: dict[str, str] = TEXTS["factions"]
CAUSES = {
    "volcano": "by the volcano", "firefly": "by a Firefly", "fire": "by fire", "rock": "under a rock",
    "action": "", "fireball": "by a Fireball", "breathe": "by Breathe Fire", "sign": "by Sign of the Dragon",
    "presence": "by Death's Presence", "flames": "by Lasting Flames", "firelord": "by the Firelord",
    "ultimatosaur": "by Ultimatosaur", "earth": "by an Earth Elemental",
}
WHERE_TO = {"reserve": "to its reserve", "card": "onto its power card", "box": "out of the game"}
WHY = {
    "thought": "Just a Thought", "puppet": "Puppet", "release": "", "steal": "Steal Identity",
    "corrupt": "Corrupt", "fog": "a fog tile", "cot": "Change of Thought", "scored": "scoring",
}
FLOW = {
    "eor": "End of the round: energy is counted and power cards may turn face up.",
    "v_roll": "The volcano stirs.",
    "v_firefly": "The Firefly tiles act.",
    "v_earth": "The Earth Elementals act.",
    "v_fire": "The Fire Elementals act.",
    "v_firelord": "The Firelord acts.",
    "newround": "A new round begins.",
}
PROMPTS = {
    "swap": "choose two map tiles to swap",
    "fireball": "choose the range X and the cost Y to pay for the Fireball",
    "wings": "choose the units Protecting Wings carries along",
    "firefly": "choose which of the closest units the Firefly defeats",
    "order": "choose which elemental acts first",
    "rally": "choose where Rally moves the units",
    "card": "choose how to use the power card",
    "rpower": "choose the Death Bringers Runes of Power replaces",
    "ancestors": "choose the units Those Who Came Before summons",
    "ultimatosaur": "choose how Ultimatosaur grows",
    "roar": "choose the units Rex's Roar moves",
    "alpha": "choose the units Alpha moves",
    "puppet": "take an action with the unit Chaos controls for one action",
    "proxy": "play the turn under Total Control",
    "cot": "choose where Change of Thought moves Hive Mind",
    "hiverite": "choose a rite for Hive Mind",
    "crise": "choose whether a Warrior Rises Again",
    "simultaneous": "choose whose effect resolves first",
    "undead_reaction": "choose whether the Undead react",
}


def unit_name(kind: str) -> str:
    return UNITS.get(kind, titled(kind))


def power_name(key: str) -> str:
    return POWERS.get(key, titled(key))


def tile_name(kind: str) -> str:
    return TILES.get(kind, titled(kind) + " tile")


def _uid(s: State, uid: Any) -> Any:
    return s.units[uid] if isinstance(uid, int) and 0 <= uid < len(s.units) else None


def _unit(s: State, uid: Any, names: Sequence[str], where: str | None = None, me: int | None = None) -> str:
    """ "ann's Knight on c4", "a Firefly on e2"; "their Knight" when `me` controls it."""
    u = _uid(s, uid)
    if u is None:
        text = "a unit"
    elif u.controller == VOLCANO or u.owner == VOLCANO:
        text = article(unit_name(u.kind))
    elif me is not None and u.controller == me and u.owner == me:
        text = f"their {unit_name(u.kind)}"
    else:
        text = f"{seat_name(names, u.controller)}'s {unit_name(u.kind)}"
        if u.owner != u.controller and u.owner >= 0:
            text += f" (of {seat_name(names, u.owner)})"
    return f"{text} on {where}" if where else text


def _at(s: State, label: Any) -> int:
    """The uid on a tile, or -1."""
    i = s.geo.index.get(label) if isinstance(label, str) else None
    return s.occ[i] if i is not None and i < len(s.occ) else -1


def _on(s: State, label: Any, names: Sequence[str], me: int | None = None) -> str:
    uid = _at(s, label)
    return _unit(s, uid, names, label, me) if uid >= 0 else f"the tile {label}"


def _route(path: Sequence[str]) -> str:
    via = list(path[1:-1])
    return f"to {path[-1]}" + (f" (via {', '.join(via)})" if via else "")


def _tile_at(s: State, label: Any) -> str:
    i = s.geo.index.get(label) if isinstance(label, str) else None
    return tile_name(s.kinds[i]) if i is not None and i < len(s.kinds) else "tile"


def _faction(s: State, seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(s.factions):
        return FACTIONS.get(s.factions[seat], titled(s.factions[seat]))
    return "the volcano"


# --- prompts ----------------------------------------------------------------------------------


def describe_prompt(s: State, viewer: int | None, names: Sequence[str]) -> str:
    p = s.prompt
    if p is None:
        return "The game is over." if s.phase == "over" else "Nobody is to act."
    who = listing(seat_name(names, x) for x in p.seats)
    o = p.options
    if p.kind == "turn":
        done = int(o.get("actions", 0) or 0)
        step = "take an action, use a power or pass" if not done else "take another action, use a power or end the turn"
        return f"{who} ({_faction(s, p.seats[0])}): {step} (round {o.get('round', s.round)})."
    if p.kind == "place_tile":
        hand = o.get("hand", [])
        return f"{who}: place a map tile ({plural(len(hand), 'tile')} in hand): choose a tile, a spot and a rotation."
    if p.kind == "undead_reaction":
        tiles = o.get("tiles", [])
        return f"{who} (Undead): choose whether to react" + (f" at {listing(tiles)}." if tiles else ".")
    if p.kind == "rune":
        n = int(o.get("n", 0) or 0)
        return f"{who} (Undead): choose {plural(n, 'rune tile')} to activate, of {listing(o.get('tiles', []))}."
    if p.kind == "rage":
        return f"{who}: choose how much rage pays towards the Wyrmling's action (it costs {o.get('cost')})."
    if p.kind == "simultaneous":
        return f"{who}: choose whose effect resolves first, the Undead's or Chaos's."
    if p.kind == "puppet":
        return f"{who}: take an action with the unit on {o.get('unit', '?')} that Chaos controls for one action."
    if p.kind == "proxy":
        return f"{who}: play as the {FACTIONS.get(str(o.get('as')), titled(str(o.get('as'))))} under Total Control."
    return f"{who}: {PROMPTS.get(p.kind, 'choose one of the options')}."


# --- commands ---------------------------------------------------------------------------------


def _choose(s: State, c: Command, who: str, names: Sequence[str]) -> str:
    opt = str(c.args.get("option", ""))
    what = PROMPTS.get(s.prompt.kind, "") if s.prompt is not None else ""
    why = f" ({what.removeprefix('choose ')})." if what.startswith("choose ") else "."
    if opt == "done":
        return f"{who} is done choosing."
    if opt in ("yes", "no"):
        return f"{who} answers {opt}{why}"
    if opt in POWERS:
        return f"{who} chooses {power_name(opt)}."
    if opt in FACTIONS:
        return f"{who} chooses the {FACTIONS[opt]}{why}"
    verb, colon, lab = opt.partition(":")
    if verb == "rage" and lab.isdigit():
        return f"{who} pays {lab} rage towards the Wyrmling's action."
    if colon and lab in s.geo.index:
        if verb == "rise":
            return f"{who} has a Warrior Rise Again on {lab}."
        if verb == "rune":
            return f"{who} activates the rune tile {lab}."
        return f"{who} chooses {plain(verb)} on {lab}{why}"
    a, dash, b = opt.partition("-")
    if dash and a in s.geo.index and b in s.geo.index:
        return f"{who} moves {_on(s, a, names, c.seat)} to {b}{why}"
    if opt in s.geo.index:
        uid = _at(s, opt)
        return f"{who} chooses {_unit(s, uid, names, opt) if uid >= 0 else opt}{why}"
    return f"{who} chooses {plain(opt) if opt else 'an option'}{why}"


def describe_command(s: State, c: Command, viewer: int | None, names: Sequence[str]) -> str:
    who = seat_name(names, c.seat)
    a = c.args
    v = c.type.partition(".")[2]
    if v == "summon":
        return f"{who} summons {article(unit_name(str(a.get('unit'))))} on {a.get('at')}."
    if v == "move":
        path = list(a.get("path", []))
        return f"{who} moves {_on(s, path[0], names, c.seat)} {_route(path)}." if path else f"{who} moves a unit."
    if v == "umove":
        path = [str(x).split("+")[0] for x in a.get("path", [])]
        return f"{who} moves Ultimatosaur {_route(path)}." if path else f"{who} moves Ultimatosaur."
    if v == "defeat":
        with_ = f" with {_on(s, a['from'], names, c.seat)}" if a.get("from") else ""
        return f"{who} defeats {_on(s, a.get('target'), names, c.seat)}{with_}."
    if v == "rock":
        return f"{who} places a rock on {a.get('at')}."
    if v == "fly":
        return f"{who} flies {_on(s, a.get('from'), names, c.seat)} to {a.get('to')}."
    if v == "fireball":
        return f"{who}'s Sorcerer on {a.get('from')} casts a Fireball at {a.get('target')}."
    if v == "pay":
        extra = ", with Lasting Flames" if a.get("flames") else ""
        return f"{who} pays X = {a.get('x')} (range) and Y = {a.get('y')} (cost){extra}."
    if v == "breathe":
        extra = ", with Lasting Flames" if a.get("flames") else ""
        return f"{who}'s Red Dragon Wyrmling breathes fire towards {a.get('to')}{extra}."
    if v == "presence":
        return f"{who} uses Death's Presence."
    if v == "charge":
        return f"{who} charges Ultimatosaur to {str(a.get('to', '')).replace('+', ', ')}."
    if v == "roar":
        return f"{who}'s Rex on {a.get('from')} roars at {_on(s, a.get('target'), names)}."
    if v == "power":
        args = [str(x) for x in a.get("args", [])]
        return f"{who} uses {power_name(str(a.get('name')))}" + (f" on {listing(args)}." if args else ".")
    if v == "choose":
        return _choose(s, c, who, names)
    if v == "thought":
        return f"{who}'s Thought on {a.get('from')} takes control of {_on(s, a.get('target'), names)} (Just a Thought)."
    if v == "steal":
        return f"{who}'s Doppelganger on {a.get('from')} steals the identity of {_on(s, a.get('target'), names)}."
    if v == "join":
        return f"{who} joins {_on(s, a.get('target'), names)} to Hive Mind."
    if v == "act":
        fac = str(a.get("faction"))
        return f"{who} acts as the {FACTIONS.get(fac, titled(fac))} (Total Control)."
    if v == "end":
        return f"{who} ends the turn."
    if v == "pass":
        return f"{who} passes."
    if v == "place":
        rot = int(a.get("rot", 0) or 0)
        turned = f", turned {rot * 60}°" if rot else ""
        return f"{who} places {article(tile_key_name(str(a.get('tile'))))} on {a.get('at')}{turned}."
    return sentence(f"{who}: {titled(v).lower()}", cap=False)


def tile_key_name(key: str) -> str:
    """A map tile in a hand ("summon-humans", "firefly2") by its name."""
    kind, _, rest = key.partition("-")
    if kind == "summon" and rest:
        return f"{FACTIONS.get(rest, titled(rest))} summoning tile"
    if kind.startswith("firefly") and kind[7:].isdigit():
        return f"Firefly tile {kind[7:]}"
    return tile_name(kind)


# --- events -----------------------------------------------------------------------------------

EventWords = Callable[[State, Mapping[str, Any], Any, Sequence[str]], "Told | str"]


def _started(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    facs = [f"{seat_name(names, i)} the {FACTIONS.get(f, titled(f))}" for i, f in enumerate(d.get("factions", []))]
    how = {"premade": "the premade map", "random": "a random map", "player": "a map the players build"}.get(
        str(d.get("map")), "a map")
    return f"Rite begins on {how}: {listing(facs)}."


def _placed(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    u = _uid(s, d.get("uid"))
    kind = unit_name(u.kind) if u else "unit"
    at = d.get("at")
    how = d.get("how")
    if how == "volcano" or (u is not None and u.owner == VOLCANO):
        return f"A Firefly appears on {at}."
    owner = seat_name(names, u.controller if u else seat)
    if how == "summon":
        return f"{owner} summons {article(kind)} on {at}."
    if how == "rise":
        return f"{owner}'s Warrior Rises Again on {at}."
    return f"{owner}'s {kind} is placed on {at}."


def _moved(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    path = list(d.get("path", []))
    text = f"{_unit(s, d.get('uid'), names, path[0] if path else None)} moves {_route(path) if path else ''}".rstrip()
    if isinstance(d.get("onto"), int):
        text += f", onto {_unit(s, d['onto'], names)}"
    return text + "."


def _defeated(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    cause = str(d.get("cause", ""))
    u = _uid(s, d.get("uid"))
    if cause == "firefly" and u is not None and u.kind == "firefly":
        return f"The Firefly on {d.get('at')} is spent with it."
    by = d.get("by")
    how = CAUSES.get(cause, "")
    if not how and isinstance(by, int) and by >= 0:
        how = f"by {seat_name(names, by)}"
    goes = WHERE_TO.get(str(d.get("to")), "")
    return sentence(" ".join(x for x in (f"{_unit(s, d.get('uid'), names, d.get('at'))} is defeated", how,
                                           f"and goes {goes}" if goes else "") if x), cap=False)


def _removed(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    why = WHY.get(str(d.get("why")), "")
    goes = WHERE_TO.get(str(d.get("to")), "")
    text = f"{_unit(s, d.get('uid'), names, d.get('at'))} is removed"
    return text + (f" {goes}" if goes else "") + (f" ({why})." if why else ".")


def _flipped(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    why = WHY.get(str(d.get("why")), "")
    to = d.get("to")
    u = _uid(s, d.get("uid"))
    if u is not None and to == u.owner:
        return f"{_unit(s, d.get('uid'), names, d.get('at'))} returns to {seat_name(names, to)}'s control" + (
            f" ({why})." if why else ".")
    return f"{seat_name(names, to)} takes control of {_unit(s, d.get('uid'), names, d.get('at'))}" + (
        f" ({why})." if why else ".")


def _round_ended(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    order = [seat_name(names, x) for x in d.get("order", [])]
    return f"Round {s.round} ends; the turn order for round {d.get('round')} is {listing(order)}."


def _energy(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    parts = [f"{d[k]} {w}" for k, w in (("round", "round energy"), ("reserve", "reserve energy"), ("rage", "rage"))
             if d.get(k)]
    who = seat_name(names, d.get("seat"))
    return f"{who} spends {listing(parts)}." if parts else f"{who} spends no energy."


def _flow(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> Told:
    step = str(d.get("step"))
    text = FLOW.get(step, "The round's steps go on.")
    return Told(text, heading="The volcano" if step == "v_roll" else None)


def _mode(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    m = str(d.get("mode"))
    ctx = d.get("ctx") or []
    if m in ("turn", "flow", "none", "over", "place"):
        return "The choice is made; play goes on."
    # Who is asked is whoever the prompt names once this event is folded: a context's first
    # entry is a seat for some prompts only (a Fireball's is its Sorcerer, a unit id).
    after = evolve(s, Event("rite.ModeSet", d))
    prompt = after.prompt
    asker = listing(seat_name(names, x) for x in prompt.seats) if prompt is not None else "A player"
    if m == "order":
        return f"{asker} is to choose which elemental acts first ({listing([str(x) for x in ctx[1:]])})."
    return f"{asker} is to {PROMPTS.get(m, 'choose')}."


def _evolved(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> str:
    tiles = list(d.get("tiles", []))
    into = _uid(s, d.get("into"))
    return f"{_unit(s, d.get('uid'), names, tiles[0] if tiles else None)} evolves into " + (
        f"{article(unit_name(into.kind))}." if into else "a bigger Primal.")


def _won(s: State, d: Mapping[str, Any], seat: Any, names: Sequence[str]) -> Told:
    who = seat_name(names, d.get("seat"))
    reason = str(d.get("reason") or "")
    return Told(f"{who} wins" + (f": {reason}." if reason else "."), heading="The end")


def _plain(text: str) -> EventWords:
    return lambda s, d, seat, names: text


def _seat_text(template: str) -> EventWords:
    return lambda s, d, seat, names: template.format(who=seat_name(names, d.get("seat", seat)), n=d.get("n"),
                                                      at=d.get("at"), faction=_faction(s, d.get("seat", seat)))


EVENTS: dict[str, EventWords] = {
    "rite.GameStarted": lambda s, d, seat, names: Told(_started(s, d, seat, names), heading="Set-up"),
    "rite.MapBuilt": lambda s, d, seat, names: (
        f"The map is laid out: {plural(len(d.get('tiles', [])), 'tile')}." if len(d.get("tiles", [])) > 1
        else "The Firelord is placed in the middle; the players build the map around it."),
    "rite.HandsDealt": lambda s, d, seat, names: "Each player is dealt a hand of map tiles.",
    "rite.TilePlaced": lambda s, d, seat, names: (
        f"{seat_name(names, d.get('seat'))} places {article(tile_key_name(str(d.get('tile'))))} on {d.get('at')}."),
    "rite.TilesSwapped": lambda s, d, seat, names: "Two map tiles are swapped.",
    "rite.OrderFixed": lambda s, d, seat, names: (
        f"The Elementals on {listing([str(x) for x in d.get('tiles', [])])} act in that order: "
        "every order ends the same, so nobody is asked."),
    "rite.PlayStarted": _plain("The map is complete: play begins."),
    "rite.TurnStarted": _seat_text("It is {who}'s turn."),
    "rite.ActionTaken": _seat_text("{who} has taken an action."),
    "rite.EnergySpent": _energy,
    "rite.FactionEnergyGained": _seat_text("{who} gains {n} faction energy."),
    "rite.RageGained": _seat_text("{who} gains {n} rage."),
    "rite.Passed": _seat_text("{who} passes."),
    "rite.UnitPlaced": _placed,
    "rite.UnitMoved": _moved,
    "rite.UnitDefeated": _defeated,
    "rite.UnitRemoved": _removed,
    "rite.UnitFlipped": _flipped,
    "rite.UnitsSwapped": lambda s, d, seat, names: f"{_unit(s, d.get('a'), names)} and {_unit(s, d.get('b'), names)} swap places.",
    "rite.UnitShifted": lambda s, d, seat, names: f"{_unit(s, d.get('uid'), names)} shifts.",
    "rite.UnitBuried": lambda s, d, seat, names: f"{_unit(s, d.get('uid'), names)} is placed underneath {_unit(s, d.get('host'), names)}.",
    "rite.UnitReleased": lambda s, d, seat, names: f"{_unit(s, d.get('uid'), names)} comes out from underneath and goes {WHERE_TO.get(str(d.get('to')), 'back')}.",
    "rite.UnitEvolved": _evolved,
    "rite.Consumed": lambda s, d, seat, names: "The Primals score consumed units points.",
    "rite.ConsumedLost": lambda s, d, seat, names: "The Primals lose consumed units points.",
    "rite.PowerUsed": lambda s, d, seat, names: f"{seat_name(names, d.get('seat'))} uses {power_name(str(d.get('power')))}.",
    "rite.PowersUnlocked": lambda s, d, seat, names: (
        f"{seat_name(names, d.get('seat'))}'s power cards are unlocked up to {d.get('level')}"
        + (" by a rite." if d.get("rite") else ".")),
    "rite.RiteDone": lambda s, d, seat, names: f"{seat_name(names, seat)} performs a rite.",
    "rite.FlagSet": lambda s, d, seat, names: f"{seat_name(names, seat)} uses Death's Presence this turn." if d.get("flag") == "presence" else "An effect lasts for this round.",
    "rite.TurnFlagSet": lambda s, d, seat, names: "An effect lasts for this turn.",
    "rite.TileActivated": lambda s, d, seat, names: f"The {_tile_at(s, d.get('at'))} {d.get('at')} is activated.",
    "rite.RockPlaced": lambda s, d, seat, names: f"A rock falls on {d.get('at')}.",
    "rite.RockRemoved": lambda s, d, seat, names: f"The rock on {d.get('at')} is removed.",
    "rite.FireTokenPlaced": lambda s, d, seat, names: f"Fire spreads to {d.get('at')}.",
    "rite.FireTokenRemoved": lambda s, d, seat, names: f"The fire on {d.get('at')} goes out.",
    "rite.FlowQueued": lambda s, d, seat, names: Told(f"Everyone has passed: round {s.round} ends.",
                                                       heading=f"End of round {s.round}"),
    "rite.FlowStepped": _flow,
    "rite.RoundEnded": _round_ended,
    "rite.RoundStarted": lambda s, d, seat, names: Told(f"Round {d.get('round')} begins.", heading=f"Round {d.get('round')}"),
    "rite.VolcanoRolled": lambda s, d, seat, names: Told(f"The volcano erupts: {d.get('die')}.",
                                                          draw=f"volcano die {d.get('die')}"),
    "rite.ModeSet": _mode,
    "rite.ReactionsPending": lambda s, d, seat, names: (
        f"The Undead may react at {listing(d['tiles'])}." if d.get("tiles") else "No Undead reaction is pending."),
    "rite.RunesPending": lambda s, d, seat, names: (
        f"The Undead may activate {plural(int(d.get('n') or 0), 'rune tile')} of {listing(d['tiles'])}."
        if d.get("tiles") else "No rune tile waits to be activated."),
    "rite.RisesPending": lambda s, d, seat, names: (
        f"A Warrior may Rise Again at {listing(d['tiles'])}." if d.get("tiles") else "No Warrior may Rise Again."),
    "rite.ProxySet": lambda s, d, seat, names: (
        f"Chaos now plays as the {_faction(s, d.get('seat'))} (Total Control)." if isinstance(d.get("seat"), int)
        and d["seat"] >= 0 else "Chaos plays as itself again."),
    "rite.ControlledScored": lambda s, d, seat, names: (
        f"Chaos scores {plural(int(d.get('n') or 0), 'controlled units point')} for the {_faction(s, d.get('seat'))}."),
    "rite.GameWon": _won,
}


# Bookkeeping a reader may skip: a headed step's summary leaves these out.
QUIET = frozenset({"rite.TurnStarted", "rite.ActionTaken", "rite.FlowStepped", "rite.ModeSet", "rite.EnergySpent",
                   "rite.ReactionsPending", "rite.RisesPending", "rite.RunesPending", "rite.FlowQueued"})


def describe_event(s: State, e: Event, viewer: int | None, names: Sequence[str]) -> Told:
    return tell(EVENTS, QUIET, e.type, s, e.data, e.seat, names)


# --- touched ----------------------------------------------------------------------------------


def touched(s: State, c: Command | None, events: Sequence[Event]) -> list[str]:
    sources: list[Any] = [] if c is None else [c.args]
    for e in events:
        d = e.data
        if e.type in ("rite.ModeSet", "rite.ReactionsPending", "rite.RisesPending", "rite.MapBuilt"):
            continue  # what may happen next, not what happened
        sources.append(d)
    return places(*sources, valid=s.geo.index)
