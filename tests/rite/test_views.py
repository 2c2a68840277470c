"""Views: JSON-able boards, and power cards face down showing only their numbers to the other seats."""

from __future__ import annotations

import orjson

from rules.rite import GAME

from .helpers import energy, started


def test_view_is_json_and_power_cards_face_down_show_numbers() -> None:
    s = energy(started({}), 0, 1, 0, level=5)
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
