"""Dragon Dale content (tribes, stances, cards, Fury and movement cards), loaded and checked at import."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

INSIGHT_TYPES: tuple[str, ...]
TRIBES: dict[str, dict[str, Any]]
CARDS: dict[str, list[dict[str, Any]]]
STANCES: dict[str, dict[str, Any]]
FURY_CARDS: dict[str, dict[str, Any]]
MOVEMENT_CARDS: dict[str, dict[str, Any]]
TRACK: dict[str, Any]
UNDERSIDES: dict[str, dict[str, Any]]
BOARDS: dict[str, Any]
TERRITORIES: dict[str, dict[str, str]]  # each territory kind's name, phrase and text (territories.json)

EFFECTS = frozenset(
    {
        "dispel_enemy", "dispel_own", "dispel_dragon", "enemy_to_camp", "own_to_camp", "move_own",
        "hide_own", "boost", "gain_insight", "fury_up", "fury_down", "dominance", "end_encounter",
        "lose_insight", "reveal_all_insight", "move_unit", "dragon_move", "dragon_reach",
        "alter_tree", "check_tree", "peek_dragon", "hide_all", "return_unit", "may", "choose",
        "explore", "empower",
    }
)
EMPOWER = frozenset({"insight", "exchange", "fury_up", "fury_down", "boost"})
# The moments a bright-border card may be played at outside its tribe's turn [Card Notes], each
# named by the card (`"moment"`); RULINGS.md, "Bright-border cards", says when each comes.
MOMENTS = frozenset({"entered"})


def _load(name: str) -> Any:
    return json.loads(resources.files("rules.dragondale").joinpath("content").joinpath(name).read_text("utf-8"))


def _check_effects(effects: list[dict[str, Any]], where: str) -> None:
    for e in effects:
        if e.get("do") not in EFFECTS:
            raise ValueError(f"{where}: unknown effect {e!r}")
        if e["do"] == "may":
            if e.get("cost") not in ("pay", "reveal", "discard"):
                raise ValueError(f"{where}: bad cost in {e!r}")
            _check_effects(e["then"], where)
        if e["do"] == "choose":
            for opt in e["options"]:
                _check_effects(opt, where)


def _validate() -> None:
    types = set(INSIGHT_TYPES)
    if len(TRIBES) != 4:
        raise ValueError("four tribes expected")
    for tname, t in TRIBES.items():
        if t["insight"] not in types:
            raise ValueError(f"{tname}: bad insight type")
        units = sum(u["count"] for k, u in t["units"].items() if k != "ox")
        if units != 6:
            raise ValueError(f"{tname}: 6 units expected, got {units}")
        n_st = sum(len(v) for v in t["stances"].values())
        if n_st != (12 if tname == "vikings" else 10):
            raise ValueError(f"{tname}: wrong number of stance cards ({n_st})")
        for utype, lst in t["stances"].items():
            if utype not in t["units"]:
                raise ValueError(f"{tname}: stances for unknown unit {utype}")
            for s in lst:
                if s["insight"][0] not in types or s["insight"][1] not in types:
                    raise ValueError(f"{s['id']}: bad insight")
                _check_effects(s["effects"], s["id"])
        n_cards = len(CARDS[tname])
        if n_cards != (16 if tname == "druids" else 15):
            raise ValueError(f"{tname}: wrong number of special action cards ({n_cards})")
        for c in CARDS[tname]:
            _check_effects(c["effects"], c["id"])
            if not set(c["empower"]) <= EMPOWER:
                raise ValueError(f"{c['id']}: bad empower")
            if c.get("bright") and (c.get("moment") not in MOMENTS or not c.get("text")):
                raise ValueError(f"{c['id']}: a bright-border card names its moment and its text")
    if len(FURY_CARDS) != 9 or len(MOVEMENT_CARDS) != 14:
        raise ValueError("9 fury cards and 14 movement cards expected")
    for f in FURY_CARDS.values():
        _check_effects(f["effects"], f["id"])
    if sorted(TRACK["top"] + TRACK["bottom"]) != sorted(INSIGHT_TYPES):
        raise ValueError("fury track ends must hold each insight type once")


def _init() -> None:
    global INSIGHT_TYPES, TRIBES, CARDS, STANCES, FURY_CARDS, MOVEMENT_CARDS, TRACK, UNDERSIDES, BOARDS, TERRITORIES
    tribes = _load("tribes.json")
    dragon = _load("dragon.json")
    INSIGHT_TYPES = tuple(tribes["insight_types"])
    TRIBES = tribes["tribes"]
    CARDS = {}
    for tname, lst in tribes["cards"].items():
        CARDS[tname] = lst
    STANCES = {}
    for tname, t in TRIBES.items():
        for utype, lst in t["stances"].items():
            for s in lst:
                STANCES[s["id"]] = {**s, "tribe": tname, "unit": utype}
    FURY_CARDS = {f["id"]: f for f in dragon["fury_cards"]}
    MOVEMENT_CARDS = {m["id"]: m for m in dragon["movement_cards"]}
    TRACK = dragon["track"]
    UNDERSIDES = {u["under"]: u for u in dragon["tree_undersides"]}
    BOARDS = _load("boards.json")
    TERRITORIES = _load("territories.json")["kinds"]
    _validate()
    kinds = {t["kind"] for b in BOARDS.values() for t in (*b.get("territories", ()), *b.get("add", ()))}
    assert set(TERRITORIES) == kinds, f"territories.json: words for each territory kind {sorted(kinds)}"
    assert all(set(k) == {"name", "phrase", "text"} and all(k.values()) for k in TERRITORIES.values()), \
        "territories.json: a name, phrase and text each"


_init()

CARD_BY_ID: dict[str, dict[str, Any]] = {}
for _tname, _lst in CARDS.items():
    for _c in _lst:
        CARD_BY_ID[_c["id"]] = {**_c, "tribe": _tname}
        if "intro" in _c:
            _i = _c["intro"]
            CARD_BY_ID[_i["id"]] = {
                **_c, **_i, "tribe": _tname, "regular": _c["id"], "is_intro": True,
            }
            CARD_BY_ID[_i["id"]].pop("intro", None)
# each tribe's bright-border cards by the moment they answer: public content, so a prompt asked
# of every tribe that has one tells nothing of its hand
BRIGHT: dict[str, dict[str, tuple[str, ...]]] = {
    _tname: {m: tuple(c["id"] for c in _lst if c.get("bright") and c.get("moment") == m) for m in MOMENTS}
    for _tname, _lst in CARDS.items() if any(c.get("bright") for c in _lst)
}
LEVELS: tuple[int, ...] = tuple(TRACK["levels"])
LOW, HIGH, START = LEVELS[0], LEVELS[-1], int(TRACK["start"])
