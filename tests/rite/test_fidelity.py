"""Issue #16 (rules fidelity, second pass), Rite: every choice the rulebook gives a player is a
prompt, and the refusals say why. One test per rule, from hand-built positions, quoting the
rulebook (shared/rulebooks/rite.txt)."""

from __future__ import annotations

import pytest

from rules.core import IllegalCommand, InvalidCommand
from rules.rite import GAME
from rules.rite.emitter import RiteEmitter
from rules.rite.engine import fire_step
from rules.rite.notation import SHAPES, USAGE
from rules.rite.query import defeat_cost

from .helpers import at, board, energy, legal, put, puts, rng, run, texts, unit_on

HGU = ("humans", "goblins", "undead")
HGP = ("humans", "goblins", "primals")
G, U, P = 1, 2, 2  # the Goblin seat; the Undead seat in HGU; the Primal seat in HGP


def idx(s, lab):  # type: ignore[no-untyped-def]
    return s.geo.index[lab]


# --- 1. Rage: the Goblin player chooses how much of it pays ---------------------------------------


def _wyrm(round_e: int, reserve_e: int, rage: int):  # type: ignore[no-untyped-def]
    s = at(board(), active=G)
    s = puts(s, G, "wyrmling", "a4")
    s = puts(s, 0, "knight", "d4")
    return energy(s, G, round_e, reserve_e, rage=rage)


def test_rage_split_is_the_goblin_players_choice() -> None:
    """Rage: "When you spend energy on an action with the Red Dragon Wyrmling, you may use this
    rage to add energy to that action", with at least 1 from round or reserve energy (Goblin
    notes). Breathing over b4-d4 costs 3: rage 0, 1 or 2 is the player's to say."""
    s = _wyrm(2, 3, rage=4)
    s, _ = run(s, G, "breathe d4")
    assert s.prompt is not None and s.prompt.kind == "rage" and s.prompt.seats == (G,)
    assert s.prompt.options == {"cost": 3, "rage": [0, 1, 2]}
    assert texts(s, G) == ["choose rage:0", "choose rage:1", "choose rage:2"]
    assert unit_on(s, "d4") == "knight"  # nothing happens before the answer
    kept, _ = run(s, G, "choose rage:2")  # 2 rage, 1 round energy: the reserve is kept
    p = kept.players[G]
    assert (p.round_e, p.reserve_e, p.rage) == (1, 3, 4 - 2 + 1) and unit_on(kept, "d4") == ""
    spent, _ = run(s, G, "choose rage:0")  # no rage: round first, then reserve
    p = spent.players[G]
    assert (p.round_e, p.reserve_e, p.rage) == (0, 2, 4 + 1)


def test_rage_prompt_refuses_a_split_it_does_not_offer() -> None:
    """ "at least 1 energy from his round energy or reserve energy" (Goblin notes): 3 rage for a
    3-energy action is not a split."""
    s, _ = run(_wyrm(2, 3, rage=4), G, "breathe d4")
    with pytest.raises(IllegalCommand) as e:
        run(s, G, "choose rage:3")
    assert e.value.code == "bad_option"


def test_rage_is_not_asked_when_only_one_split_is_possible() -> None:
    """No rage (nothing to choose), a 1-energy action (rage cannot pay it), and an action that
    needs every point of rage it can take: the action is paid at once."""
    s, _ = run(_wyrm(3, 0, rage=0), G, "breathe d4")
    assert s.players[G].round_e == 0 and unit_on(s, "d4") == ""
    s = _wyrm(3, 0, rage=4)
    s, _ = run(s, G, "move a4 b4")
    assert s.players[G].rage == 4 and s.players[G].round_e == 2
    s, _ = run(_wyrm(1, 0, rage=4), G, "breathe d4")
    assert (s.players[G].round_e, s.players[G].rage) == (0, 4 - 2 + 1)


def test_rage_split_is_chosen_for_a_wyrmling_move_and_defeat() -> None:
    """Every action with the Wyrmling that spends energy: a move and a defeat (Rage)."""
    s = _wyrm(1, 4, rage=3)
    s, _ = run(s, G, "move a4 c4")
    assert (
        s.prompt is not None
        and s.prompt.kind == "rage"
        and texts(s, G) == ["choose rage:0", "choose rage:1"]
    )
    s, _ = run(s, G, "choose rage:1")
    assert unit_on(s, "c4") == "wyrmling"
    assert (s.players[G].round_e, s.players[G].reserve_e, s.players[G].rage) == (0, 4, 2)
    s = at(board(), active=G)
    s = puts(s, G, "wyrmling", "c4")
    s = puts(s, 0, "lightbringer", "d4")
    s = energy(s, G, 2, 0, rage=2)
    s, _ = run(s, G, "defeat d4 from c4")
    assert texts(s, G) == ["choose rage:0", "choose rage:1"]
    s, _ = run(s, G, "choose rage:1")
    assert unit_on(s, "d4") == "" and (s.players[G].round_e, s.players[G].rage) == (1, 2 - 1 + 1)


# --- 2. Which rune lights is the Undead player's choice ---------------------------------------


def _runes():  # type: ignore[no-untyped-def]
    s = at(board(HGU, tiles={"a4": ("rune", "undead", 0), "g4": ("rune", "undead", 0)}), active=U)
    s = puts(s, U, "necromancer", "a4", "g4")
    s = puts(s, U, "warrior", "c4")
    s = puts(s, 0, "knight", "d4")
    return energy(s, U, 5, 0)


def test_undead_player_chooses_which_rune_lights() -> None:
    """Undead, Objective: "If a friendly Necromancer or Death is on a rune tile when the Undead
    player defeats a non-Undead enemy unit, the rune tile is activated ... The Undead player can
    only activate one rune tile for every defeated enemy unit." Two Necromancers on two runes, one
    defeat: one rune, the player's."""
    s, _ = run(_runes(), U, "defeat d4 from c4")
    assert s.prompt is not None and s.prompt.kind == "rune" and s.prompt.seats == (U,)
    assert s.prompt.options == {"tiles": ["a4", "g4"], "n": 1}
    assert texts(s, U) == ["choose rune:a4", "choose rune:g4"]
    assert not s.activated
    s, _ = run(s, U, "choose rune:g4")
    assert s.activated == {idx(s, "g4")} and s.runes == () and s.runes_due == 0


def test_runes_light_without_a_prompt_when_every_candidate_is_earned() -> None:
    """One defeat, one Necromancer on a rune: nothing to choose (Undead, Objective)."""
    s = _runes()
    s = at(s, activated=frozenset({idx(s, "g4")}))
    s, _ = run(s, U, "defeat d4 from c4")
    assert s.activated == {idx(s, "a4"), idx(s, "g4")}
    assert GAME.is_over(s) is not None and GAME.is_over(s).winners == (U,)  # type: ignore[union-attr]


def test_rune_is_chosen_before_soul_reaper_moves_death() -> None:
    """Death on a rune when the defeat happens counts for the rune ("is on a rune tile when the
    Undead player defeats"), even though Soul Reaper then places Death on the defeated unit's tile:
    the rune prompt comes first, the reaction prompt after it."""
    s = at(board(HGU, tiles={"a4": ("rune", "undead", 0), "g4": ("rune", "undead", 0)}), active=U)
    s = puts(s, U, "necromancer", "a4")
    s = puts(s, U, "death", "g4")
    s = puts(s, U, "warrior", "c4")
    s = puts(s, 0, "knight", "d4")
    s = energy(s, U, 5, 0)
    s, _ = run(s, U, "defeat d4 from c4")
    assert s.prompt is not None and s.prompt.kind == "rune"
    s, _ = run(s, U, "choose rune:g4")
    assert idx(s, "g4") in s.activated
    assert s.prompt is not None and s.prompt.kind == "undead_reaction"
    assert "choose reap:d4" in texts(s, U)


# --- 3. A defeat can cost 0, and is still the turn's one action --------------------------------


def test_lonely_prey_defeats_a_lone_one_cost_unit_for_no_energy() -> None:
    """Hatchling, Lonely Prey: "Defeating an enemy unit that has no backup costs 1 less energy":
    a Knight (cost 1) without backup costs 1 - 1 = 0. It is the Defeat action all the same
    ("Each turn, a player takes exactly one action that requires energy"), so a second one in the
    same turn is refused."""
    s = at(board(HGP), active=P)
    s = puts(s, P, "hatchling", "d4", "g1")
    s = puts(s, 0, "knight", "e4", "g2")
    s = energy(s, P, 0, 0)
    assert legal(s, P, "defeat e4 from d4")
    s2, events = run(s, P, "defeat e4 from d4")
    assert unit_on(s2, "e4") == "" and not [e for e in events if e.type == "rite.EnergySpent"]
    assert any(e.type == "rite.ActionTaken" for e in events)
    s = at(s, actions=1)
    assert not legal(s, P, "defeat g2 from g1")
    with pytest.raises(IllegalCommand) as e:
        run(s, P, "defeat g2 from g1")
    assert e.value.code == "action_taken"


def test_defeat_priced_zero_by_surround_is_the_turns_one_action() -> None:
    """Turn, Defeat a unit: cost + backup - surround; a Fighter with three Knights around it
    besides the attacker costs 1 + 0 - 3, that is nothing, and is the turn's action (at most one
    defeat per action: the guard against unlimited free defeats)."""
    s = board()
    s, t = put(s, 1, "fighter", "d4")
    s, a = put(s, 0, "knight", "c4")
    s = puts(s, 0, "knight", "d5", "e4", "e3")
    s = energy(s, 0, 0, 0)
    assert defeat_cost(s, t, 0, a) == 0
    assert legal(s, 0, "defeat d4 from c4") and legal(s, 0, "pass")
    s, events = run(s, 0, "defeat d4 from c4")
    assert unit_on(s, "d4") == "" and any(e.type == "rite.ActionTaken" for e in events)
    assert s.active == 1  # the action taken and nothing free left: the turn went on


# --- 4. Fireball under Taunt -----------------------------------------------------------------


def _taunted_sorcerer(round_e: int):  # type: ignore[no-untyped-def]
    s = at(board(), active=G)
    s = puts(s, G, "sorcerer", "c4")
    s = puts(s, 0, "knight", "d4")  # next to the Sorcerer: Taunt
    s = puts(s, 0, "lightbringer", "f4")
    return energy(s, G, round_e, 0)


def test_taunted_sorcerer_may_fireball_a_neighbouring_tile_whose_area_holds_the_knight() -> None:
    """Knight, Taunt: "Enemy player units adjacent to the Knight cannot activate abilities ...
    other than actions or abilities that defeat the Knight." Fireball: "Defeat all units on this
    tile and adjacent tiles that cost Y or less to defeat." A Fireball on e4 (range 2) holds the
    Knight on d4 in its area, so with Y >= 1 it defeats him: allowed."""
    s = _taunted_sorcerer(4)
    assert legal(s, G, "fireball c4 e4") and legal(s, G, "fireball c4 d4")
    assert not legal(s, G, "fireball c4 b4")  # b4's area does not hold the Knight
    s, _ = run(s, G, "fireball c4 e4")
    assert "pay x2 y0" not in texts(s, G) and "pay x2 y1" in texts(s, G)
    done, _ = run(s, G, "pay x2 y2")
    assert unit_on(done, "d4") == "" and unit_on(done, "f4") == ""


def test_taunted_sorcerer_fireball_must_be_able_to_defeat_the_knight() -> None:
    """The only abilities Taunt allows are those "that defeat the Knight": Y = 0 cannot, so it is
    refused with the reason; so is a target whose area misses the Knight, and one beyond X + Y."""
    s = _taunted_sorcerer(4)
    s2, _ = run(s, G, "fireball c4 d4")
    with pytest.raises(IllegalCommand) as e:
        run(s2, G, "pay x1 y0")
    assert e.value.code == "taunted" and "Y at least 1" in e.value.message
    with pytest.raises(IllegalCommand) as e:
        run(s, G, "fireball c4 b4")
    assert e.value.code == "taunted"
    s = _taunted_sorcerer(2)  # e4 needs X 2 + Y 1
    assert not legal(s, G, "fireball c4 e4") and legal(s, G, "fireball c4 d4")
    with pytest.raises(IllegalCommand) as e:
        run(s, G, "fireball c4 e4")
    assert e.value.code == "out_of_range"


# --- 5. Fire Elementals resolve in the order the first player chooses ---------------------------


def test_fire_elementals_resolve_in_the_order_the_first_player_chooses() -> None:
    """General Rules: "If multiple game effects trigger simultaneously ... If there is no active
    player, the first player in turn order chooses in which order these game effects trigger."
    Two Fire Elementals that both defeat something on the same roll wait for the first player
    under rules version 2 (from version 3 only when the order changes the result:
    test_rulebook_third_pass.py)."""
    s = board(tiles={"c4": ("fire", "", 0), "e2": ("fire", "", 0)}, rules=2)
    s = at(s, die=1, round=2, order=(1, 0), active=-1, mode="flow", queue=("newround",))
    lines = {lab: s.geo.ray(idx(s, lab), 0, 2) for lab in ("c4", "e2")}
    targets = {lab: s.geo.labels[line[0]] for lab, line in lines.items()}
    for lab in targets.values():
        s = puts(s, 0, "knight", lab)
    c = RiteEmitter(s, rng())
    fire_step(c)
    s = c.s
    assert s.mode == "order" and s.prompt is not None and s.prompt.seats == (1,)
    assert texts(s, 1) == ["choose e2", "choose c4"]  # reading order; e2 would go first by it
    s, events = run(s, 1, "choose c4")
    gone = [e.data["at"] for e in events if e.type == "rite.UnitDefeated"]
    assert gone == [targets["c4"], targets["e2"]]


# --- 6. Notation: the expected form of a command -----------------------------------------------


def test_wrong_number_of_words_shows_the_expected_form() -> None:
    """`fireball c4` lacks its target: the refusal writes the command's form, with an example."""
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("fireball c4", 1)
    assert e.value.code == "bad_notation"
    assert "fireball <sorcerer> <target>" in e.value.message and "fireball c4 d6" in e.value.message
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("pay 2 3", 1)
    assert "pay x<X> y<Y> [flames]" in e.value.message
    with pytest.raises(InvalidCommand) as e:
        GAME.parse_text("hurl c4", 1)
    assert "no command 'hurl'" in e.value.message and "fireball" in e.value.message


def test_every_command_has_its_written_form() -> None:
    """Every verb the notation reads has a form to show (and no form names a verb it lacks)."""
    assert set(USAGE) == set(SHAPES)
    for verb, form in USAGE.items():
        assert form.split()[0] == verb


def test_taunted_wyrmling_may_not_breathe_through_a_knight_it_cannot_defeat() -> None:
    """Taunt allows only "actions or abilities that defeat the Knight": a Knight on a shrine
    under Sacred Grounds ("cannot be affected by ... enemy actions, abilities or powers in any
    way") is not defeated by the breath, so the breath is not allowed while he taunts."""
    s = at(board(tiles={"e4": ("shrine", "humans", 0)}), active=G)
    s = puts(s, G, "wyrmling", "c4")
    s = puts(s, 0, "knight", "d4")
    s = energy(s, G, 3, 0)
    assert legal(s, G, "breathe d4") and legal(s, G, "breathe e4")
    s = at(s, rflags=frozenset({"sacred"}))
    assert not legal(s, G, "breathe d4") and not legal(s, G, "breathe e4")
    with pytest.raises(IllegalCommand):
        run(s, G, "breathe d4")
