"""Each game's position as text, from a hand-written view: the exact text, so a change of words
is a change seen here (rules/<game>/textboard.py; issue #40)."""

from __future__ import annotations

from typing import Any

from events.domain.positiontext import position_text
from rules import catalog
from rules.core import get_game

catalog.load()
NAMES = ["ann", "bob"]


def _rite_view() -> dict[str, Any]:
    cells = [
        {"id": "c3", "label": "c3 FEr5", "pieces": []},
        {"id": "d2", "label": "d2 bea*", "pieces": [{"label": "knight", "owner": 0}]},
        {"id": "e3", "label": "e3 tun", "pieces": [{"label": "fighter", "owner": 1}, {"label": "fire", "owner": None}]},
        {"id": "b4", "label": "b4 FF3", "pieces": [{"label": "firefly", "owner": None}]},
        {"id": "f2", "label": "f2", "pieces": [{"label": "rock", "owner": None}]},
    ]
    return {
        "game": "rite", "phase": "play", "seat": 0, "round": 5, "turn_order": [1, 0], "pass_track": [1],
        "active": 0, "actions_taken": 2, "volcano": {"last_die": 4, "rolls": [4]}, "hands": [[], []],
        "players": [
            {"seat": 0, "faction": "humans", "round_energy": 3, "reserve_energy": 1, "faction_energy": 2, "rage": 0,
             "passed": False, "powers": [{"number": 5, "face_up": True, "power": "rally", "slots_left": 1},
                                         {"number": 10, "face_up": False, "power": "pilgrimage", "slots_left": 0}],
             "reserve": {"knight": 7, "angel": 1}, "on_cards": {}, "on_board": 1},
            {"seat": 1, "faction": "goblins", "round_energy": 0, "reserve_energy": 0, "faction_energy": 0, "rage": 2,
             "passed": True, "powers": [{"number": 5, "face_up": False, "power": None, "slots_left": 0}],
             "reserve": {"fighter": 8}, "on_cards": {"sorcerer": 1}, "on_board": 1},
        ],
        "board": {"kind": "hex", "cells": cells},
        "prompt": {"seats": [0], "kind": "turn", "options": {}}, "winner": None, "reason": "",
    }


def test_rite_text() -> None:
    view = {"status": "active", "prompt": {"seats": [0], "kind": "turn"}, "prompt_text": "ann (Humans): take an action.",
            "outcome": None, "board": _rite_view()}
    assert position_text(get_game("rite"), view, NAMES) == """\
Rite: ann vs bob, round 5
To play: ann. ann (Humans): take an action.
Actions taken this turn: 2.
Turn order: bob, ann.
Passed: bob.
The volcano's last roll: 4.
Players:
  ann (Humans): energy 3 this round, 1 in reserve, 2 faction energy; rage 0; 1 unit on the board; reserve: 1 Angel and 7 Knights; power cards: 5 Rally (1 use left), 10 Pilgrimage (yours, face down).
  bob (Goblins), passed: energy 0 this round, 0 in reserve, 0 faction energy; rage 2; 1 unit on the board; reserve: 8 Fighters; on power cards: 1 Sorcerer; power cards: 5 face down.
Board:
  d2 (fire beacon tile, activated): Knight (ann)
  e3 (tunnel tile): Fighter (bob), a fire token
  b4 (Firefly tile 3): Firefly (the volcano)
  f2: a rock
"""


def test_factions_text() -> None:
    cards = [{"code": "BO", "name": "Bowman", "attack": 1, "health": 2}, {"code": "MI", "name": "Zyan Militia", "attack": 1, "health": 2}]
    board = {
        "game": "factions", "phase": "play", "stage": "main", "round": 2, "target": 25,
        "players": [
            {"seat": 0, "faction": "zyan", "name": "Zyan", "gold": 3, "mana": 1, "vp": 4, "warband": ["MI"], "cards": cards,
             "eliminated": [], "tiles_in_hand": [], "out": False},
            {"seat": 1, "faction": "zyan", "name": "Zyan", "gold": 0, "mana": 2, "vp": 6, "warband": [], "cards": cards,
             "eliminated": ["BO"], "tiles_in_hand": [2], "out": False},
        ],
        "units": [
            {"seat": 0, "code": "BO", "name": "Bowman", "space": "c3", "damage": 1, "health": 2,
             "boost": {"attack": 1, "health": 0}, "activated": True},
            {"seat": 1, "code": "MI", "name": "Zyan Militia", "space": "base", "damage": 0, "health": 2, "boost": {}},
        ],
        "centers": [{"space": "c3", "kind": "gold", "owner": 0}, {"space": "d4", "kind": "mana", "owner": -1}],
    }
    view = {"status": "active", "prompt": {"seats": [1], "kind": "activation"}, "prompt_text": "bob: activate a unit.",
            "outcome": None, "board": board}
    assert position_text(get_game("factions"), view, NAMES) == """\
Factions: Battlegrounds: ann vs bob, round 2
To play: bob. bob: activate a unit.
Phase: play (activating Units).
25 Victory Points win.
Players:
  ann (Zyan): 4 Victory Points, 3 gold, 1 mana; Warband: Zyan Militia.
  bob (Zyan): 6 Victory Points, 0 gold, 2 mana; Warband: none; eliminated: Bowman; 1 Terrain Tile in hand.
Resource Centers: c3 Gold Mine (ann), d4 Mana Pool (nobody).
bob's Base Camp: Zyan Militia (bob; attack 1, health 2 of 2).
Battleground:
  c3: Bowman (ann; attack 2, health 1 of 2, activated)
"""


def test_dragondale_text_as_a_seat_sees_it() -> None:
    board = {
        "board": {"kind": "areas", "cells": [
            {"id": "fog1", "pieces": [{"label": "Dragon", "owner": None}, {"label": "insight:celts", "owner": None}]},
            {"id": "thicket1", "pieces": [{"label": "Rune stone (conquered)", "owner": 0}]},
            {"id": "camp_a", "pieces": []}, {"id": "camp_b", "pieces": []}]},
        "you": 0, "turn_no": 3, "order": [0, 1], "dominance": ["vikings", "dragon", "celts"],
        "dragon": {"at": "fog1", "stone": 0, "vp": None, "deck_count": 9},
        "fury_track": {"spaces": [{"level": 5, "card": "slumber", "revealed": True}]},
        "trees": [{"id": "tree1", "in": ["thicket1"], "state": "felled", "by": 1}],
        "tribes": [
            {"seat": 0, "tribe": "vikings", "name": "Vikings", "camp": "camp_a", "vp": 2, "fury": 4,
             "units": [{"type": "warriors", "at": "thicket1", "hidden": True}, {"type": "ox", "at": "camp_a", "hidden": False}],
             "insight": [{"owner": "vikings", "type": "circle", "hidden": True}], "staked": [],
             "hand_count": 1, "library_count": 8, "revealed_stances": [], "hand": ["vik-named"],
             "stances": {"warriors": "berserk"}},
            {"seat": 1, "tribe": "celts", "name": "Celts", "camp": "camp_b", "vp": 0, "fury": 6,
             "units": [{"type": None, "at": "thicket1", "hidden": True}, {"type": None, "at": "camp_b", "hidden": True}],
             "insight": [{"owner": "celts", "type": None, "hidden": True}], "staked": [],
             "hand_count": 3, "library_count": 7, "revealed_stances": []},
        ],
    }
    view = {"status": "active", "prompt": {"seats": [0, 1], "kind": "stance_round"}, "prompt_text": "",
            "outcome": None, "board": board}
    assert position_text(get_game("dragondale"), view, NAMES) == """\
Dragon Dale: ann vs bob, turn 3
To play: ann and bob.
Turn order: ann, bob.
Dominance: Vikings > the Dragon > Celts.
The Dragon: in Fog Valley 1; 9 movement cards left.
Fury cards revealed: 5 “Slumber”.
Tribes:
  ann (Vikings): 2 VP, Fury 4, 1 card in hand, 8 in the Library, insight tokens: Vikings circle; your hand: “Experienced Commander”; your stances: Warriors “Berserk”.
  bob (Celts): 0 VP, Fury 6, 3 cards in hand, 7 in the Library, insight tokens: Celts face down.
Territories:
  Fog Valley 1: the Dragon, a Celts insight token
  Thicket 1: Warriors (ann, hidden), a hidden unit (bob), a rune stone (conquered by ann), Tree 1 (felled by bob)
  the Encampment of the Vikings: Ox (ann)
  the Encampment of the Celts: a hidden unit (bob)
"""


def test_the_end_and_the_headline_without_rounds() -> None:
    view = {"status": "over", "prompt": None, "prompt_text": None,
            "outcome": {"winners": [1], "scores": [3, 7], "reason": "25 points"}, "board": {"tribes": []}}
    assert position_text(get_game("dragondale"), view, NAMES).splitlines() == [
        "Dragon Dale: ann vs bob", "The game is over: bob won (25 points); scores ann 3, bob 7.",
        "The game has not started."]


def test_every_game_before_its_set_up() -> None:
    """A game whose seats are still open has no set-up yet: each text says so, never "None"."""
    for name in ("rite", "factions", "dragondale"):
        game = get_game(name)
        view = game.view(game.initial_state(), None)
        assert game.text_board(view, NAMES) == "The game has not started."
        assert game.headline(view, NAMES) == {"rite": "Rite", "factions": "Factions: Battlegrounds",
                                              "dragondale": "Dragon Dale"}[name] + ": ann vs bob"
