"""The nine factions as data, with every name and figure the rulebook prints."""

from __future__ import annotations

from rules.factions.content import FACTION_IDS, FACTIONS


def _unit(fid: str, name: str):  # type: ignore[no-untyped-def]
    return next(u for u in FACTIONS[fid].units.values() if u.name == name)


def test_nine_factions_fifteen_units_five_tiles() -> None:
    assert set(FACTIONS) == set(FACTION_IDS) and len(FACTIONS) == 9
    for f in FACTIONS.values():
        assert len(f.units) == 15 and len(f.tiles) == 5


def test_printed_figures() -> None:
    eg = _unit("zyan", "Elite Gladiator")
    assert (eg.rank, eg.movement, eg.captain) == (4, 2, True)
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
    assert _unit("zermano", "Manawing Parrot").aerial and _unit("zermano", "Manawing Parrot").makes == "mana"
    assert _unit("zermano", "Dwarf Warrior").makes == "gold"


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


def test_reference_units_are_labelled() -> None:
    for f in FACTIONS.values():
        for u in f.units.values():
            assert u.source in ("rulebook", "reference")
