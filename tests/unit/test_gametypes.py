"""The lobby's form offers only what each game's set-up takes: every default and every single
choice of every option is accepted by the game's own set-up, for every player count."""

from __future__ import annotations

import pytest

from rules import catalog
from rules.core import InvalidCommand, get_game
from service.usecases.gametypes import game_types
from service.usecases.matches import check_setup

catalog.load()
TYPES = {t["game"]: t for t in game_types()}


def test_the_shipped_games_come_first_by_their_names() -> None:
    shipped = [(t["game"], t["title"], t["min_seats"], t["max_seats"]) for t in game_types()][:3]
    assert shipped == [("rite", "Rite", 2, 5), ("factions", "Factions: Battlegrounds", 2, 4),
                       ("dragondale", "Dragon Dale", 2, 4)]
    assert all(TYPES[g]["line"] for g in ("rite", "factions", "dragondale"))


@pytest.mark.parametrize("name", ["rite", "factions", "dragondale"])
def test_every_default_and_every_choice_is_one_the_set_up_takes(name: str) -> None:
    t, game = TYPES[name], get_game(name)
    for n in range(t["min_seats"], t["max_seats"] + 1):
        check_setup(game, {}, n)
        for o in t["options"]:
            if o["kind"] == "per_seat":
                check_setup(game, {o["key"]: o["defaults"][str(n)]}, n)
                assert {c["value"] for c in o["choices"]} >= set(o["defaults"][str(n)])
            elif o["kind"] == "bool":
                for v in (True, False):
                    check_setup(game, {o["key"]: v}, n)
            else:
                for c in o["choices"]:
                    check_setup(game, {o["key"]: c["value"]}, n)


@pytest.mark.parametrize("name", ["rite", "factions", "dragondale"])
def test_an_unknown_option_is_refused_naming_every_option_the_form_offers(name: str) -> None:
    """The lobby's form and the set-up agree on the options; the refusal names them all, the
    platform's too (the form's takeback), so a misspelt one says what to write."""
    t, game = TYPES[name], get_game(name)
    with pytest.raises(InvalidCommand) as err:
        check_setup(game, {"volcanoes": True}, t["min_seats"])
    assert err.value.code == "bad_options"
    message = err.value.message
    assert message.startswith("unknown option 'volcanoes': the game's options are "), message
    named = set(message.split("are ", 1)[1].replace(";", ",").replace("with any game,", "").replace(" ", "").split(","))
    assert {o["key"] for o in t["options"]} <= named


def test_a_game_without_a_form_takes_raw_json() -> None:
    assert TYPES["race"]["options"] is None
