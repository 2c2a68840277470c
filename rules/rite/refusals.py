"""Why Rite refuses a command: the kinds of refusal (each names the rule that stops the command),
and the reasons for the refusals that a search alone would give as "cannot be reached".

The handlers raise these codes; `KINDS` is their list, which the contract suite reads
(tests/contract/test_sentences.py: a refused command names one of them). The functions here run
only on a refusal and read the state, never change it.
"""

from __future__ import annotations

from rules.core import IllegalCommand
from rules.words import titled

from .engine import action_limit
from .query import reach_all, taunters
from .state import State

# code -> the rule it names (docs/errors.md, "The games' own codes"; RULINGS.md gives the rulings)
KINDS: dict[str, str] = {
    "action_taken": "Turn: one action that requires energy a turn (two under Frenzy)",
    "already_acted": "the ability is used once a turn or round",
    "bad_amount": "Fireball: X reaches the target and X + Y fit the energy",
    "bad_charge": "Charge: until adjacent to the closest enemy unit, by the shortest path",
    "bad_option": "the answer is not one the prompt offers",
    "bad_placement": "set-up: the three rules of a balanced board",
    "bad_power": "powers: the card is not the player's or not unlocked",
    "bad_power_args": "powers: what the power is used on",
    "bad_rage": "Rage: pays only towards the Wyrmling's action",
    "bad_roar": "Roar: Rex adjacent to an enemy unit, once a turn",
    "bad_tile": "the tile is not one the action may use",
    "bad_tiles": "Ultimatosaur: his three tiles",
    "bad_unit": "the unit cannot do that",
    "cannot_be_defeated": "the unit cannot be defeated so (commanders, Already Dead, Intelligent)",
    "commander": "Chaos cannot take control of a commander",
    "immune": "Sacred Grounds, jungle tiles, Fireflies: the unit cannot be affected",
    "must_act": "the prompt must be answered first",
    "no_attacker": "Defeat: an adjacent unit of one's own defeats",
    "no_path": "Move: the entire movement must be possible",
    "no_rock": "Remove a rock: a rock on the tile",
    "no_target": "the ability needs a target",
    "no_total_control": "Total Control: not active this round",
    "no_unit": "no unit on the tile",
    "not_adjacent": "the rule asks for an adjacent unit",
    "not_chaos": "only Chaos may do that",
    "not_enough_energy": "the energy to spend",
    "not_in_reserve": "a token is placed only from the reserve",
    "not_your_unit": "a player acts with units he controls",
    "out_of_range": "the range of the ability",
    "own_unit": "the target must be an enemy unit",
    "power_unavailable": "powers: once a turn, one slot a level",
    "taunted": "Taunt: only actions that defeat or take control of the Knight",
    "tile_blocked": "inaccessible tiles",
    "use_umove": "Ultimatosaur moves by his three tiles",
}

FAR = 99  # no energy limit: where the unit could go at all


def _taunt(s: State, uid: int, what: str) -> IllegalCommand | None:
    knights = taunters(s, uid)
    if not knights:
        return None
    lab = s.geo.labels
    return IllegalCommand(
        "taunted",
        f"Taunt: your {titled(s.units[uid].kind)} on {lab[s.units[uid].tiles[0]]} is next to an enemy Knight on "
        f"{lab[knights[0]]}, and a unit next to an enemy Knight cannot {what}, only defeat or take "
        f"control of the Knight",
    )


def unreached(s: State, uid: int, end: int, limit: int) -> IllegalCommand:
    """Why a move to `end` within `limit` energy is refused: Taunt, the turn's action already
    taken, the energy, or no path at all ("the entire movement must be possible")."""
    lab = s.geo.labels[end]
    taunted = _taunt(s, uid, "move")
    if taunted is not None:
        return taunted
    anywhere = reach_all(s, uid, FAR, target=end)
    if end in anywhere:
        cost = anywhere[end][0]
        if s.actions >= action_limit(s):
            return IllegalCommand("action_taken", f"the move to {lab} costs {cost} energy and you have already "
                                                  "taken your action this turn (one action that requires energy a turn)")
        return IllegalCommand("not_enough_energy", f"the move to {lab} costs {cost} energy; you have {limit}")
    return IllegalCommand("no_path", f"{lab} cannot be reached: enemy units, rocks or inaccessible tiles "
                                     "block every path there (the entire movement must be possible)")


def rock_refusal(s: State, seat: int, r: int) -> IllegalCommand:
    """Why removing the rock on `r` is refused though it is there."""
    mine = [s.occ[j] for j in s.geo.nbr[r] if s.occ[j] >= 0 and s.units[s.occ[j]].controller == seat]
    if mine:
        taunted = _taunt(s, mine[0], "help remove a rock")
        if taunted is not None:
            return taunted
    return IllegalCommand("not_adjacent", f"you need a friendly unit next to the rock on {s.geo.labels[r]}")


def fly_refusal(s: State, angel: int, to: str) -> IllegalCommand:
    """Why a Fly to `to` is refused."""
    taunted = _taunt(s, angel, "Fly")
    return taunted or IllegalCommand("bad_tile", f"the Angel cannot fly to {to}")
