"""Step 4 (Counting Earned Resources) and Resource Center claims, with the printed numbers."""

from __future__ import annotations

from rules.core import Event
from rules.factions import GAME
from rules.factions.state import State
from tests.factions.helpers import position, run, texts


def _start(s: State) -> State:
    return GAME.evolve(s, Event("factions.RoundStarted", {"round": 1, "tie": []}))


def _finish_round(s: State) -> tuple[State, list[Event]]:
    """Every unit ends its activation at once and nobody recruits; returns the upkeep events."""
    events: list[Event] = []
    rnd = s.round
    while s.round == rnd and s.phase == "play":
        opts = texts(s, s.ps[0])
        pick = next((t for t in opts if t in ("end", "done")), None) or next(t for t in opts if t.startswith("activate"))
        s, ev = run(s, pick)
        events += ev
    return s, events


def _gains(events: list[Event]) -> list[list[int]]:
    return next(e.data["gains"] for e in events if e.type == "factions.ResourcesCounted")


def test_printed_resource_example_three_each() -> None:
    # Player 1: Royal Swordsman and Elite Gladiator on Home Tiles -> 2 gold, +1 as General = 3 gold.
    # Player 2: Storm Conjuror and Manawing Parrot at home -> 2 mana; the Dwarf Warrior stands on an
    # enemy tile and earns nothing; +1 gold as General.
    s = _start(position([(0, "RS", "a1"), (0, "EG", "b2"), (1, "SC", "e5"), (1, "MP", "f6"), (1, "DW", "a2")]))
    s, ev = _finish_round(s)
    assert _gains(ev) == [[3, 0], [1, 2]]


def test_printed_claiming_example_zyan_gold_mine() -> None:
    # "Player 2 (Zermano) earns 2 mana and 1 gold. Player 1 (Zyan) earns 5 gold because of the Gold Mine."
    s = _start(position([(0, "RS", "a1"), (0, "EG", "b2"), (1, "SC", "e5"), (1, "MP", "f6"), (1, "DW", "a2")],
                        centers=[("e1", "gold", 0)]))
    s, ev = _finish_round(s)
    assert _gains(ev) == [[5, 0], [1, 2]]


def test_only_units_that_began_the_round_at_home_earn() -> None:
    s = _start(position([(0, "RS", "c3"), (1, "MI", "f6")]))
    s, _ = run(s, "activate RS", "step c2", "end")  # ends at home, but began on an enemy tile
    s, ev = _finish_round(s)
    assert _gains(ev)[0] == [1, 0]


def test_claiming_a_center_by_moving_onto_it_and_moving_on() -> None:
    s = position([(0, "RS", "c2"), (1, "MI", "f6")], centers=[("c3", "mana", -1)])
    s, ev = run(s, "activate RS", "step c3", "step c4")
    assert s.centers[0][2] == 0 and s.mana[0] == 10  # a first claim pays at Step 4
    assert any(e.type == "factions.CenterClaimed" for e in ev)


def test_capturing_a_claimed_center_pays_two_at_once() -> None:
    s = position([(0, "RS", "c2"), (1, "MI", "f6")], centers=[("c3", "gold", 1)], gold=[3, 3])
    s, _ = run(s, "activate RS", "step c3")
    assert s.centers[0][2] == 0 and s.gold[0] == 5


def test_flying_units_must_land_to_claim() -> None:
    s = position([(0, "SV", "c2"), (1, "MI", "f6")], centers=[("c3", "gold", -1)])
    s, _ = run(s, "activate SV", "step c3")
    assert s.centers[0][2] == -1
    s, _ = run(s, "land")
    assert s.centers[0][2] == 0


def test_claimed_centers_pay_two_each_round() -> None:
    s = _start(position([(0, "RS", "c3"), (1, "MI", "f6")], centers=[("a3", "gold", 0), ("b4", "mana", 0)]))
    s, ev = _finish_round(s)
    assert _gains(ev)[0] == [3, 2]
