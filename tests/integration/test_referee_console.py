"""The referee's console, whoever the referee is (issue #37 item 2), through the real API, worker
and projector: a player named as a game's referee is told so by `GET .../seat` (the board page
then opens as the referee's), reads the replay with everything shown, and finds the game in
`/v1/me/games`, a dispute waiting on them first and counted; a game made as a table of invited
players lists its player-referee the same way; anyone else is still no one there."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, player

# One stack for the module's tests, each on games and players of its own.
pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def _refereed_race(c: httpx.Client, referee: str) -> tuple[str, list[str]]:
    r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "options": {"target": 1000},
                                  "referee": {"player": referee}})
    assert r.status_code == 201, r.text
    return r.json()["id"], [s["token"] for s in r.json()["seats"]]


def _me(c: httpx.Client, key: str, waiting: bool = False) -> dict[str, object]:
    r = c.get("/v1/me/games" + ("?waiting=1" if waiting else ""), headers=bearer(key))
    assert r.status_code == 200, r.text
    out: dict[str, object] = r.json()
    return out


def test_a_player_referee_is_told_their_role_and_reads_everything(stack: Stack) -> None:
    with stack.client() as c:
        rita, otto = player(c, "rita-c"), player(c, "otto-c")
        gid, _ = _refereed_race(c, rita["id"])
        r = c.get(f"/v1/games/{gid}/seat", headers=bearer(rita["key"]))
        assert r.status_code == 200 and r.json() == {"game": gid, "role": "referee", "seat": None}, r.text
        # Another player is no one here, as before.
        r = c.get(f"/v1/games/{gid}/seat", headers=bearer(otto["key"]))
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_seated", r.text
        # The replay with everything shown opens for the referee, and for nobody else mid-game.
        r = c.get(f"/v1/games/{gid}/replay?at=1&full=1", headers=bearer(rita["key"]))
        assert r.status_code == 200 and r.json()["viewer"]["may_full"] is True, r.text
        r = c.get(f"/v1/games/{gid}/replay?at=1&full=1", headers=bearer(otto["key"]))
        assert r.status_code == 401, r.text


def test_me_lists_the_games_a_player_referees_a_dispute_waiting_first(stack: Stack) -> None:
    with stack.client() as c:
        rex = player(c, "rex-c")
        quiet, _ = _refereed_race(c, rex["id"])
        gid, tokens = _refereed_race(c, rex["id"])
        mine = _me(c, rex["key"])
        rows = {g["id"]: g for g in mine["games"]}  # type: ignore[attr-defined]
        assert set(rows) == {quiet, gid} and mine["waiting"] == 0
        row = rows[gid]
        assert (row["role"], row["seat"], row["name"], row["opponents"]) == ("referee", None, "rex-c", ["ann", "bob"])
        assert row["your_turn"] is False and row["dispute"] is None and row["waiting_on_you"] is False
        # A seat moves, the other disputes it: the game now waits on its referee.
        summary = c.get(f"/v1/games/{gid}").json()
        mover = summary["prompt"]["seats"][0]
        moved = command(c, gid, tokens[mover])
        assert moved.json()["status"] == "accepted", moved.text
        on = moved.json()["seq"][0]
        r = command(c, gid, tokens[1 - mover], "boardlog.dispute", {"seq": on, "note": "the die fell off the table"})
        assert r.json()["status"] == "accepted", r.text
        wait_for(lambda: c.get(f"/v1/games/{gid}?min_seq={r.json()['seq'][-1]}").status_code == 200)
        mine = _me(c, rex["key"])
        first = mine["games"][0]  # type: ignore[index]
        assert first["id"] == gid and mine["waiting"] == 1
        assert first["dispute"] == {"seq": r.json()["seq"][-1], "on": on, "by": ["ann", "bob"][1 - mover],
                                    "note": "the die fell off the table"}
        assert first["waiting_on_you"] is True
        waiting = _me(c, rex["key"], waiting=True)
        assert [g["id"] for g in waiting["games"]] == [gid] and waiting["waiting"] == 1  # type: ignore[attr-defined]


def test_a_table_of_invited_players_lists_its_player_referee(stack: Stack) -> None:
    with stack.client() as c:
        ann, bob, rex = player(c, "ann-c"), player(c, "bob-c"), player(c, "rex-c2")
        r = c.post("/v1/games", headers=bearer(ann["key"]),
                   json={"game": "race", "seats": [{"player": ann["id"]}, {"player": bob["id"]}],
                         "options": {"target": 1000}, "referee": {"player": rex["id"]}})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        wait_for(lambda: any(g["id"] == gid for g in _me(c, rex["key"])["games"]))  # type: ignore[attr-defined]
        row = next(g for g in _me(c, rex["key"])["games"] if g["id"] == gid)  # type: ignore[attr-defined]
        assert row["role"] == "referee" and row["seat"] is None
        assert c.get(f"/v1/games/{gid}/seat", headers=bearer(rex["key"])).json()["role"] == "referee"
        # The seats' own rows are as they were.
        seat_row = next(g for g in _me(c, ann["key"])["games"] if g["id"] == gid)  # type: ignore[attr-defined]
        assert seat_row["role"] == "seat" and seat_row["seat"] == 0
