"""The game types as a player choosing one sees them: names, player counts, a line each, and the
options each game's set-up takes (rules/<game>/setup.py), as choices for the lobby's form.

The choices are read from each game's own content (its factions, tribes), so a form offers what
the set-up accepts; the set-up still checks every combination (Rite's line-ups, for one).
"""

from __future__ import annotations

from typing import Any

from rules.core import Game, games, get_game
from rules.dragondale.setup import TRIBE_ORDER
from rules.factions.content import FACTION_IDS, FACTIONS, INVENTED, INVENTED_LINK
from rules.factions.setup import DEFAULT_FACTIONS as FACTIONS_DEFAULT
from rules.rite.content import TURN_TRACK
from rules.rite.setup import DEFAULT_FACTIONS as RITE_DEFAULT
from rules.rite.setup import lineups_for

TITLES = {"rite": "Rite", "factions": "Factions: Battlegrounds", "dragondale": "Dragon Dale"}
LINES = {
    "rite": "Hex war game: each faction races for its own objective on a map of hex tiles around a volcano.",
    "factions": "Grid war game: units activate in rank order, capture resource centres, first to 25 points wins "
                "(30 with three players, 40 with four).",
    "dragondale": "Area control with hidden units and stances: alter trees, hold rune stones, best the Dragon.",
}


def _label(key: str) -> str:
    return key.replace("_", " ").title()


def _seat_choice(key: str, label: str, ids: tuple[str, ...], names: dict[str, str],
                 defaults: dict[int, list[str]]) -> dict[str, Any]:
    """One choice per seat, from `ids` (each at most once), seat i taking the i-th."""
    return {"key": key, "label": label, "kind": "per_seat",
            "choices": [{"value": i, "label": names.get(i, _label(i))} for i in ids],
            "defaults": {str(n): v for n, v in defaults.items()}}


def _rite(game: Game) -> list[dict[str, Any]]:
    return [
        {**_seat_choice("factions", "Factions", TURN_TRACK, {}, RITE_DEFAULT),
         "hint": "The rulebook's line-ups only (Set-Up: Pre-Made): "
                 + "; ".join(f"{n} players {', '.join(lineups_for(n))}" for n in range(game.min_seats, game.max_seats + 1))
                 + " (H humans, G goblins, U undead, C chaos, P primals)"},
        {"key": "map", "label": "Map", "kind": "choice", "default": "premade",
         "choices": [{"value": "premade", "label": "Pre-made"}, {"value": "random", "label": "Random"},
                     {"value": "player", "label": "Player made (the players place the tiles)"}]},
        *({"key": k, "label": _label(k), "kind": "bool", "default": True}
          for k in ("volcano", "fireflies", "elementals", "firelord")),
    ]


def _factions(game: Game) -> list[dict[str, Any]]:
    names = {f: FACTIONS[f].name for f in FACTION_IDS}
    defaults = {n: list(FACTIONS_DEFAULT[:n]) for n in range(game.min_seats, game.max_seats + 1)}
    return [
        {**_seat_choice("factions", "Factions", FACTION_IDS, names, defaults), "hint": INVENTED,
         "link": INVENTED_LINK},
        {"key": "resource_centers", "label": "Resource centres", "kind": "choice", "default": 6,
         "choices": [{"value": 6, "label": "6 (the rulebook's)"}, {"value": 4, "label": "4"}]},
    ]


def _dragondale(game: Game) -> list[dict[str, Any]]:
    defaults = {n: list(TRIBE_ORDER[:n]) for n in range(game.min_seats, game.max_seats + 1)}
    return [
        _seat_choice("tribes", "Tribes", TRIBE_ORDER, {"dark_faery": "Dark Faery"}, defaults),
        {"key": "experienced", "label": "Set-up for experienced tribes", "kind": "bool", "default": False},
        {"key": "newcomer", "label": "Newcomers' rules for every tribe", "kind": "bool", "default": False},
    ]


OPTIONS = {"rite": _rite, "factions": _factions, "dragondale": _dragondale}
# The platform's own options (events.domain.platform.OPTIONS), offered with every game's form.
PLATFORM = [
    {"key": "takeback", "label": "Takebacks (a seat may undo its last move when the others accept)",
     "kind": "bool", "default": True},
]


def game_types() -> list[dict[str, Any]]:
    """Every registered game: the shipped ones first, in the order above; a game this module does not know
    (an extra one) is listed by its id, its options taken as raw JSON."""
    out = []
    names = sorted(games(), key=lambda n: (list(TITLES).index(n) if n in TITLES else len(TITLES), n))
    for name in names:
        game = get_game(name)
        options = OPTIONS.get(name)
        out.append({"game": name, "title": TITLES.get(name, name), "line": LINES.get(name, ""),
                    "min_seats": game.min_seats, "max_seats": game.max_seats,
                    "options": None if options is None else [*options(game), *PLATFORM]})
    return out
