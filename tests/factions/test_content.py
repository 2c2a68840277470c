"""The nine factions as data, with every name and figure the rulebook prints."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from rules.factions import content
from rules.factions.content import FACTION_IDS, FACTIONS
from rules.factions.content import _unit as _load_unit


def _unit(fid: str, name: str):  # type: ignore[no-untyped-def]
    return next(u for u in FACTIONS[fid].units.values() if u.name == name)


def test_nine_factions_fifteen_units_five_tiles() -> None:
    assert set(FACTIONS) == set(FACTION_IDS) and len(FACTIONS) == 9
    for f in FACTIONS.values():
        assert len(f.units) == 15 and len(f.tiles) == 5


def test_printed_figures() -> None:
    eg = _unit("zyan", "Elite Gladiator")
    assert (eg.rank, eg.movement) == (4, 2)  # its Captain icon is not printed (RULINGS.md)
    assert _unit("zermano", "Storm Conjuror").rank == 4
    ac = _unit("zyan", "Armored Cavalry")
    assert ac.attack + ac.health == 4
    sv = _unit("zyan", "Swiftwing Valkyrie")
    assert sv.aerial and sv.movement == 4
    bow = _unit("zyan", "Bowman")
    assert (bow.range, bow.attack) == (2, 1)
    lb = _unit("zermano", "Storm Conjuror").power("LB")
    assert lb is not None and (lb.range, lb.amount, lb.mana) == (3, 3, 5)
    assert _unit("zyan", "Royal Swordsman").health <= 3
    assert _unit("zermano", "Manawing Parrot").makes == "mana"  # Step 4 example
    assert _unit("zyan", "Royal Swordsman").makes == "gold" and eg.makes == "gold"


def test_wizards_make_mana_soldiers_make_gold() -> None:
    for f in FACTIONS.values():
        assert {u.makes for u in f.units.values()} == {"gold", "mana"}


def test_pronunciation_guide_units_present() -> None:
    names = {
        "baazaria": ["Asanbosam", "Kichwavore", "Obayifo"], "doom_sand": ["Ukhozi"],
        "moonshadow": ["Ahool", "Hantu", "Winjaru"], "parada": ["Eloko", "Jitu", "Umuthi", "Yumboe"],
        "primus": ["Coatl", "Yacumama"], "zermano": ["Inkanyamba", "Isangoma"],
        "ihalaban": ["Bakunawa", "Berbalang", "Mameleu", "Minokawa", "Salamangkero", "Tikbalang"],
        "kragg": ["Camazotz", "Kobekumpo", "Kongamato"],
    }
    for fid, ns in names.items():
        have = {u.name for u in FACTIONS[fid].units.values()}
        assert set(ns) <= have, fid


# What the rulebook prints for each unit beyond the pronunciation guide's names (read from the
# text: Rank Ties, Movement, Step 4, Range Attacks, Aerial Units, Faction Unit Card).
PRINTED = {
    ("zyan", "BO"): {"name", "range", "attack"},
    ("zyan", "RS"): {"name", "health", "type"},
    ("zyan", "EG"): {"name", "rank", "movement", "type"},
    ("zyan", "AC"): {"name", "prowess"},
    ("zyan", "SV"): {"name", "aerial", "movement"},
    ("zermano", "SC"): {"name", "rank", "type"},
    ("zermano", "MP"): {"name", "type"},
    ("zermano", "DW"): {"name"},
}


def test_units_are_tagged_by_what_the_rulebook_prints() -> None:
    """Starting a New Game: "all explained on each Faction Overview Sheet" — sheets the rulebook
    does not print. A unit whose name is printed is `named`; only the figures the text states are
    `printed`; every other figure is a labelled reference stat (no unit's card is all printed)."""
    named = 0
    for fid, f in FACTIONS.items():
        for u in f.units.values():
            fields = {p.field for p in u.printed}
            if u.source == "named":
                named += 1
                assert fields == PRINTED.get((fid, u.code), {"name"}), u.name
            else:
                assert u.source == "reference" and fields == set(), u.name
            assert u.reference_fields, u.name  # every card has reference stats
            assert "captain" in u.reference_fields  # no unit is printed as a Captain
    assert named == 32
    lb = _unit("zermano", "Storm Conjuror").power("LB")
    assert lb is not None and {p.field for p in lb.printed} == {"name", "range", "amount", "mana"}
    # Aerial is printed for the Swiftwing Valkyrie only; the Manawing Parrot's wings are reference.
    assert "aerial" in _unit("zermano", "Manawing Parrot").reference_fields
    assert "aerial" not in _unit("zyan", "Swiftwing Valkyrie").reference_fields


def test_content_refuses_a_figure_that_contradicts_the_rulebook() -> None:
    d = _raw("zyan", "EG")
    d["rank"] = 3
    with pytest.raises(ValueError, match="rank is 3 but the rulebook prints 4"):
        _load_unit(d)
    d = _raw("zyan", "RS")
    d["health"] = 4
    with pytest.raises(ValueError, match="health is 4 but the rulebook prints 3"):
        _load_unit(d)
    d = _raw("zyan", "MI")
    d["printed"] = {"speed": {"value": 1, "where": "nowhere"}}
    with pytest.raises(ValueError, match="printed field 'speed'"):
        _load_unit(d)
    d = _raw("zyan", "MI")
    d["source"] = "named"
    with pytest.raises(ValueError, match="'named' unit"):
        _load_unit(d)


def _raw(fid: str, code: str) -> dict:  # type: ignore[type-arg]
    raw = json.loads((Path(content.__file__).parent / "content" / "factions.json").read_text())
    return copy.deepcopy(next(u for u in raw["factions"][fid]["units"] if u["code"] == code))
