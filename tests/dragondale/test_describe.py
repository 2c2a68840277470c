"""Dragon Dale in words (issue #14): hidden things told only as the viewer may know them, cards,
stances and territories by their names, never a unit's token id."""

from __future__ import annotations

from rules.core import Command, Event
from rules.dragondale import GAME
from rules.dragondale.describe import territory

from .positions import new_game, unit_id

NAMES = ["ann", "bob"]


def _words(s, e: Event, viewer: int | None) -> str:  # type: ignore[no-untyped-def]
    seen = GAME.redact(e, viewer)
    assert seen is not None
    return GAME.describe_event(s, seen, viewer, NAMES).text


def test_territories_go_by_their_kind_in_full() -> None:
    assert territory("marsh2") == "Marshland 2"
    assert territory("tunnel1") == "Root Tunnel 1"
    assert territory("fog1") == "Fog Valley 1"
    assert territory("camp_b") == "Encampment B"
    assert territory("ash") == "the Ash Dragon Territory"


def test_an_encampment_is_named_for_its_tribe() -> None:
    # "Only your units may enter your ENCAMPMENT": the rulebook names a camp by whose it is.
    s = new_game(["vikings", "celts"])
    assert territory(s.tribes[0].camp, s) == "the Encampment of the Vikings"
    assert territory(s.tribes[1].camp, s) == "the Encampment of the Celts"
    assert territory("marsh2", s) == "Marshland 2"


def test_a_hidden_unit_is_named_for_its_owner_only() -> None:
    s = new_game(["vikings", "celts"])
    seers = unit_id(s, 0, "seers")
    camp = s.tribes[0].camp
    e = Event("dragondale.UnitsMoved", {"moves": [[seers, camp, "thicket1"]]}, 0)
    assert _words(s, e, 0) == "Moved from the Encampment of the Vikings to Thicket 1: ann's Seers."
    for other in (1, None):
        text = _words(s, e, other)
        assert text == "Moved from the Encampment of the Vikings to Thicket 1: ann's hidden unit."
        assert seers not in text


def test_a_stance_is_named_to_its_chooser_only() -> None:
    s = new_game(["vikings", "celts"])
    e = Event("dragondale.StanceChosen", {"unit": "raven", "secret": {"card": "swooping_attack"}}, 0)
    assert _words(s, e, 0) == "ann chooses \u201cSwooping Attack\u201d for their Raven, face down."
    assert _words(s, e, 1) == "ann chooses a stance card for their Raven, face down."
    c = Command("dragondale.stance", {"unit": "raven", "card": "swooping_attack"}, 0)
    seen = GAME.redact_command(c, 1)
    assert seen is not None and "Swooping" not in GAME.describe_command(s, seen, 1, NAMES)


def test_a_drawn_insight_token_is_told_to_its_drawer_and_is_a_draw() -> None:
    s = new_game(["vikings", "celts"])
    e = Event("dragondale.InsightDrawn", {"secret": {"token": ["celts", "circle"]}}, 1)
    assert _words(s, e, 1) == "bob draws a Celts circle insight token from the bag."
    assert _words(s, e, 0) == "bob draws an insight token from the bag."
    assert GAME.describe_event(s, GAME.redact(e, 0), 0, NAMES).draw == "insight token drawn"  # type: ignore[arg-type]


def test_cards_go_by_their_names() -> None:
    s = new_game(["vikings", "celts"])
    c = Command("dragondale.special", {"card": "vik-named"}, 0)
    assert GAME.describe_command(s, c, 1, NAMES) == "ann plays \u201cExperienced Commander\u201d."


def test_the_dragon_moving_is_a_heading_with_its_card_as_a_draw() -> None:
    s = new_game(["vikings", "celts"])
    told = GAME.describe_event(s, Event("dragondale.DragonCardDrawn", {"card": "oak2"}), None, NAMES)
    assert told.heading == "The Dragon" and told.draw == "Dragon card: Oak movement card"
    moved = GAME.describe_event(s, Event("dragondale.DragonMoved", {"from": "yew", "to": "oak"}), None, NAMES)
    assert moved.text == "The Dragon moves from the Yew Dragon Territory to the Oak Dragon Territory."


def test_a_choice_names_the_choosers_own_units_as_theirs() -> None:
    s = new_game(["vikings", "celts"])
    raven = unit_id(s, 0, "raven")
    c = Command("dragondale.choose", {"option": f"move:{raven}:thicket1"}, 0)
    assert GAME.describe_command(s, c, 0, NAMES) == ("ann chooses to move their Raven (hidden) from the Encampment of the Vikings "
                                                     "to Thicket 1.")
    seen = GAME.redact_command(c, 1)
    assert seen is not None
    assert GAME.describe_command(s, seen, 1, NAMES) == ("ann chooses to move their hidden unit from the Encampment "
                                                        "of the Vikings to Thicket 1.")
