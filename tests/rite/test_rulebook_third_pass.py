"""Issue #38 items 1-6 (Rite): each rule from a hand-written position, with the rulebook sentence it
reads. The changes of play are rules version 3; a position set up under version 2 keeps the old
play (CHANGELOG.md), which the `rules=2` contrasts show."""

from __future__ import annotations

import pytest

from rules.core import Event, IllegalCommand
from rules.decider import decide
from rules.rite import GAME, engine
from rules.rite.emitter import RiteEmitter
from rules.rite.state import State

from .helpers import at, board, energy, legal, puts, rng, run, texts, turn, unit_on

HGCP = ("humans", "goblins", "chaos", "primals")
HGU = ("humans", "goblins", "undead")
NAMES = ["ann", "bob", "cy", "dee"]


def idx(s: State, lab: str) -> int:
    return s.geo.index[lab]


def refusal(s: State, seat: int, text: str) -> IllegalCommand:
    """The refusal of `text` (decide is pure: the position is unchanged either way)."""
    with pytest.raises(IllegalCommand) as e:
        decide(GAME, s, GAME.parse_text(text, seat), rng())
    return e.value


# --- 1. Lasting Flames along a path ---------------------------------------------------------------


def _angel_through_fire(rules: int) -> State:
    s = board(rules=rules)
    s = at(s, fire=frozenset({idx(s, "b4"), idx(s, "c4")}))
    s = puts(s, 0, "angel", "a4")
    return energy(s, 0, 3)


def test_lasting_flames_every_tile_a_unit_enters_on_the_way_loses_its_fire_token() -> None:
    """Lasting Flames: "If a unit or rock enters a tile with a fire token, remove the fire token.
    In case of a non-commander unit, defeat the unit." A commander walking a4-b4-c4-d4 through
    tokens on b4 and c4 enters both: both go, and the commander is unhurt."""
    s, events = run(_angel_through_fire(3), 0, "move a4 d4")
    assert unit_on(s, "d4") == "angel" and s.fire == frozenset()
    assert [e.data["at"] for e in events if e.type == "rite.FireTokenRemoved"] == ["b4", "c4"]


def test_lasting_flames_a_game_of_rules_version_2_keeps_the_tokens_on_the_way() -> None:
    s, _ = run(_angel_through_fire(2), 0, "move a4 d4")
    assert unit_on(s, "d4") == "angel" and s.fire == frozenset({idx(s, "b4"), idx(s, "c4")})


def test_lasting_flames_a_non_commander_still_stops_and_burns_on_the_first_token() -> None:
    """"In case of a non-commander unit, defeat the unit": a Knight cannot walk on past b4."""
    s = board()
    s = at(s, fire=frozenset({idx(s, "b4"), idx(s, "c4")}))
    s = puts(s, 0, "knight", "a4")
    s = energy(s, 0, 3)
    assert refusal(s, 0, "move a4 b4 c4 d4").code == "no_path"
    s, _ = run(s, 0, "move a4 b4")
    assert unit_on(s, "b4") == "" and s.fire == frozenset({idx(s, "c4")})


# --- 2. Fog on the way ----------------------------------------------------------------------------


def _rush_over_fog(rules: int) -> State:
    s = board(HGCP, tiles={"c4": ("fog", "chaos", 0)}, volcano=False, rules=rules)
    s = energy(turn(s, 3), 3, 0, 0, level=10)
    return puts(s, 3, "hatchling", "a4")


def test_fog_on_the_way_a_rush_ends_on_the_fog_tile_and_the_unit_is_flipped() -> None:
    """Chaos, Fog tile: "When a non-Chaos, unflipped unit is on a fog tile at any moment, flip
    it" (and image 11: "When it moves on the fog tile, it is flipped"). A Rush passes through
    every tile of its line, so it ends on the first fog tile, where the unit changes hands."""
    s = _rush_over_fog(3)
    assert not legal(s, 3, "power rush a4 e4") and not legal(s, 3, "power rush a4 d4")
    assert legal(s, 3, "power rush a4 c4")
    s, events = run(s, 3, "power rush a4 c4")
    u = s.units[s.occ[idx(s, "c4")]]
    assert (u.kind, u.owner, u.controller) == ("hatchling", 3, 2)
    assert any(e.type == "rite.UnitFlipped" and e.data["why"] == "fog" for e in events)


def test_fog_on_the_way_a_game_of_rules_version_2_rushes_across_unflipped() -> None:
    s, _ = run(_rush_over_fog(2), 3, "power rush a4 e4")
    assert s.units[s.occ[idx(s, "e4")]].controller == 3


# --- 3. Sentences that name the right player ------------------------------------------------------


def test_the_fireball_prompt_names_the_goblin_player_not_the_sorcerers_id() -> None:
    """The move list said "seat 31 is to choose the range X" (the Sorcerer's id in the prompt's
    context): the sentence names whoever the prompt asks, by name."""
    s = at(board(), active=1)
    s = puts(s, 1, "sorcerer", "c4")
    s = puts(s, 0, "lightbringer", "e4")
    s = energy(s, 1, 5)
    d = decide(GAME, s, GAME.parse_text("fireball c4 e4", 1), rng())
    said = []
    for e in d.events:
        said.append(GAME.describe_event(s, e, None, NAMES[:2]).text)
        s = GAME.evolve(s, e)
    mode = [t for t, e in zip(said, d.events, strict=True) if e.type == "rite.ModeSet"]
    assert mode and mode[0].startswith("bob is to") and "seat" not in " ".join(said)


# --- 4. Refusals that give the real reason --------------------------------------------------------


def _taunted_fighter() -> State:
    s = at(board(), active=1)
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 1, "fighter", "c4")
    return energy(s, 1, 10, 0)


def test_refusal_a_taunted_unit_is_told_taunt_stops_its_move() -> None:
    """Knight, Taunt: "Enemy player units adjacent to the Knight cannot activate abilities or take
    actions other than actions or abilities that defeat the Knight"."""
    for text in ("move c4 a4", "move c4 b4 a4"):
        e = refusal(_taunted_fighter(), 1, text)
        assert e.code == "taunted" and "Taunt" in e.message and "d4" in e.message


def test_refusal_a_taunted_unit_next_to_a_rock_is_told_taunt_not_to_find_a_friendly_unit() -> None:
    """Remove a rock: "A player can remove a rock token for 1 energy when he has at least 1
    friendly unit adjacent to the rock token" -- the Fighter is adjacent, Taunt stops it."""
    s = _taunted_fighter()
    s = at(s, rocks=frozenset({idx(s, "b4")}))
    e = refusal(s, 1, "rock b4")
    assert e.code == "taunted" and "Taunt" in e.message


def test_refusal_a_move_after_the_turns_action_names_the_one_action_a_turn() -> None:
    """Turn: "Each turn, a player takes exactly one action that requires energy or he must pass." (Turn)"""
    s = at(board(), active=1, actions=1)  # the turn's action is taken; free actions remain
    s = puts(s, 1, "fighter", "g4")
    s = energy(s, 1, 10, 0)
    e = refusal(s, 1, "move g4 f4")
    assert e.code == "action_taken" and "action" in e.message


def test_refusal_a_move_beyond_the_energy_names_its_cost() -> None:
    """Move: "A player can move a unit X tiles for X energy." (Turn)"""
    s = at(board(), active=1)
    s = puts(s, 1, "fighter", "a4")
    s = energy(s, 1, 2, 0)
    e = refusal(s, 1, "move a4 e4")
    assert e.code == "not_enough_energy" and "4 energy" in e.message and "you have 2" in e.message


def test_refusal_a_move_with_no_path_says_the_entire_movement_must_be_possible() -> None:
    """Move: "When moving a unit ... the entire movement must be possible." (Turn)"""
    s = board()
    s = puts(s, 0, "knight", "a4")
    s = at(s, rocks=frozenset(s.geo.nbr[idx(s, "a4")]))  # walled in by rocks
    s = energy(s, 0, 10, 0)
    e = refusal(s, 0, "move a4 e4")
    assert e.code == "no_path" and "entire movement must be possible" in e.message


# --- 6. The Elemental order prompt ----------------------------------------------------------------


def _step(s: State, step: str, die: int) -> tuple[State, list[Event]]:
    c = RiteEmitter(at(s, die=die), rng())
    getattr(engine, step)(c)
    return c.s, c.events


def test_elemental_order_is_not_asked_when_every_order_ends_the_same() -> None:
    """General Rules: "If there is no active player, the first player in turn order chooses in
    which order these game effects trigger." Both Earth Elementals act on d4: one drops a rock,
    the other shatters it, whichever goes first -- so nobody is asked, and the record says why."""
    s = board(tiles={"c4": ("earth", "", 0), "e4": ("earth", "", 3)})
    s = puts(s, 0, "knight", "d5")
    s = at(s, order=(1, 0))
    s, events = _step(s, "earth_step", 1)
    assert s.mode != "order"
    assert [e.data["tiles"] for e in events if e.type == "rite.OrderFixed"] == [["c4", "e4"]]
    assert idx(s, "d4") not in s.rocks and unit_on(s, "d5") == ""
    said = GAME.describe_event(s, next(e for e in events if e.type == "rite.OrderFixed"), None, NAMES[:2]).text
    assert "c4 and e4" in said and "nobody is asked" in said


def test_elemental_order_is_asked_when_the_orders_end_differently() -> None:
    """c4 drops a rock on the Knight's d4 (a unit defeated by a placed rock triggers no Rise
    Again, Undead notes), f4 shatters the rock on e4 and defeats the units next to it. f4 first
    defeats the Knight by the volcano, which the Necromancer may answer: the orders differ."""
    s = board(HGU, tiles={"c4": ("earth", "", 0), "f4": ("earth", "", 3)})
    s = at(s, rocks=frozenset({idx(s, "e4")}), order=(1, 0, 2))
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 2, "necromancer", "b6")
    s, _ = _step(s, "earth_step", 1)
    assert s.mode == "order" and s.prompt is not None and s.prompt.seats == (1,)
    assert texts(s, 1) == ["choose c4", "choose f4"]
