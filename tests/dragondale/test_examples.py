"""The rulebook's worked examples, with the rulebook's numbers."""

from __future__ import annotations

from dataclasses import replace

from rules.dragondale import GAME
from rules.dragondale.queries import vp
from tests.dragondale.positions import (
    at_action,
    cmd,
    end_actions,
    first,
    new_game,
    park,
    place,
    play,
    tokens,
    tribe,
    types_of,
    unit_id,
)


def test_vikings_pay_insight_to_reach_5_against_the_druids_magician() -> None:
    """Full Rules for Encounters: Druids (active) MAGICIAN 3, Vikings (passive) SWOOPING ATTACK 3 + 2."""
    s = new_game(["druids", "vikings"])
    fynn, raven = unit_id(s, 0, "fynn"), unit_id(s, 1, "raven")
    s = park(park(s, 0), 1)
    s = place(s, 1, {raven: "thicket1"})
    s = tribe(s, 0, stances=(("forest_animals", "flying_paws"), ("fynn", "magician"), ("ovates", "herbal_lore")))
    s = tribe(s, 1, stances=(("ox", "trample"), ("raven", "swooping_attack"), ("seers", "runecast"),
                             ("warriors", "raid")), tokens=tokens("vikings:circle"))
    s = replace(s, terr_tokens={})  # the Druids find no insight on the way in
    s = tribe(s, 0, tokens=())
    s = at_action(s, 0, 1)
    assert vp(s, 1) == 1  # the Vikings hold the Rune stone
    s, _ = play(s, cmd(0, "explore", dir="in", target="thicket1", via=["camp_a"]))
    s, ev = play(s, cmd(0, "take", units=[fynn]))
    # both tribes reveal all present units; the Druids have no insight, so only the Vikings decide
    assert "UnitsRevealed" in types_of(ev)
    assert s.prompt is not None and s.prompt.kind == "enc_pay" and s.prompt.seats == (1,)
    s, ev = play(s, cmd(1, "pay", tokens=[0]))
    init = first(ev, "InitiativeDetermined").data
    assert init["initiative"] == {"druids": 3, "vikings": 5}
    assert init["first"] == "vikings"
    # the Vikings boost, then dispel Arch Druid Fynn, which ends the encounter
    assert first(ev, "CardBoosted").seat == 1
    assert first(ev, "UnitsDispelled").data["units"] == {fynn: "fynn"}
    assert not any(e.type.endswith("UnitsHidden") and e.seat == 0 for e in ev)
    assert vp(s, 1) == 1  # alone again: they keep the Rune stone


def test_celts_alanis_against_the_dragon_at_7_plus_1_with_banning() -> None:
    """Encounter with the Dragon (Full Rules): Dragon 7 + 1 = 8 beats ALANIS 3; BANNING sends her home."""
    s = new_game(["vikings", "celts"])
    alanis = unit_id(s, 1, "alanis")
    s = park(park(s, 0), 1)
    s = place(s, 1, {alanis: "oak"}, hidden=True)
    s = tribe(s, 1, fury=7, tokens=(), stances=(("alanis", "alanis"), ("bards", "ballad"), ("hunters", "great_hunt")))
    cards = list(s.fury_cards)
    i = cards.index(next(c for c in cards if c[0] == "banning"))
    cards[i], cards[7 - 2] = cards[7 - 2], ("banning", False)
    s = replace(s, fury_cards=tuple(cards), dragon="ash", stone=0, mdeck=("oak1", "ash1", "yew1"))
    s, ev = end_actions(at_action(s, 0, 2))
    assert first(ev, "DragonMoved").data == {"to": "oak", "from": "ash"}
    assert first(ev, "StanceRevealed").data == {"unit": "alanis", "card": "alanis"}
    assert first(ev, "FuryCardRevealed").data == {"level": 7, "card": "banning"}
    init = first(ev, "InitiativeDetermined").data
    assert init["initiative"] == {"dragon": 8, "celts": 3} and init["first"] == "dragon"
    placed = first(ev, "UnitsPlaced")
    assert placed.seat == 1 and placed.data["to"] == s.tribes[1].camp
    # no unit of the revealed stance's type is left: ALANIS is not applied, the card stays up
    assert not any(e.type.endswith("InsightDrawn") and e.seat == 1 for e in ev)
    assert s.fury_cards[7 - 2] == ("banning", True)


def test_druids_adjust_fury_after_flying_paws() -> None:
    """Step E: Flying Paws shows an insight type at the bottom: down from the second-to-last space."""
    s = new_game(["vikings", "druids"])
    s = tribe(s, 1, fury=3, revealed=("flying_paws",))
    s = replace(s, stone=0)
    s = at_action(s, 1, 2)
    assert "leaf" in s.fury_bottom
    s, ev = end_actions(s)
    assert first(ev, "FuryMoved").data == {"to": 2}
    picked = first(ev, "InsightPickedUp")
    assert picked.data["where"] == "fury:2" and picked.seat == 1
    assert s.tribes[1].fury == 2 and len(s.tribes[1].tokens) == 1
    # then step F: the active tribe chooses the new stance of its Forest Animals
    assert s.prompt is not None and s.prompt.kind == "restance"


def test_root_tunnel_moving_one_unit_moves_two() -> None:
    """Root Tunnel: before one unit leaves, another present unit goes into another Root Tunnel."""
    s = new_game(["vikings", "celts"])
    a, b = unit_id(s, 0, "warriors", 0), unit_id(s, 0, "warriors", 1)
    s = park(park(s, 0), 1)
    s = place(s, 0, {a: "tunnel1", b: "tunnel1"})
    s = at_action(s, 0, 1)
    legal = list(GAME.legal_commands(s, 0))
    out = [c for c in legal if c.type == "dragondale.explore" and c.args["target"] == "tunnel1" and c.args["dir"] == "out"]
    assert out and all(len(c.args["via"]) == 1 for c in out)  # only one of the two may leave
    s, _ = play(s, cmd(0, "explore", dir="out", target="tunnel1", via=["marsh2"]))
    takes = list(GAME.legal_commands(s, 0))
    assert sorted(len(c.args["units"]) for c in takes) == [1, 1]
    s, ev = play(s, cmd(0, "take", units=[a]))
    moves = [m for e in ev if e.type.endswith("UnitsMoved") for m in e.data["moves"]]
    assert moves[0] == [b, "tunnel1", "tunnel2"]  # the companion goes first
    assert [a, "tunnel1", "marsh2"] in moves


def test_root_tunnel_single_unit_cannot_leave() -> None:
    s = new_game(["vikings", "celts"])
    a = unit_id(s, 0, "warriors", 0)
    s = park(park(s, 0), 1)
    s = place(s, 0, {a: "tunnel1"})
    s = at_action(s, 0, 1)
    legal = list(GAME.legal_commands(s, 0))
    assert not any(c.type == "dragondale.explore" and "tunnel1" in (c.args["target"], *c.args["via"])
                   and ((c.args["dir"] == "out" and c.args["target"] == "tunnel1")
                        or (c.args["dir"] == "in" and "tunnel1" in c.args["via"])) for c in legal)


def test_fog_valley_two_units_into_different_territories_and_hidden() -> None:
    """Fog Valley: min. 2 units leave, only into different territories; they are hidden."""
    s = new_game(["vikings", "celts"])
    a, b = unit_id(s, 0, "warriors", 0), unit_id(s, 0, "warriors", 1)
    s = park(park(s, 0), 1)
    s = place(s, 0, {a: "fog1", b: "fog1"}, hidden=False)
    s = at_action(s, 0, 1)
    legal = list(GAME.legal_commands(s, 0))
    fog_out = [c for c in legal if c.type == "dragondale.explore" and c.args["dir"] == "out" and c.args["target"] == "fog1"]
    assert fog_out and all(len(c.args["via"]) == 2 for c in fog_out)
    assert not any(c.type == "dragondale.explore" and c.args["dir"] == "in" and "fog1" in c.args["via"] for c in legal)
    s, _ = play(s, cmd(0, "explore", dir="out", target="fog1", via=["mountain1", "thicket1"]))
    assert all(len(c.args["units"]) == 1 for c in GAME.legal_commands(s, 0))
    s, _ = play(s, cmd(0, "take", units=[a]))
    s, ev = play(s, cmd(0, "take", units=[b]))
    assert first(ev, "UnitsHidden").data["units"] == sorted([a, b])
    locs = {u.id: u.loc for u in s.tribes[0].units}
    assert {locs[a], locs[b]} == {"mountain1", "thicket1"}


def test_fog_valley_single_unit_cannot_leave() -> None:
    s = new_game(["vikings", "celts"])
    a = unit_id(s, 0, "warriors", 0)
    s = park(park(s, 0), 1)
    s = place(s, 0, {a: "fog1"})
    s = at_action(s, 0, 1)
    assert not any(c.type == "dragondale.explore" and c.args["dir"] == "out" and c.args["target"] == "fog1"
                   for c in GAME.legal_commands(s, 0))
