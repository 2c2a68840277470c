"""What-if forks over HTTP (issue #21 item 6): the fork starts from the origin's position at the
seq, for the forker, and the origin's log is untouched; analysis is marked in the summary and the
lobby; forks that would reveal hidden values, or fall inside a command, are refused."""

from __future__ import annotations

import random

import pytest

from tests.conftest import Stack
from tests.integration.helpers import bearer, command, new_race
from tests.integration.test_referees import _all_events, _get, _play

# One stack for the module's tests, each on games of its own.
pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def test_a_fork_starts_from_the_origins_view_at_the_seq_and_leaves_the_origin_alone(stack: Stack) -> None:
    with stack.client() as c:
        made = c.post("/v1/games", json={"game": "factions", "seats": ["ann", "bob"]}).json()
        gid, tokens = made["id"], [s["token"] for s in made["seats"]]
        head = _play(c, gid, tokens, 12, random.Random(2))
        before = _all_events(c, gid, tokens[0])
        ends = [e["seq"] - 1 for e in before[1:] if e["type"] == "boardlog.CommandAccepted"]
        n = ends[len(ends) // 2]
        r = c.post(f"/v1/games/{gid}/forks", json={"at": n}, headers=bearer(tokens[0]))
        assert r.status_code == 201, r.text
        fork = r.json()
        fid = fork["id"]
        assert fid != gid and fork["analysis"] is True
        assert fork["fork"] == {"game": gid, "seq": n, "head": before[n - 1]["hash"]}
        assert [s["name"] for s in fork["seats"]] == ["ann", "bob"] and all(s["token"] for s in fork["seats"])
        mine = [s["token"] for s in fork["seats"]]
        start = _get(c, f"/v1/games/{fid}/view?min_seq=2", mine[0]).json()
        then = _get(c, f"/v1/games/{gid}/view?at={n}", tokens[0]).json()
        assert start["board"] == then["board"] and start["prompt"] == then["prompt"]
        assert start["prompt_text"] == then["prompt_text"] and start["seq"] == 2
        summary = _get(c, f"/v1/games/{fid}?min_seq=2").json()
        assert summary["analysis"] is True and summary["fork"] == fork["fork"] and summary["status"] == "active"
        lobby = _get(c, "/v1/games?game=factions&limit=500").json()["games"]
        assert any(g["id"] == fid and g["analysis"] for g in lobby)
        assert any(g["id"] == gid and not g["analysis"] for g in lobby)
        # Played like any game: its own commands, its own seed.
        seq = _play(c, fid, mine, 3, random.Random(3))
        assert seq > 2
        first = _get(c, f"/v1/games/{fid}/events?to=2").json()["events"]
        assert [e["type"] for e in first] == ["boardlog.GameCreated", "boardlog.ForkedFrom"]
        assert first[0]["data"]["fork"] == fork["fork"] and first[0]["data"]["commitment"] != before[0]["data"]["commitment"]
        # The origin: not one byte changed, no event added.
        assert _all_events(c, gid, tokens[0]) == before
        assert _get(c, f"/v1/games/{gid}?min_seq={head}").json()["seq"] == head
        # The fork's record audits on its own (mid-game: the chain).
        assert _get(c, f"/v1/games/{fid}/audit").json()["verdict"] != "failed"


def test_forks_that_would_reveal_or_fall_inside_a_command_are_refused(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2, target=1000)
        assert command(c, gid, tokens[0]).status_code == 200
        r = c.post(f"/v1/games/{gid}/forks", json={"at": 2})
        assert r.status_code == 409 and r.json()["error"]["code"] == "fork_would_reveal", r.text
        r = c.post(f"/v1/games/{gid}/forks", json={"at": 3}, headers=bearer(tokens[0]))
        assert r.status_code == 409 and r.json()["error"]["code"] == "inside_a_command", r.text
        for body, status, code in (({"at": 0}, 422, "bad_seq"), ({"at": 99}, 422, "bad_seq"),
                                   ({"at": "x"}, 422, "bad_seq"), ({"at": 2, "x": 1}, 422, "bad_request")):
            r = c.post(f"/v1/games/{gid}/forks", json=body)
            assert (r.status_code, r.json()["error"]["code"]) == (status, code), (body, r.text)
        assert c.post("/v1/games/p01-000000000000/forks", json={}).status_code == 404
        assert c.post(f"/v1/games/{gid}/forks", json={}, headers=bearer("nope")).status_code == 401
        assert [e["seq"] for e in _all_events(c, gid, None)] == [1, 2, 3, 4]  # nothing written (the store's log)


def test_a_fork_may_invite_players_to_its_seats(stack: Stack) -> None:
    with stack.client() as c:
        bob = c.post("/v1/players", json={"name": "bobby"}).json()
        made = c.post("/v1/games", json={"game": "factions", "seats": ["ann", "bob"]}).json()
        gid, tokens = made["id"], [s["token"] for s in made["seats"]]
        for seats, code in (([None], "bad_seats"), ([None, {"player": "no-such-player"}], "unknown_player"),
                            ([None, {"name": "x"}], "bad_seats"),
                            ([{"player": bob["id"]}, {"player": "bobby"}], "player_twice")):
            r = c.post(f"/v1/games/{gid}/forks", json={"seats": seats})
            assert (r.status_code, r.json()["error"]["code"]) == (422, code), (seats, r.text)
        r = c.post(f"/v1/games/{gid}/forks", json={"seats": [None, {"player": "bobby"}]}, headers=bearer(tokens[0]))
        assert r.status_code == 201, r.text
        fork = r.json()
        assert "token" in fork["seats"][0] and fork["seats"][1] == {"seat": 1, "name": "bob", "player": "bobby"}
        fid = fork["id"]
        assert _get(c, f"/v1/games/{fid}/seat", bob["key"]).json()["seat"] == 1
        assert _get(c, f"/v1/games/{fid}/view?min_seq=2", bob["key"]).json()["seat"] == 1
        mine = _get(c, "/v1/me/games", bob["key"]).json()["games"]
        assert [(g["id"], g["seat"], g["analysis"], g["refereed"]) for g in mine] == [(fid, 1, True, False)]
