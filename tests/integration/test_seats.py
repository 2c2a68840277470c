"""Seats that belong to players: claiming with the seat's token, playing by the session, and
the player's games, waiting ones first (real Redis, real HTTP, real processes)."""

from __future__ import annotations

import uuid

import httpx
import pytest
import redis

from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, new_race
from tests.integration.test_players import new_player, same_site, sign_in

pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def claim(c: httpx.Client, gid: str, token: str, **headers: str) -> httpx.Response:
    return c.post(f"/v1/games/{gid}/claim", json={"token": token}, headers=headers)


def roll(c: httpx.Client, gid: str, stack: Stack) -> httpx.Response:
    """A command by the cookie alone (no seat token)."""
    return c.post(f"/v1/games/{gid}/commands?wait=1", json={"id": str(uuid.uuid4()), "type": "race.roll", "args": {}},
                  headers=same_site(stack))


def test_a_seat_is_claimed_once_and_the_session_plays_it(stack: Stack, redis_url: str) -> None:
    with stack.client() as anon, stack.client() as ann, stack.client() as bob:
        ann_made, bob_made = new_player(anon, "ann"), new_player(anon, "bob")
        ann_key, bob_key = ann_made["key"], bob_made["key"]
        sign_in(ann, ann_key)
        sign_in(bob, bob_key)
        gid, tokens, admin = new_race(anon)
        log = redis.Redis.from_url(redis_url)
        events_before = anon.get(f"/v1/games/{gid}/events").json()["events"]

        assert ann.get(f"/v1/games/{gid}/seat").json()["error"]["code"] == "not_seated"
        first = claim(ann, gid, tokens[0], **same_site(stack))
        assert first.status_code == 200 and first.json() == {"game": gid, "role": "seat", "seat": 0, "claimed": True}
        again = claim(ann, gid, tokens[0], **same_site(stack))
        assert again.status_code == 200 and again.json()["claimed"] is False
        taken = claim(bob, gid, tokens[0], **same_site(stack))
        assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_claimed"
        # One seat of a game per player.
        second = claim(ann, gid, tokens[1], **same_site(stack))
        assert second.status_code == 409 and second.json()["error"]["code"] == "already_seated"
        # A player key as Bearer claims too; the admin token is no seat's.
        assert claim(anon, gid, admin, **bearer(bob_key)).json()["error"]["code"] == "bad_seat_token"
        assert claim(anon, gid, tokens[1], **bearer(bob_key)).status_code == 200
        assert ann.get(f"/v1/games/{gid}/seat").json() == {"game": gid, "role": "seat", "seat": 0}
        assert bob.get(f"/v1/games/{gid}/seat").json() == {"game": gid, "role": "seat", "seat": 1}
        # Claims are account data, not game facts: the log is as it was, and names no player.
        assert anon.get(f"/v1/games/{gid}/events").json()["events"] == events_before
        stream = [k for k in log.scan_iter(match=f"*{gid}:events")]
        raw = b"".join(v for k in stream for _, fields in log.xrange(k) for v in fields.values())
        assert stream and ann_made["id"].encode() not in raw and bob_made["id"].encode() not in raw

        # The cookie reads the seat's view and legal commands and plays it; the seat token still wins.
        assert ann.get(f"/v1/games/{gid}/view").json() == anon.get(f"/v1/games/{gid}/view",
                                                                     headers=bearer(tokens[0])).json()
        assert [c["type"] for c in ann.get(f"/v1/games/{gid}/legal").json()["commands"]] == ["race.roll"]
        assert bob.get(f"/v1/games/{gid}/legal").json()["commands"] == []
        r = roll(ann, gid, stack)
        assert r.status_code == 200, r.text
        assert command(bob, gid, tokens[0]).json()["error"]["code"] == "not_your_turn"  # token: seat 0's
        assert command(anon, gid, bob_key).status_code == 200  # bob's key plays bob's seat, 1
        # A spectator's cookie, and no cookie, see the public board.
        assert anon.get(f"/v1/games/{gid}/legal").status_code == 401


def test_a_revoked_session_and_another_site_are_refused(stack: Stack) -> None:
    with stack.client() as anon, stack.client() as ann, stack.client() as eve:
        key = new_player(anon, "ann")["key"]
        sid = sign_in(ann, key).json()["session"]
        gid, tokens, _ = new_race(anon)
        for headers in ({"Origin": "https://evil.example"}, {}):
            r = claim(ann, gid, tokens[0], **headers)
            assert r.status_code == 403 and r.json()["error"]["code"] == "cross_origin"
        assert ann.get(f"/v1/games/{gid}/seat").status_code == 404  # nothing claimed
        assert claim(ann, gid, tokens[0], **same_site(stack)).status_code == 200
        r = ann.post(f"/v1/games/{gid}/commands?wait=1", json={"id": "x1", "type": "race.roll", "args": {}},
                     headers={"Origin": "https://evil.example"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "cross_origin"
        assert anon.get(f"/v1/games/{gid}/commands/x1", headers=bearer(tokens[0])).status_code == 404  # not queued
        # A signed-in player holding no seat: no legal commands, no commands.
        sign_in(eve, new_player(anon, "eve")["key"])
        assert eve.get(f"/v1/games/{gid}/legal").json()["error"]["code"] == "not_seated"
        assert roll(eve, gid, stack).json()["error"]["code"] == "not_seated"

        assert anon.delete(f"/v1/me/sessions/{sid}", headers=bearer(key)).status_code == 204
        for r in (ann.get(f"/v1/games/{gid}/legal"), ann.get(f"/v1/games/{gid}/seat"), roll(ann, gid, stack)):
            assert r.status_code == 401 and r.json()["error"]["code"] == "bad_session", r.text
        # The ended session's browser still watches, as a spectator.
        assert ann.get(f"/v1/games/{gid}/view").json() == anon.get(f"/v1/games/{gid}/view").json()


def test_my_games_put_the_ones_waiting_on_me_first(stack: Stack) -> None:
    with stack.client() as anon, stack.client() as ann:
        ann_key, bob_key = new_player(anon, "ann")["key"], new_player(anon, "bob")["key"]
        sign_in(ann, ann_key)
        mine, mine_tokens, _ = new_race(anon)  # ann seat 0: her turn
        theirs, their_tokens, _ = new_race(anon)  # ann seat 1: bob's turn first
        for gid, tokens, seat in ((mine, mine_tokens, 0), (theirs, their_tokens, 1)):
            assert claim(anon, gid, tokens[seat], **bearer(ann_key)).status_code == 200
            assert claim(anon, gid, tokens[1 - seat], **bearer(bob_key)).status_code == 200

        def listed() -> list[tuple[str, bool]]:
            return [(g["id"], g["your_turn"]) for g in ann.get("/v1/me/games").json()["games"]]

        wait_for(lambda: listed()[0] == (mine, True))
        row = ann.get("/v1/me/games").json()["games"][0]
        assert row["opponents"] == ["p1"] and row["turn"] == ["p0"] and row["status"] == "active"
        assert row["game"] == "race" and row["seat"] == 0 and row["since"]
        assert row["asked"] == "roll the die"  # what the game asks, in its words
        assert command(anon, mine, mine_tokens[0]).status_code == 200
        assert command(anon, theirs, their_tokens[0]).status_code == 200  # bob moves: ann's turn there
        wait_for(lambda: listed() == [(theirs, True), (mine, False)])
        assert [g["id"] for g in ann.get("/v1/me/games?waiting=1").json()["games"]] == [theirs]
        assert ann.get("/v1/me/games").json()["waiting"] == 1
        assert anon.get("/v1/me/games").status_code == 401
