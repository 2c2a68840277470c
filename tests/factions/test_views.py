"""Views are public and JSON-able; redaction changes nothing."""

from __future__ import annotations

import json

from rules.core import Command, Event, fold
from rules.factions import GAME
from rules.factions.content import FACTIONS
from rules.factions.state import State
from tests.factions.helpers import position
from tests.support.randomplay import play_random


def test_view_has_generic_grid_board_and_camps() -> None:
    s = position([(0, "EG", "c2"), (0, "RS", "base"), (1, "SC", "c5")], centers=[("c3", "gold", -1)])
    v = GAME.view(s, 0)
    assert json.loads(json.dumps(v)) == v
    assert v["board"]["kind"] == "grid" and v["public"] is True
    cells = {c["id"]: c for c in v["board"]["cells"]}
    assert len(cells) == 36 + 2
    assert cells["c2"]["pieces"] == [{"label": "EG", "owner": 0}]
    assert cells["camp0"]["pieces"] == [{"label": "RS", "owner": 0}]
    assert cells["c3"]["label"] == "c3 G"
    assert cells["a1"]["y"] > cells["a6"]["y"]  # row 1 is drawn at the bottom


def test_all_information_is_public() -> None:
    s = position([(0, "EG", "c2"), (1, "SC", "c5")])
    public = GAME.view(s, None)
    for seat in (0, 1):
        assert {**GAME.view(s, seat), "viewer": None} == public
    e = Event("factions.UnitSetAside", {"seat": 0, "unit": "RS"}, 0)
    assert GAME.redact(e, 1) == e and GAME.redact(e, None) == e
    c = Command("factions.aside", {"unit": "RS"}, 0)
    assert GAME.redact_command(c, 1) == c


def test_initial_view() -> None:
    v = GAME.view(GAME.initial_state(), None)
    assert v["board"]["cells"] == []


def test_views_of_three_and_four_player_games() -> None:
    for n in (3, 4):
        rec = play_random(GAME, {}, [f"p{i}" for i in range(n)], 40 + n, replay_checks=0, check_audit=False)
        for cut in (1, len(rec.events) // 3, len(rec.events)):
            s = fold(GAME, rec.events[:cut])
            v = GAME.view(s, 0)
            assert json.loads(json.dumps(v)) == v
            if s.geo is not None:
                assert len(v["board"]["cells"]) == s.geo.width * s.geo.height + n


def test_view_labels_reference_stats_per_card_and_unit() -> None:
    """The Faction Overview Sheets are not in the rulebook (RULINGS.md, Content): the view says,
    per card, which figures the rulebook prints (and where) and which are reference stats, and
    labels every unit's stat line "reference stats"."""
    s = position([(0, "EG", "c2"), (1, "IN", "c5")])
    v = GAME.view(s, None)
    cards = {c["code"]: c for c in v["players"][0]["cards"]}
    eg = cards["EG"]["provenance"]
    assert eg["name"] == "rulebook" and eg["label"] == "reference stats"
    assert set(eg["printed"]) == {"name", "rank", "movement", "type"}
    assert eg["printed"]["rank"]["value"] == 4 and "Rank Ties" in eg["printed"]["rank"]["where"]
    assert eg["reference"] == ["cost", "captain", "attack", "range", "health", "aerial", "evade", "powers"]
    rs = cards["RS"]["provenance"]["printed"]["health"]
    assert rs["value"] == 3 and rs["at_most"] is True
    mi = cards["MI"]["provenance"]
    assert mi["name"] == "reference" and mi["printed"] == {} and len(mi["reference"]) == 12
    sc = {c["code"]: c for c in v["players"][1]["cards"]}["SC"]["provenance"]
    assert set(sc["powers"]["LB"]) == {"name", "range", "amount", "mana"}
    assert {u["id"]: u["stats_label"] for u in v["units"]} == {"0:EG": "reference stats", "1:IN": "reference stats"}
    inkanyamba = {c["code"]: c for c in v["players"][1]["cards"]}["IN"]["provenance"]
    assert inkanyamba["name"] == "rulebook" and "Pronunciation" in inkanyamba["printed"]["name"]["where"]


def _placing_tiles() -> State:
    """Two seats, Zyan and Zermano; seat 0 took the Terrain Tile Advantage and placed its tile 5
    on spot 2: seat 1 places next (2 Player Setup)."""
    s = GAME.initial_state()
    for e in (Event("factions.GameSetUp", {"factions": ["zyan", "zermano"], "centers": 6, "rolls": [[6], [1]],
                                           "ranking": [0, 1], "rules": GAME.rules_version}),
              Event("factions.AdvantageChosen", {"seat": 0, "advantage": "terrain"}, 0),
              Event("factions.TilePlaced", {"seat": 0, "tile": 5, "spot": 2, "rot": 0}, 0)):
        s = GAME.evolve(s, e)
    return s


def test_every_panel_holds_the_patterns_of_its_hand_while_tiles_are_placed() -> None:
    """Issue #38 item 10: the page draws each tile choice in place before it is made, so each
    panel carries the patterns of the tiles in its seat's hand ('ab/cd', north row first). They
    are public (the hand's numbers are, and the tiles are content): every viewer, the spectator
    too, gets the same, so placing a tile reveals nothing and can be taken back."""
    s = _placing_tiles()
    seen = GAME.view(s, None)["players"]
    assert seen[1]["hand_tiles"] == [{"tile": n, "pattern": p} for n, p in
                                     zip(range(1, 6), FACTIONS["zermano"].tiles, strict=True)]
    assert seen[0]["hand_tiles"] == [{"tile": n, "pattern": FACTIONS["zyan"].tiles[n - 1]} for n in (1, 2, 3, 4)]
    for seat in (0, 1):
        assert {**GAME.view(s, seat), "viewer": None} == GAME.view(s, None)


def test_the_hand_patterns_leave_the_view_once_the_tiles_are_down() -> None:
    s = position()
    assert s.hand[0] and all("hand_tiles" not in p for p in GAME.view(s, 0)["players"])
