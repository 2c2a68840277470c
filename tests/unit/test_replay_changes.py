"""What a replay step changed (projections/changes.py), the board with everything shown, and the
noting Rng that re-derives a step's draws (projections/draws.py): from hand-written views."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from projections.changes import board_changes, merged_view, score_changes
from projections.draws import NotingRng, noted_in_words
from rules.core import Rng


def view(cells: dict[str, list[tuple[str, int | None]]], players: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    board: dict[str, Any] = {"board": {"kind": "hex", "cells": [
        {"id": cid, "pieces": [{"label": label, "owner": owner} for label, owner in pieces]} for cid, pieces in cells.items()]}}
    if players is not None:
        board["players"] = players
    return {"board": board}


def test_a_unit_that_leaves_one_cell_for_another_is_a_move() -> None:
    before = view({"a5": [("knight", 0)], "d2": [], "c3": [("rock", None)]})
    after = view({"a5": [], "d2": [("knight", 0)], "c3": [("rock", None)]})
    ch = board_changes(before, after, ["a5", "d2"])
    assert ch["moved"] == [{"label": "knight", "owner": 0, "from": "a5", "to": "d2"}]
    assert ch["added"] == ch["removed"] == ch["turned"] == []
    assert ch["cells"] == ["a5", "d2"]


def test_the_touched_cells_pair_a_move_first() -> None:
    """Two knights of one seat, one moves from b1 to b2 while nothing else changes: never read as
    the other knight (a1) moving."""
    before = view({"a1": [("knight", 0)], "b1": [("knight", 0)], "b2": []})
    after = view({"a1": [("knight", 0)], "b1": [], "b2": [("knight", 0)]})
    assert board_changes(before, after, ["b1", "b2"])["moved"] == [{"label": "knight", "owner": 0, "from": "b1", "to": "b2"}]


def test_a_piece_gone_is_removed_and_a_new_one_added() -> None:
    before = view({"e3": [("warrior", 1)], "c3": []})
    after = view({"e3": [], "c3": [("rock", None), ("knight", 0)]})
    ch = board_changes(before, after)
    assert ch["removed"] == [{"label": "warrior", "owner": 1, "cell": "e3"}]
    assert sorted(a["label"] for a in ch["added"]) == ["knight", "rock"]
    assert ch["moved"] == []


def test_a_hidden_unit_revealed_or_flipped_in_place_is_turned_over() -> None:
    before = view({"t1": [("vikings:hidden", 0)], "t2": [("knight", 0)]})
    after = view({"t1": [("vikings:warrior", 0)], "t2": [("knight", 2)]})
    ch = board_changes(before, after)
    assert {(t["cell"], t["from"]["label"], t["to"]["label"], t["to"]["owner"]) for t in ch["turned"]} == {
        ("t1", "vikings:hidden", "vikings:warrior", 0), ("t2", "knight", "knight", 2)}
    assert ch["added"] == ch["removed"] == []


def test_the_first_step_has_no_board_before_it() -> None:
    ch = board_changes(None, view({"a1": [("knight", 0)]}))
    assert ch["added"] == [{"label": "knight", "owner": 0, "cell": "a1"}]


def test_score_changes_are_each_seats_numbers_that_moved() -> None:
    before = view({}, [{"seat": 0, "round_energy": 2, "vp": 0, "passed": False}, {"seat": 1, "round_energy": 3, "vp": 1}])
    after = view({}, [{"seat": 0, "round_energy": 1, "vp": 0, "passed": True}, {"seat": 1, "round_energy": 3, "vp": 2}])
    assert score_changes(before, after) == [
        {"seat": 0, "what": "round energy", "before": 2, "after": 1},
        {"seat": 1, "what": "vp", "before": 1, "after": 2},
    ]


def test_everything_shown_takes_each_seats_pieces_and_row_as_their_owner_sees_them() -> None:
    public = {"board": {"cells": [{"id": "t1", "pieces": [{"label": "vikings:hidden", "owner": 0},
                                                          {"label": "celts:hidden", "owner": 1}, {"label": "Dragon", "owner": None}]}]},
              "tribes": [{"seat": 0, "hand_count": 2}, {"seat": 1, "hand_count": 1}], "turn": 1}
    seat0 = {"board": {"cells": [{"id": "t1", "pieces": [{"label": "vikings:warrior", "owner": 0},
                                                         {"label": "celts:hidden", "owner": 1}, {"label": "Dragon", "owner": None}]}]},
             "tribes": [{"seat": 0, "hand_count": 2, "hand": ["c1", "c2"]}, {"seat": 1, "hand_count": 1}], "turn": 1}
    seat1 = {"board": {"cells": [{"id": "t1", "pieces": [{"label": "vikings:hidden", "owner": 0},
                                                         {"label": "celts:druid", "owner": 1}, {"label": "Dragon", "owner": None}]}]},
             "tribes": [{"seat": 0, "hand_count": 2}, {"seat": 1, "hand_count": 1, "hand": ["c9"]}], "turn": 1}
    full = merged_view(public, [seat0, seat1])
    assert [p["label"] for p in full["board"]["cells"][0]["pieces"]] == ["vikings:warrior", "celts:druid", "Dragon"]
    assert [t.get("hand") for t in full["tribes"]] == [["c1", "c2"], ["c9"]]
    assert full["turn"] == 1


@settings(max_examples=40, deadline=None)
@given(seed=st.binary(min_size=1, max_size=8), start=st.integers(0, 50),
       calls=st.lists(st.tuples(st.sampled_from(["randint", "below", "choice", "weighted", "shuffled"]), st.integers(1, 9)),
                      min_size=1, max_size=6))
def test_the_noting_rng_draws_exactly_what_the_rng_draws(seed: bytes, start: int, calls: list[tuple[str, int]]) -> None:
    """So that a step run again with it gives the logged events, and its notes index each draw."""
    plain, noting = Rng(seed, b"e", "g", start), NotingRng(seed, b"e", "g", start)
    for name, n in calls:
        if name == "randint":
            assert plain.randint(1, n) == noting.randint(1, n)
        elif name == "below":
            assert plain.below(n) == noting.below(n)
        elif name == "choice":
            assert plain.choice(list(range(n))) == noting.choice(list(range(n)))
        elif name == "weighted":
            assert plain.weighted(list(range(1, n + 1))) == noting.weighted(list(range(1, n + 1)))
        else:
            assert plain.shuffled(range(n)) == noting.shuffled(range(n))
    assert plain.draws == noting.draws
    assert len(noting.notes) == len(calls), "one note a call, not one per draw under it"
    assert noting.notes[0]["index"] == start
    for a, b in zip(noting.notes, noting.notes[1:], strict=False):
        assert b["index"] == a["index"] + a["count"]


def test_draws_in_words() -> None:
    rng = NotingRng(b"s", b"", "g", 37)
    rng.randint(1, 6)
    rng.choice(["a", "b", "c", "d", "e"])
    rng.shuffled(range(4))
    texts = [noted_in_words(n) for n in rng.notes]
    assert texts[0].startswith("#37: d6 → ") and texts[1].startswith("#38: one of 5 → number ")
    assert texts[2].startswith("#39") and texts[2].endswith("a shuffle of 4")


def test_a_cell_whose_own_label_changed_is_relabelled() -> None:
    before = {"board": {"board": {"cells": [{"id": "c4", "label": "c4 shr", "pieces": []}, {"id": "s0", "label": "0", "pieces": []}]}}}
    after = {"board": {"board": {"cells": [{"id": "c4", "label": "c4 shr*", "pieces": []}, {"id": "s0", "label": "0", "pieces": []}]}}}
    ch = board_changes(before, after)
    assert ch["relabelled"] == [{"cell": "c4", "from": "c4 shr", "to": "c4 shr*"}] and ch["cells"] == ["c4"]


def test_a_tile_laid_under_cells_is_a_terrain_change() -> None:
    # Factions' set-up: a Terrain Tile covers four spaces; the cells keep their labels.
    def cell(cid: str, terrain: str) -> dict[str, object]:
        return {"id": cid, "label": cid, "terrain": terrain, "pieces": []}

    before = {"board": {"board": {"cells": [cell("a1", ""), cell("b1", ""), cell("c1", "W")]}}}
    after = {"board": {"board": {"cells": [cell("a1", "P"), cell("b1", "I"), cell("c1", "W")]}}}
    ch = board_changes(before, after)
    assert ch["terrain"] == [{"cell": "a1", "from": "", "to": "P"}, {"cell": "b1", "from": "", "to": "I"}]
    assert ch["relabelled"] == [] and ch["cells"] == ["a1", "b1"]


def test_cells_without_terrain_have_no_terrain_changes() -> None:
    before = {"board": {"board": {"cells": [{"id": "c4", "label": "c4", "pieces": []}]}}}
    after = {"board": {"board": {"cells": [{"id": "c4", "label": "c4 shr", "pieces": []}]}}}
    assert board_changes(before, after)["terrain"] == []
