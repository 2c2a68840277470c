"""Referees, and admins who cannot peek (issue #21 item 3), through the real API, worker and
projector: mid-game, only the referee reads another seat's secrets; the admin token reads what a
spectator reads; every seat is told the game is refereed and by whom."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Stack
from tests.integration.helpers import bearer

# One stack for the module's tests, each on games of its own.
pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def _get(c: httpx.Client, url: str, token: str | None = None, status: int = 200) -> httpx.Response:
    r = c.get(url, headers=bearer(token) if token else {})
    assert r.status_code == status, (url, r.text)
    return r


def _leaves(x: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _leaves(v, (*path, i))
    else:
        yield path, x


def _strings(x: Any) -> set[str]:
    return {v for _, v in _leaves(x) if isinstance(v, str)}


def _all_events(c: httpx.Client, gid: str, token: str | None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    start: int | None = 1
    while start is not None:
        page = _get(c, f"/v1/games/{gid}/events?from={start}&limit=5000", token).json()
        events += page["events"]
        start = page["next"]
    return events


def _play(c: httpx.Client, gid: str, tokens: list[str], moves: int, rnd: random.Random) -> int:
    """`moves` random legal commands, each from a seat the prompt names; the game's seq."""
    seq = _get(c, f"/v1/games/{gid}").json()["seq"]
    for _ in range(moves):
        summary = _get(c, f"/v1/games/{gid}?min_seq={seq}").json()
        if summary["prompt"] is None:
            break
        seat = rnd.choice(summary["prompt"]["seats"])
        legal = _get(c, f"/v1/games/{gid}/legal", tokens[seat]).json()
        if not legal["commands"]:
            break
        cmd = rnd.choice(legal["commands"])
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[seat]),
                   json={"id": str(uuid.uuid4()), "type": cmd["type"], "args": cmd["args"], "expect": legal["seq"]})
        assert r.status_code in (200, 409), r.text
        got = r.json()["seq"]
        seq = max(seq, got[-1] if isinstance(got, list) else got)
    return int(_get(c, f"/v1/games/{gid}?min_seq={seq}").json()["seq"])


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seats=st.integers(2, 4), moves=st.integers(0, 8), seed=st.integers(0, 2**16))
def test_mid_game_only_the_referee_reads_secrets(stack: Stack, seats: int, moves: int, seed: int) -> None:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "dragondale", "seats": [f"p{i}" for i in range(seats)],
                                      "referee": "rita"})
        assert r.status_code == 201, r.text
        made = r.json()
        gid, admin, ref = made["id"], made["admin_token"], made["referee"]["token"]
        tokens = [s["token"] for s in made["seats"]]
        assert made["referee"]["name"] == "rita"
        seq = _play(c, gid, tokens, moves, random.Random(seed))
        summary = _get(c, f"/v1/games/{gid}?min_seq={seq}").json()
        assert summary["status"] == "active"
        # A name alone: the creator was handed the token, and every seat is told so.
        assert summary["refereed"] is True and summary["referee"] == {"name": "rita", "appointed": "creator"}

        raw = _all_events(c, gid, ref)
        assert [e["seq"] for e in raw] == list(range(1, seq + 1))
        secrets = [(e["seq"], e["data"]["secret"]) for e in raw if "secret" in e["data"]]
        assert secrets, "Dragon Dale's set-up holds hidden values"
        public_events = _all_events(c, gid, None)
        public_view = _get(c, f"/v1/games/{gid}/view?min_seq={seq}").json()
        public_moves = _get(c, f"/v1/games/{gid}/moves").json()
        # The hidden values: strings under a secret that nothing public shows.
        known = _strings(public_events) | _strings(public_view) | _strings(public_moves)
        hidden = set().union(*(_strings(s) for _, s in secrets)) - known
        assert hidden

        # The admin: the spectator's log, view, move list and (redacted) export, nothing hidden.
        admin_events = _all_events(c, gid, admin)
        assert admin_events == public_events
        assert _get(c, f"/v1/games/{gid}/view?min_seq={seq}", admin).json() == public_view
        assert _get(c, f"/v1/games/{gid}/view?at={seq}", admin).json()["board"] == public_view["board"]
        assert _get(c, f"/v1/games/{gid}/moves", admin).json() == public_moves
        exported = [orjson.loads(x) for x in _get(c, f"/v1/games/{gid}/export", admin).content.splitlines()]
        assert exported[:-1] == public_events and "redacted" in exported[-1]
        audit = _get(c, f"/v1/games/{gid}/audit").json()  # anonymous, mid-game
        for body in (admin_events, exported, audit,
                     _get(c, f"/v1/games/{gid}/view", admin).json()):
            assert not _strings(body) & hidden
        assert _get(c, f"/v1/games/{gid}/export", status=403).json()["error"]["code"] == "game_not_over"

        # The referee: every event as logged, every seat's board, the full record.
        assert all(any(e["seq"] == s and e["data"].get("secret") == x for e in raw) for s, x in secrets)
        seen = _get(c, f"/v1/games/{gid}/view", ref).json()
        assert seen["referee"] is True and len(seen["seat_boards"]) == seats
        for i, board in enumerate(seen["seat_boards"]):
            assert board == _get(c, f"/v1/games/{gid}/view?min_seq={seq}", tokens[i]).json()["board"]
        record = _get(c, f"/v1/games/{gid}/export", ref).content
        assert hidden <= _strings([orjson.loads(x) for x in record.splitlines()])
        # Each seat is told by the summary, and sees only its own secrets.
        for i, tok in enumerate(tokens):
            assert _get(c, f"/v1/games/{gid}", tok).json()["referee"] == {"name": "rita", "appointed": "creator"}
            mine = [e for e in _all_events(c, gid, tok) if "secret" in e["data"]]
            assert all(e["seat"] == i for e in mine)
        # The referee is no seat: its commands are refused and change nothing.
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(ref),
                   json={"id": str(uuid.uuid4()), "text": "pass"})
        assert r.status_code in (401, 403, 422) and _get(c, f"/v1/games/{gid}").json()["seq"] == seq


def test_a_player_as_referee_reads_signed_in(stack: Stack) -> None:
    with stack.client() as c:
        rita = c.post("/v1/players", json={"name": "rita"}).json()
        other = c.post("/v1/players", json={"name": "otto"}).json()
        r = c.post("/v1/games", json={"game": "dragondale", "seats": ["ann", "bob"], "referee": {"player": rita["id"]}})
        assert r.status_code == 201, r.text
        made = r.json()
        gid = made["id"]
        assert made["referee"] == {"name": "rita", "player": rita["id"], "appointed": "player"}
        assert _get(c, f"/v1/games/{gid}").json()["referee"] == {"name": "rita", "appointed": "player"}
        raw = _all_events(c, gid, rita["key"])
        assert any("secret" in e["data"] for e in raw)
        assert "seat_boards" in _get(c, f"/v1/games/{gid}/view", rita["key"]).json()
        # Another player's key names nobody in this game (refused, as a stranger's token is).
        assert _get(c, f"/v1/games/{gid}/view", other["key"], status=401).json()["error"]["code"] == "bad_token"
        assert "seat_boards" not in _get(c, f"/v1/games/{gid}/view").json()


def test_an_unrefereed_game_says_so_and_bad_referees_are_refused(stack: Stack) -> None:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "dragondale", "seats": ["ann", "bob"]})
        gid = r.json()["id"]
        summary = _get(c, f"/v1/games/{gid}").json()
        assert summary["refereed"] is False and summary["referee"] is None and "referee" not in r.json()
        _get(c, f"/v1/games/{gid}?min_seq={summary['seq']}")  # projected, so in the lobby
        lobby = _get(c, "/v1/games?game=dragondale&limit=500").json()["games"]
        assert any(g["id"] == gid and g["refereed"] is False and g["analysis"] is False for g in lobby)
        for referee, code in ((5, "bad_referee"), ({"name": " "}, "name_empty"), ("ann", "name_taken"),
                              ({"player": "nobody-at-all"}, "unknown_player"), ({"player": 3}, "bad_referee")):
            r = c.post("/v1/games", json={"game": "dragondale", "seats": ["ann", "bob"], "referee": referee})
            assert r.status_code == 422 and r.json()["error"]["code"] == code, (referee, r.text)


def test_a_table_of_players_may_name_a_referee(stack: Stack) -> None:
    with stack.client() as c:
        ann = c.post("/v1/players", json={"name": "ann-t"}).json()
        bob = c.post("/v1/players", json={"name": "bob-t"}).json()
        rex = c.post("/v1/players", json={"name": "rex-t"}).json()
        # Invited seats, a referee player: the game starts at once.
        r = c.post("/v1/games", headers=bearer(ann["key"]),
                   json={"game": "dragondale", "seats": [{"player": "ann-t"}, {"player": "bob-t"}],
                         "referee": {"player": "rex-t"}})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        assert r.json()["referee"] == {"name": "rex-t", "player": rex["id"]}
        assert _get(c, f"/v1/games/{gid}").json()["referee"] == {"name": "rex-t"}
        assert any("secret" in e["data"] for e in _all_events(c, gid, rex["key"]))
        assert not any("secret" in e["data"] and e["seat"] != 0 for e in _all_events(c, gid, ann["key"]))
        # An open seat and a referee token: the referee reads once the last seat is taken.
        r = c.post("/v1/games", headers=bearer(ann["key"]),
                   json={"game": "dragondale", "seats": [{"player": "ann-t"}, {"open": True}], "referee": "ref"})
        assert r.status_code == 201, r.text
        made = r.json()
        tid, token = made["id"], made["referee"]["token"]
        assert _get(c, f"/v1/tables/{tid}").json()["referee"] == {"name": "ref"}
        assert c.post(f"/v1/tables/{tid}/join", headers=bearer(bob["key"]), json={}).status_code == 200
        assert _get(c, f"/v1/games/{tid}").json()["refereed"] is True
        assert "seat_boards" in _get(c, f"/v1/games/{tid}/view", token).json()
        # A referee player may not take an open seat of the table they referee.
        r = c.post("/v1/games", headers=bearer(ann["key"]),
                   json={"game": "dragondale", "seats": [{"player": "ann-t"}, {"open": True}],
                         "referee": {"player": "rex-t"}})
        open_id = r.json()["id"]
        r = c.post(f"/v1/tables/{open_id}/join", headers=bearer(rex["key"]), json={})
        assert r.status_code == 409 and "referee" in r.json()["error"]["message"], r.text
        # The referee is not a seat: not a player invited to one, nor a seat's name.
        for referee, code in (({"player": "bob-t"}, "bad_referee"), ("ann-t", "name_taken")):
            r = c.post("/v1/games", headers=bearer(ann["key"]),
                       json={"game": "dragondale", "seats": [{"player": "ann-t"}, {"player": "bob-t"}],
                             "referee": referee})
            assert r.status_code == 422 and r.json()["error"]["code"] == code, r.text
