"""The Game contract for Rite: options, set-up methods, bad input, notation, perft, views."""

from __future__ import annotations

import orjson
import pytest

from rules.core import Command, Game, IllegalCommand, InvalidCommand, SeatInfo, fold
from rules.rite import GAME
from rules.rite.board import geometry
from rules.rite.mapgen import map_valid, random_map

from .helpers import at, board, energy, puts, rng, run

SEATS2 = [SeatInfo(0, "ann"), SeatInfo(1, "bob")]
SEATS3 = [*SEATS2, SeatInfo(2, "cy")]
PERFT_35 = [100, 74, 56, 76]


def start(options: dict, seats: list[SeatInfo] = SEATS2, tag: str = "s"):  # type: ignore[no-untyped-def]
    return fold(GAME, GAME.setup(options, seats, rng(tag)))


def test_game_satisfies_protocol() -> None:
    assert isinstance(GAME, Game)
    assert GAME.name == "rite" and GAME.min_seats == 2 and GAME.max_seats == 5
    assert "rite.move" in GAME.command_types


@pytest.mark.parametrize(
    "options,seats",
    [
        ({"factions": ["humans", "chaos"]}, SEATS2),
        ({"factions": ["humans", "humans"]}, SEATS2),
        ({"factions": ["humans"]}, SEATS2),
        ({"map": "hexagram"}, SEATS2),
        ({"volcano": "yes"}, SEATS2),
        ({"colour": "red"}, SEATS2),
        ({}, [SeatInfo(0, "solo")]),
    ],
)
def test_bad_options_are_rejected(options: dict, seats: list[SeatInfo]) -> None:
    with pytest.raises(InvalidCommand) as e:
        GAME.setup(options, seats, rng())
    assert e.value.code == "bad_options"


def test_defaults_by_seat_count_and_turn_order_track() -> None:
    s = start({})
    assert s.factions == ("humans", "goblins")
    s3 = start({"factions": ["undead", "humans", "goblins"]}, SEATS3)
    assert s3.order == (1, 2, 0)  # H - G - U whatever the seats
    assert s3.prompt is not None and s3.prompt.seats == (1,)


@pytest.mark.parametrize("factions", [["humans", "goblins"], ["undead", "goblins"], ["humans", "undead"]])
def test_premade_two_player_maps_for_each_substitution(factions: list[str]) -> None:
    s = start({"factions": factions})
    assert s.radius == 3 and all(s.kinds)
    assert map_valid(s.geo, s.kinds)
    objectives = {"humans": "shrine", "goblins": "beacon", "undead": "rune"}
    for f in factions:
        assert s.kinds.count(objectives[f]) == 4
        assert sum(1 for i, k in enumerate(s.kinds) if k == "summon" and s.tfac[i] == f) == 4


def test_premade_three_player_map() -> None:
    s = start({}, SEATS3)
    assert s.radius == 4 and len(s.kinds) == 61 and map_valid(s.geo, s.kinds)
    assert s.kinds.count("earth") == 3 and s.kinds.count("fire") == 3 and s.kinds.count("summon") == 18


@pytest.mark.parametrize("seed", range(60))
def test_random_maps_keep_the_balance_rules(seed: int) -> None:
    for facs in (["humans", "goblins"], ["humans", "goblins", "undead"]):
        tiles = random_map(facs, (True, True, True, True), rng(f"map{seed}"))
        geo = geometry(3 if len(facs) == 2 else 4)
        kinds = [""] * geo.size
        for i, t in tiles:
            kinds[i] = t[0]
        assert all(kinds) and map_valid(geo, kinds)
        assert all(geo.ring[i] == geo.radius for i, t in tiles if t[0] == "summon")


def test_removal_options_play_tiles_basic_side_up() -> None:
    s = start({"fireflies": False, "elementals": False, "firelord": False})
    assert not {"firefly", "earth", "fire", "firelord"} & set(s.kinds)
    assert s.kinds.count("basic") == 6 + 6 + 2 + 2 + 1


def test_player_made_map_is_placed_ring_by_ring_in_turn_order() -> None:
    s = start({"map": "player"})
    assert s.mode == "place" and s.prompt is not None and s.prompt.seats == (0,)
    assert sum(len(h) for h in s.hands) == 36
    legal = list(GAME.legal_commands(s, 0))
    assert legal and all(geometry(3).ring[geometry(3).index[c.args["at"]]] == 1 for c in legal)
    assert not any(c.args["tile"].startswith("summon") for c in legal)  # outermost ring only
    evs = GAME.decide(s, legal[0], rng())
    for e in evs:
        s = GAME.evolve(s, e)
    assert s.prompt is not None and s.prompt.seats == (1,)


def test_player_made_forced_violation_is_swapped_by_the_player_to_the_right() -> None:
    s = start({"map": "player"})
    # Give the Humans only summoning tiles while the first ring is being built.
    hands = (("summon-humans",) * 18, s.hands[1])
    s = at(s, hands=hands)
    legal = list(GAME.legal_commands(s, 0))
    assert {c.args["tile"] for c in legal} == {"summon-humans"}
    s2 = s
    for e in GAME.decide(s, legal[0], rng()):
        s2 = GAME.evolve(s2, e)
    # no basic tile on the board yet: the swap is skipped, the Goblins place next
    assert s2.mode == "place" and s2.prompt is not None and s2.prompt.seats == (1,)


def test_bad_input_is_refused_and_changes_nothing() -> None:
    s = start({})
    before = s
    with pytest.raises(InvalidCommand):
        GAME.decide(s, Command("rite.fly", {"from": "zz"}, 0), rng())
    with pytest.raises(InvalidCommand):
        GAME.decide(s, Command("rite.teleport", {}, 0), rng())
    with pytest.raises(InvalidCommand):
        GAME.parse_command("rite.summon", {"unit": 3, "at": "c4"}, 0)
    with pytest.raises(InvalidCommand):
        GAME.parse_text("summon knight", 0)
    with pytest.raises(IllegalCommand) as e:
        GAME.decide(s, GAME.parse_text("pass", 1), rng())
    assert e.value.code == "not_your_turn"
    with pytest.raises(IllegalCommand) as e:
        GAME.decide(s, GAME.parse_text("summon angel a4", 0), rng())
    assert e.value.code == "bad_unit"
    with pytest.raises(IllegalCommand) as e:
        GAME.decide(s, GAME.parse_text("pay x1 y1", 0), rng())
    assert e.value.code == "wrong_prompt"
    assert s == before


def test_not_enough_energy() -> None:
    s = board(tiles={"a4": ("summon", "humans", 0)})
    s = energy(s, 0, 1, 0)
    with pytest.raises(IllegalCommand) as e:
        run(s, 0, "summon cleric a4")
    assert e.value.code == "not_enough_energy"


@pytest.mark.parametrize(
    "text",
    [
        "summon knight c4",
        "move c4 d5 d6",
        "move c4 e6",
        "defeat d6 from e6",
        "defeat d6",
        "rock d6",
        "fly c4 e6",
        "fireball c4 d6",
        "pay x2 y3",
        "pay x2 y0 flames",
        "breathe d6",
        "breathe d6 flames",
        "presence",
        "power rally c4",
        "power sign col:c row:5 flames",
        "power frenzy",
        "choose rise:c4",
        "choose c4-d5",
        "place earth d4 r2",
        "place firefly3 c4",
        "place summon-humans a1",
        "end",
        "pass",
    ],
)
def test_notation_round_trips(text: str) -> None:
    c = GAME.parse_text(text, 1)
    assert GAME.format_text(c) == text
    assert GAME.parse_text(GAME.format_text(c), 1) == c
    assert GAME.parse_command(c.type, orjson.loads(orjson.dumps(dict(c.args))), 1) == c


def test_perft_opening_counts() -> None:
    # Humans to move in round 1 with 1 round energy: summon a Knight on one of 4 tiles, or pass.
    s = start({})
    texts = sorted(GAME.format_text(c) for c in GAME.legal_commands(s, 0))
    assert len(texts) == 5 and texts[0] == "pass"
    s3 = start({}, SEATS3)
    assert len(list(GAME.legal_commands(s3, 0))) == 6 + 1
    assert list(GAME.legal_commands(s3, 1)) == []


def test_perft_hand_built_turn() -> None:
    s = board(tiles={"a4": ("summon", "humans", 0)})
    s = puts(s, 0, "knight", "d4")
    s = puts(s, 1, "fighter", "e4")
    s = energy(s, 0, 2, 0)
    cmds = [GAME.format_text(c) for c in GAME.legal_commands(s, 0)]
    kinds = {t.split()[0] for t in cmds}
    assert kinds == {"summon", "move", "defeat", "pass"}
    assert sum(1 for t in cmds if t.startswith("summon")) == 2  # knight, light bringer on a4
    assert sum(1 for t in cmds if t.startswith("defeat")) == 2  # the Fighter (cost 1), own Knight (1)
    assert len(cmds) == 2 + 2 + 1 + sum(1 for t in cmds if t.startswith("move"))
    # 18 tiles within 2 of d4, less e4 (the Fighter) and f4 (only reachable through e4)
    assert sum(1 for t in cmds if t.startswith("move")) == 16


def test_view_is_json_and_power_cards_face_down_show_numbers() -> None:
    s = energy(start({}), 0, 1, 0, level=5)
    mine = GAME.view(s, 0)
    theirs = GAME.view(s, 1)
    public = GAME.view(s, None)
    orjson.dumps(mine)
    assert [c["power"] for c in mine["players"][0]["powers"]] == ["rally", "pilgrimage", "sacred", "ascent"]
    assert [c["power"] for c in theirs["players"][0]["powers"]] == ["rally", None, None, None]
    assert [c["number"] for c in public["players"][0]["powers"]] == [5, 10, 15, 20]
    cells = public["board"]["cells"]
    assert public["board"]["kind"] == "hex" and len(cells) == 37
    assert {"id", "x", "y", "label", "fill", "pieces"} <= set(cells[0])
    assert GAME.view(GAME.initial_state(), None)["board"]["cells"] == []


def test_events_are_public() -> None:
    s = start({})
    c = next(iter(GAME.legal_commands(s, 0)))
    for e in GAME.decide(s, c, rng()):
        assert GAME.redact(e, 1) == e and GAME.redact(e, None) == e
    assert GAME.redact_command(c, None) == c


def test_perft_seeded_positions() -> None:
    """Exact legal-command counts at fixed points of a seeded game (regression guard)."""
    from tests.support.randomplay import play_random

    rec = play_random(GAME, {"factions": ["humans", "goblins"], "map": "premade"}, ["a", "b"], 35,
                      replay_checks=0, check_audit=False)
    counts = []
    for k in (18, 37, 38, 64):
        seq, cmd = rec.steps[k]
        s = fold(GAME, rec.events[:seq])
        assert cmd.seat is not None
        counts.append(len(list(GAME.legal_commands(s, cmd.seat))))
    assert counts == PERFT_35
