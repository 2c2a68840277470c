"""Why a command is refused, in words a player can act on (issue #16: blocked by whom, out of
Movement, not a ranged unit, which rank acts now), and the kinds of refusal (issue #38 item 4).

decide raises the codes of `KINDS`, each naming the rule that stops the command; the contract
suite reads the list (tests/contract/test_sentences.py: a refused command names one of them).
The functions here run only on a refusal, to say what in the position stands in the way. They
read the state and never change it.
"""

from __future__ import annotations

from rules.core import Command
from rules.factions.board import Geometry, parse_space, space_name
from rules.factions.content import FACTIONS, Power
from rules.factions.legal import entry_steps, reaches
from rules.factions.schedule import pending
from rules.factions.state import BASE, State, Unit

# code -> the rule it names (docs/errors.md, "The games' own codes"; RULINGS.md gives the rulings)
KINDS: dict[str, str] = {
    "bad_advantage": "Set-up: the advantages still on offer",
    "illegal_tile": "Terrain Tiles: a tile of one's hand on an open spot, no water on a Base Camp's spot",
    "illegal_center": "Resource Centers: the placement rules",
    "unknown_unit": "the Warband: a unit of one's own, not yet recruited",
    "not_enough_gold": "Recruiting: a unit costs its gold",
    "not_now": "Step 1: a recruit before an activation only in Step 1",
    "one_recruit": "Step 3: one recruit before each activation",
    "vanguard_too_small": "the Vanguard: at least 5 gold spent",
    "not_in_rank_order": "the Rank Order: which units activate now",
    "illegal_command": "Captains: command another unit of equal or lower rank, once a round",
    "illegal_step": "Movement: one space a step, within Movement, never through a unit",
    "cannot_fly": "Aerial Units: taking off",
    "cannot_land": "Aerial Units: landing",
    "no_target": "combat: a unit on the target space",
    "illegal_target": "combat: who may attack, shoot or target whom",
    "not_ranged": "Range Attacks: only ranged units shoot",
    "unknown_power": "the Faction Unit Card: the unit's own spells and abilities",
    "not_enough_mana": "Spells: the mana they cost",
    "must_enter": "Base Camp: a unit enters the Battleground the round it activates",
}


def who(s: State, u: Unit, me: int) -> str:
    """A unit as its refusal names it to seat `me`: 'your Dwarf Warrior (DW)', 'the Zermano Dwarf
    Warrior (DW)'. The rules hear no seat names, so another seat's unit goes by its Faction, which
    the board's panels show beside the player's name."""
    name = s.card(u).name
    if u.seat == me:
        return f"your {name} ({u.code})"
    fac = FACTIONS[s.factions[u.seat]].name
    return f"the {name if name.startswith(fac) else f'{fac} {name}'} ({u.code})"


def _codes(units: list[Unit]) -> str:
    return ", ".join(sorted(u.code for u in units)) or "none"


def _whose_rank(s: State, seat: int) -> str:
    mine = [u for u in pending(s, s.stage) if u.seat == seat and u.rank == s.level]
    return f"rank {s.level} acts now (your rank-{s.level} units to activate: {_codes(mine)})"


def not_activatable(s: State, seat: int, code: str) -> str:
    """Why `activate code` is not among seat's turn options."""
    u = s.units.get(f"{seat}:{code}")
    if u is None:
        if code in s.pool[seat]:
            return f"{code} is not recruited: recruit it first (it then waits its rank in the Rank Order)"
        return f"you have no unit {code} on the Battleground or in Base Camp"
    if u.done:
        return f"{code} has already activated this round"
    if s.stage == "main" and u.commanding:
        return f"{code} commanded this round: it activates after all other units (Step 2)"
    if s.stage == "captains" and not u.commanding:
        return f"only Captains that commanded activate now (Step 2): {_codes(pending(s, 'captains'))}"
    if s.stage == "fresh" and not u.fresh:
        return "only units recruited in this Reinforcement Phase activate now"
    if u.rank != s.level:
        return f"{code} has rank {u.rank}; {_whose_rank(s, seat)}"
    return f"{code} cannot activate now; {_whose_rank(s, seat)}"


def not_commandable(s: State, seat: int, captain: str, code: str) -> str:
    """Why `command captain code` is not among seat's turn options."""
    if s.stage != "main":
        return "Captains command only in Step 1"
    cap = s.units.get(f"{seat}:{captain}")
    if cap is None:
        return f"you have no unit {captain}"
    card = s.card(cap)
    if not card.captain:
        return f"{captain} ({card.name}) is not a Captain"
    if cap.done or cap.commanding:
        return f"{captain} has already activated or commanded this round"
    if cap.pos == BASE:
        return f"{captain} is in Base Camp: a Captain commands from the Battleground"
    if card.rank != s.level:
        return f"{captain} has rank {card.rank}; {_whose_rank(s, seat)}"
    u = s.units.get(f"{seat}:{code}")
    if u is None:
        return f"you have no unit {code}"
    if u is cap:
        return "a Captain commands another unit"
    if u.done or u.commanding:
        return f"{code} has already activated this round"
    if u.rank > s.level:
        return f"{code} has rank {u.rank}: a Captain commands units of equal or lower rank ({s.level} or less)"
    return f"{captain} cannot command {code} now"


def _space_of(geo: Geometry, name: str) -> int | None:
    return parse_space(name, geo.width, geo.height)


def _open_around(s: State, geo: Geometry, q: int) -> list[str]:
    return sorted(space_name(a, geo.width) for a in geo.ring[q] if a not in s.occ)


def _bullrush_hint(s: State, geo: Geometry, q: int, to: str, aside: str | None) -> str:
    around = _open_around(s, geo, q)
    if not around:
        return f"no space around {to} is open to bullrush it to"
    if aside is None:
        return f"name the open space to bullrush it to: 'step {to} aside {around[0]}' ({', '.join(around)})"
    return f"{aside} is not an open space next to {to} (open: {', '.join(around)})"


def bad_step(s: State, geo: Geometry, u: Unit, c: Command) -> str:
    """Why `step` is not among the active unit's options."""
    to, aside = c.args["to"], c.args.get("aside")
    q = _space_of(geo, to)
    w = geo.width
    if q is None:
        return f"{to} is not on this Battleground"
    k = s.occ.get(q)
    other = s.units[k] if k is not None else None
    if u.pos == BASE:
        entries = [space_name(e, w) for e in geo.entries[u.seat]]
        if q not in geo.entries[u.seat]:
            return f"from Base Camp a unit enters on {' or '.join(entries)}"
        if other is None:
            return f"{to} is open: write 'step {to}' (nothing to bullrush)"
        if other.seat == u.seat:
            return f"{to} is held by your {s.card(other).name} ({other.code})"
        free = [space_name(e, w) for e in geo.entries[u.seat] if e not in s.occ]
        if free and s.rules >= 2:
            return (f"{to} is held by {who(s, other, u.seat)}, but {free[0]} is open: a unit entering from Base Camp moves "
                    f"an enemy aside only when both entry spaces are blocked (\"If the spaces are blocked by enemy "
                    f"Units\"); write 'step {free[0]}'")
        return f"{to} is held by {who(s, other, u.seat)}: {_bullrush_hint(s, geo, q, to, aside)}"
    card = s.card(u)
    if s.moves_left <= 0:
        return f"{u.code} has no Movement left ({card.movement} of {card.movement} used)"
    if q == u.pos:
        return f"{u.code} is already on {to}"
    if q not in geo.ring[u.pos]:
        return f"{to} is not next to {space_name(u.pos, w)}: a step moves one space"
    if q not in geo.adj[u.seat][u.pos]:
        return (f"{space_name(u.pos, w)} to {to} is diagonal off your Home Terrain Tiles: diagonal steps only on "
                f"and onto your own tiles (Movement)")
    if other is not None:
        if not card.bullrush:
            return f"{to} is held by {who(s, other, u.seat)}: units cannot move through each other"
        return f"{to} is held by {who(s, other, u.seat)}: {_bullrush_hint(s, geo, q, to, aside)}"
    if aside is not None:
        return f"{to} is open: nothing to bullrush (write 'step {to}')"
    return f"{u.code} cannot step to {to} now"


def _own(s: State, geo: Geometry, u: Unit, t: Unit) -> str | None:
    if t.seat == u.seat:
        return f"{space_name(t.pos, geo.width)} holds your own {s.card(t).name} ({t.code})"
    return None


def bad_attack(s: State, geo: Geometry, u: Unit, t: Unit) -> str:
    """Why a melee attack on `t` is not allowed."""
    own = _own(s, geo, u, t)
    if own:
        return own
    w = geo.width
    if t.pos not in geo.adj[u.seat][u.pos]:
        if t.pos in geo.ring[u.pos]:
            return (f"{space_name(t.pos, w)} is diagonal off your Home Terrain Tiles: on enemy tiles a unit attacks "
                    f"only to the side, in front or behind")
        return f"{who(s, t, u.seat)} is not adjacent: melee needs an adjacent enemy"
    if u.flying and not t.flying:
        return f"{u.code} is flying: land first to attack a unit on the ground (Aerial Units in combat)"
    if t.flying and not u.flying:
        return f"{who(s, t, u.seat)} is flying: only flying units melee it (ranged units may shoot it)"
    return f"{u.code} cannot attack {who(s, t, u.seat)} now"


def bad_shot(s: State, geo: Geometry, u: Unit, t: Unit) -> str:
    """Why a ranged attack on `t` is not allowed."""
    card = s.card(u)
    if card.range < 2:
        return not_ranged(s, u)
    own = _own(s, geo, u, t)
    if own:
        return own
    if u.flying and not t.flying:
        return f"{u.code} is flying: flying units may not shoot non-flying units (land first)"
    d = geo.dist[u.seat][u.pos][t.pos]
    if d == 1 and not t.flying:
        return f"{who(s, t, u.seat)} is adjacent: a ranged attack reaches 2 or more spaces; 'attack' it instead"
    if d > card.range:
        far = "no legal line" if d >= 99 else f"{d} spaces away along legal lines"
        return (f"{who(s, t, u.seat)} is {far} (diagonals only over your Home Terrain Tiles); "
                f"{u.code}'s range is {card.range}")
    return f"{u.code} cannot shoot {who(s, t, u.seat)} now"


def bad_mode(s: State, u: Unit, verb: str) -> str:
    """Why `fly` or `land` is not allowed for the active unit."""
    card = s.card(u)
    if not card.aerial:
        return f"{u.code} ({card.name}) is not an Aerial Unit"
    if u.pos == BASE:
        return f"{u.code} is in Base Camp: it must enter the Battleground first"
    if verb == "fly":
        if u.flying:
            return f"{u.code} is already flying"
        return f"{u.code} landed this activation: it stays landed until it activates again"
    return f"{u.code} is not flying"


def bad_power(s: State, geo: Geometry, u: Unit, t: Unit, p: Power) -> str:
    """Why `use` of power `p` on `t` is not allowed (mana is checked before)."""
    if p.kind == "passive":
        return f"{p.name} is passive: it works by itself and is never used"
    if p.uses is not None and u.uses_of(p.code) >= p.uses:
        return f"{p.name} is exhausted (used {p.uses} of {p.uses} times)"
    if p.target == "enemy" and t.seat == u.seat:
        return f"{p.name} targets an enemy; {space_name(t.pos, geo.width)} holds your own {t.code}"
    if p.target == "ally" and t.seat != u.seat:
        return f"{p.name} targets one of your own units; {who(s, t, u.seat)} is an enemy"
    if not reaches(s, u, t, p):
        if t.flying and not s.card(u).aerial:
            return f"{who(s, t, u.seat)} is flying: non-aerial units cannot target aerial units with spells or abilities"
        if p.kind == "spell":
            return f"{u.code} is flying: flying units may not cast spells on non-flying units (land first)"
        if u.flying:
            return f"{u.code} is flying: land first to use {p.name} on a unit on the ground"
        return f"{who(s, t, u.seat)} is flying: ability damage cannot target flying units"
    d = geo.dist[u.seat][u.pos][t.pos]
    if d > p.range:
        far = "no legal line" if d >= 99 else f"{d} spaces away along legal lines"
        return f"{who(s, t, u.seat)} is {far}; {p.name}'s range is {p.range}"
    if p.effect == "heal" and t.damage == 0:
        return f"{t.code} has no damage to heal"
    if p.effect.startswith("boost_"):
        return f"{t.code} already holds that boost token"
    return f"{p.name} cannot target {who(s, t, u.seat)} now"


def not_ranged(s: State, u: Unit) -> str:
    card = s.card(u)
    return f"{u.code} ({card.name}) is not a ranged unit (range {card.range}): use 'attack' on an adjacent enemy"


def one_recruit(s: State, seat: int) -> str:
    """Why a second recruit before one activation is refused."""
    mine = [u for u in pending(s, s.stage) if u.seat == seat and u.rank == s.level]
    return (f"you have recruited a Unit before this activation: one recruit before each activation (Step 3: "
            f"\"You may recruit a Unit before you activate one of your Units\"); activate one of {_codes(mine)} "
            f"first")


def must_enter(s: State, u: Unit) -> str:
    geo = s.geo
    assert geo is not None
    open_ = sorted({a["to"] for a in entry_steps(s, geo, u)})
    return (f"a unit in Base Camp must enter the Battleground the round it activates unless allies block both "
            f"entry spaces: enter on {' or '.join(open_)}")
