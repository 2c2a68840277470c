"""Set-up as prompts: advantage roll, tiles, Resource Centers, set-aside and the Vanguard draft."""

from __future__ import annotations

import pytest

from rules.core import Event, InvalidCommand, Rng, SeatInfo, fold
from rules.factions import GAME
from rules.factions.board import camp_spots, parse_space, space_name
from rules.factions.content import FACTIONS
from rules.factions.state import State
from tests.factions.helpers import FixedRng, refusal, run, texts


def _new(n: int = 2, seed: bytes = b"s", **opts: object) -> State:
    seats = [SeatInfo(i, f"p{i}") for i in range(n)]
    return fold(GAME, GAME.setup(dict(opts), seats, Rng(seed)))


def _place_tiles(s: State) -> State:
    while s.phase == "tiles":
        s, _ = run(s, texts(s, s.ps[0])[-1])
    return s


def test_advantage_roll_winner_chooses() -> None:
    s = _new()
    assert s.pk == "advantage" and s.ps == (s.ranking[0],)
    assert sorted(texts(s, s.ps[0])) == ["choose resource", "choose terrain"]


def test_terrain_advantage_places_first_five_against_four() -> None:
    s = _new()
    winner = s.ps[0]
    s, _ = run(s, "choose resource")
    assert s.tile_first == 1 - winner and s.center_seat == winner and s.ps == (1 - winner,)
    s = _place_tiles(s)
    owners = [t[0] for t in s.tiles if t is not None]
    assert owners.count(s.tile_first) == 5 and owners.count(s.center_seat) == 4


def test_no_water_on_base_camp_spots_and_rotation() -> None:
    s = _new()
    s, _ = run(s, "choose terrain")
    opts = texts(s, s.ps[0])
    assert any(t.endswith(" 180") for t in opts)
    camps = camp_spots(s.layout)
    for t in opts:
        _, num, spot, _ = t.split()
        pattern = FACTIONS[s.factions[s.ps[0]]].tiles[int(num) - 1]
        assert not (int(spot) in camps and "W" in pattern)
    assert 2 in camps and "W" in FACTIONS[s.factions[s.ps[0]]].tiles[4]
    assert refusal(s, "tile 5 2 0", s.ps[0]) == "illegal_tile"  # tile 5 has water


def test_resource_centers_diagonal_then_rows_with_edges() -> None:
    s = _place_tiles(run(_new(), "choose terrain")[0])
    p2 = s.center_seat
    assert s.pk == "center" and s.ps == (p2,)
    assert sorted(texts(s, p2)) == ["center gold c3", "center gold c4", "center gold d3", "center gold d4"]
    s, _ = run(s, "center gold c3")
    assert [(space_name(p, 6), k) for p, k, _ in s.centers] == [("c3", "gold"), ("d4", "mana")]
    assert len(texts(s, p2)) == 8
    s, _ = run(s, "center mana c1")
    assert [(space_name(p, 6), k) for p, k, _ in s.centers][2:] == [("c1", "mana"), ("f1", "gold")]
    assert sorted(texts(s, p2)) == ["center gold c5", "center gold c6", "center gold d5", "center gold d6"]
    s, _ = run(s, "center gold d6")
    assert [(space_name(p, 6), k) for p, k, _ in s.centers][4:] == [("d6", "gold"), ("a6", "mana")]
    assert s.phase == "aside"


def test_four_center_reading_option() -> None:
    s = _place_tiles(run(_new(resource_centers=4), "choose terrain")[0])
    s, _ = run(s, "center gold c3", "center mana c1", "center gold d6")
    assert len(s.centers) == 4 and s.phase == "aside"


def test_vanguard_printed_example_and_five_gold_minimum() -> None:
    s = _place_tiles(run(_new(factions=["zyan", "zermano"]), "choose terrain")[0])
    s, _ = run(s, *(texts(s, s.center_seat)[0] for _ in range(1)))
    while s.phase == "centers":
        s, _ = run(s, texts(s, s.ps[0])[0])
    p1, p2 = s.order
    s, _ = run(s, "aside SH", "aside AO", "aside SO", seat=p1)
    s, _ = run(s, "aside SH", "aside AO", "aside SO", seat=p2)
    assert s.phase == "draft" and s.ps == (p1,)
    s, _ = run(s, "recruit MI", seat=p1)
    assert "done" not in texts(s, p1)  # at least 5 gold must be spent
    assert refusal(s, "done", p1) == "vanguard_too_small"
    s, _ = run(s, "recruit EG", "recruit RS", "recruit BO", "done", seat=p1)  # 10 gold: 0 left
    s, _ = run(s, "recruit SC", "recruit DW", "recruit IS", seat=p2)  # 8 gold: 2 left
    assert s.ps == (p2,)
    s, _ = run(s, "done", seat=p2)
    assert s.phase == "play" and s.round == 1
    assert s.gold[p1] == 0 and s.gold[p2] == 2 and s.mana == (10, 10)
    assert all(u.pos == -1 for u in s.units.values())


def test_three_player_advantages_and_order() -> None:
    s = _new(3)
    first, second, third = s.ranking
    assert len(texts(s, first)) == 3
    s, _ = run(s, "choose recruit_last")
    assert s.ps == (second,) and sorted(texts(s, second)) == ["choose resources", "choose tile_first"]
    s, _ = run(s, "choose tile_first")
    assert s.tile_first == second and s.center_seat == third and s.recruit_last == first
    assert s.order[-1] == first and s.tile_seq[:3] == tuple((second + k) % 3 for k in range(3))
    s = _place_tiles(s)
    assert [sum(1 for t in s.tiles if t and t[0] == p) for p in range(3)] == [4, 4, 4]


def test_four_players_highest_roll_takes_all_three() -> None:
    s = _new(4)
    top = s.ranking[0]
    assert s.pk == "tile" and s.ps == (top,)
    assert s.center_seat == top and s.recruit_last == top and s.order[-1] == top
    s = _place_tiles(s)
    assert [sum(1 for t in s.tiles if t and t[0] == p) for p in range(4)] == [4, 4, 4, 4]
    assert s.pk == "center" and s.ps == (top,)
    assert s.layout.target == 40


def _roll_off(rolls: list[int], n: int = 3) -> Event:
    rng = FixedRng(rolls)
    (e,) = GAME.setup({}, [SeatInfo(i, f"p{i}") for i in range(n)], rng)
    assert rng.rolls == [], "every listed roll is drawn, and no other"
    return e


def test_tied_rolls_are_rolled_again_by_the_tied_seats_only() -> None:
    # Seats 0 and 1 tie on 4 above seat 2's 2; only they roll again (3 and 5): seat 1 goes first.
    e = _roll_off([4, 4, 2, 3, 5])
    assert e.data["rolls"] == [[4, 3], [4, 5], [2]] and e.data["ranking"] == [1, 0, 2]
    s = fold(GAME, [e])
    assert s.ranking == (1, 0, 2) and s.pk == "advantage" and s.ps == (1,)  # the roll's winner chooses
    # A tie can repeat: seats 0 and 2 tie on 3 below seat 1's 6, tie again on 3, then roll 1 and 2.
    e = _roll_off([3, 6, 3, 3, 3, 1, 2])
    assert e.data["rolls"] == [[3, 3, 1], [6], [3, 3, 2]] and e.data["ranking"] == [1, 2, 0]
    # Two seats: a tie on 6 is rolled again too.
    e = _roll_off([6, 6, 2, 4], 2)
    assert e.data["rolls"] == [[6, 2], [6, 4]] and fold(GAME, [e]).ps == (1,)


def test_rankings_follow_every_roll() -> None:
    rerolled = 0
    for seed in range(30):
        e = GAME.setup({}, [SeatInfo(i, f"p{i}") for i in range(3)], Rng(bytes([seed])))[0]
        rolls, ranking = e.data["rolls"], e.data["ranking"]
        # A seat rolls again only while it ties another seat on everything rolled so far ...
        for seat, mine in enumerate(rolls):
            for k in range(1, len(mine)):
                assert any(o[:k] == mine[:k] for i, o in enumerate(rolls) if i != seat), (seed, rolls)
        # ... so the rolls end all different, and the ranking is theirs, highest first.
        assert len({tuple(r) for r in rolls}) == 3
        assert ranking == sorted(range(3), key=lambda seat: rolls[seat], reverse=True)
        rerolled += any(len(r) > 1 for r in rolls)
    assert rerolled >= 5  # a third of three-seat games tie: the seeds above do re-roll


def test_bad_options_are_refused() -> None:
    seats = [SeatInfo(0, "a"), SeatInfo(1, "b")]
    for opts in ({"factions": ["zyan"]}, {"factions": ["zyan", "zyan"]}, {"factions": ["zyan", "elves"]},
                 {"resource_centers": 5}, {"colour": "red"}):
        with pytest.raises(InvalidCommand) as e:
            GAME.setup(opts, seats, Rng(b""))
        assert e.value.code == "bad_options"
    with pytest.raises(InvalidCommand):
        GAME.setup({}, [SeatInfo(0, "solo")], Rng(b""))


def test_entry_spaces() -> None:
    s = _new()
    assert [tuple(e) for e in s.layout.entries] == [("c1", "d1"), ("c6", "d6")]
    assert parse_space("c6", 6, 6) == 32


def test_three_player_centers_use_reference_pairs() -> None:
    s = _new(3)
    s, _ = run(s, "choose resources")
    s, _ = run(s, texts(s, s.ps[0])[0])
    s = _place_tiles(s)
    assert s.pk == "center" and sorted(texts(s, s.ps[0])) == ["center gold b2", "center gold b5"]
    s, _ = run(s, "center gold b5")
    assert [(space_name(p, 8), k) for p, k, _ in s.centers] == [("b5", "gold"), ("b2", "mana")]


def test_player_two_sees_player_one_vanguard() -> None:
    s = _place_tiles(run(_new(), "choose terrain")[0])
    while s.phase in ("centers", "aside"):
        s, _ = run(s, texts(s, s.ps[0])[0])
    p1, p2 = s.order
    s, _ = run(s, "recruit EG" if s.factions[p1] == "zyan" else "recruit SC", seat=p1)
    s, _ = run(s, texts(s, p1)[0], "done", seat=p1)
    assert s.ps == (p2,)
    seen = {u["seat"] for u in GAME.view(s, p2)["units"]}
    assert seen == {p1}


def test_three_players_the_first_tile_placer_recruits_first_and_recruit_last_last() -> None:
    """FAQ: "In 3 and 4 player games, the player who placed a Terrain Tile first recruits Units
    first, then the player seated clockwise, and so on"; 3 player setup: "choose to recruit Units
    last during the Reinforcement Phase". Seat 0 places first, seat 1 (clockwise from it) took
    recruit_last: seat 0, then seat 2, then seat 1 (issue #38 item 8; RULINGS.md)."""
    s = GAME.initial_state()
    for e in (Event("factions.GameSetUp", {"factions": ["zyan", "zermano", "baazaria"], "centers": 6,
                                           "rolls": [[6], [5], [4]], "ranking": [0, 1, 2], "rules": 2}),
              Event("factions.AdvantageChosen", {"seat": 0, "advantage": "tile_first"}),
              Event("factions.AdvantageChosen", {"seat": 1, "advantage": "recruit_last"})):
        s = GAME.evolve(s, e)
    assert (s.tile_first, s.center_seat, s.recruit_last) == (0, 2, 1)
    assert s.order == (0, 2, 1)
    # Version 1 read clockwise from the recruit_last seat, so the first placer came second.
    v1 = GAME.evolve(GAME.initial_state(), Event("factions.GameSetUp", {
        "factions": ["zyan", "zermano", "baazaria"], "centers": 6, "rolls": [[6], [5], [4]], "ranking": [0, 1, 2]}))
    for seat, adv in ((0, "tile_first"), (1, "recruit_last")):
        v1 = GAME.evolve(v1, Event("factions.AdvantageChosen", {"seat": seat, "advantage": adv}))
    assert v1.rules == 1 and v1.order == (2, 0, 1)
