"""Conduct through the real API, worker and projector: the platform option `takeback` chosen at
creation, a takeback asked and accepted over HTTP (the worker reads the past from the store),
resigning seats answered by the platform, the referee's token settling a dispute where a seat
may not (and a seat cannot pass itself off as the referee), and the summary saying all of it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command

# One stack for the module's tests, each on games of its own.
pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def _create(c: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    r = c.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    wait_for(lambda: c.get(f"/v1/games/{game['id']}").status_code == 200)
    return game


def _summary(c: httpx.Client, gid: str, seq: int) -> dict[str, Any]:
    wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] >= seq)
    out: dict[str, Any] = c.get(f"/v1/games/{gid}").json()
    return out


def _legal_move(c: httpx.Client, gid: str, token: str) -> dict[str, Any]:
    """The seat's first legal command (the seat is the one prompted: the first game's prompt)."""
    legal = c.get(f"/v1/games/{gid}/legal", headers=bearer(token)).json()["commands"]
    assert legal, "no legal command"
    first: dict[str, Any] = legal[0]
    return first


def test_a_bad_takeback_option_is_refused_and_nothing_is_made(stack: Stack) -> None:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "factions", "seats": ["ann", "bob"], "options": {"takeback": "yes"}})
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_options", r.text


def test_takeback_over_http_and_a_resigned_seat_answered_by_the_platform(stack: Stack) -> None:
    with stack.client() as c:
        g = _create(c, {"game": "factions", "seats": ["ann", "bob", "cyd"]})
        gid, tokens = g["id"], [s["token"] for s in g["seats"]]
        summary = _summary(c, gid, 1)
        assert summary["conduct"]["takeback"] is True and summary["conduct"]["proposal"] is None
        seat = summary["prompt"]["seats"][0]
        before = c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[seat])).json()["board"]
        move = _legal_move(c, gid, tokens[seat])
        r = command(c, gid, tokens[seat], move["type"], move["args"])
        assert r.json()["status"] == "accepted", r.text
        r = command(c, gid, tokens[seat], "boardlog.takeback")
        assert r.json()["status"] == "accepted", r.text
        asked = r.json()["seq"][1]
        proposal = _summary(c, gid, asked)["conduct"]["proposal"]
        assert proposal["kind"] == "takeback" and sorted(proposal["waiting"]) == sorted({0, 1, 2} - {seat})
        for other in proposal["waiting"]:
            r = command(c, gid, tokens[other], "boardlog.accept", {"proposal": proposal["seq"]})
            assert r.json()["status"] == "accepted", r.text
        done = _summary(c, gid, r.json()["seq"][1])
        assert done["conduct"]["proposal"] is None and len(done["conduct"]["undone"]) == 1
        after = c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[seat])).json()["board"]
        assert after == before
        types = [e["type"] for e in c.get(f"/v1/games/{gid}/events", headers=bearer(tokens[seat])).json()["events"]]
        assert "boardlog.TakenBack" in types
        # A resigned seat: the platform answers its prompts (ids auto-<seq>-resigned<seat>).
        r = command(c, gid, tokens[1], "boardlog.resign")
        assert r.json()["status"] == "accepted", r.text
        r = command(c, gid, tokens[1], "boardlog.resign")
        assert r.json()["status"] == "rejected" and r.json()["code"] == "resigned", r.text
        for _ in range(30):
            s = c.get(f"/v1/games/{gid}").json()
            if s["status"] != "active":
                break
            moved = False
            for x in (0, 2):
                legal = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[x])).json()
                if legal["commands"]:
                    m = legal["commands"][0]
                    r = command(c, gid, tokens[x], m["type"], m["args"], expect=legal["seq"])
                    assert r.json()["status"] in ("accepted", "conflict"), r.text
                    moved = True
                    break
            if not moved:  # the platform is answering for seat 1: the read models catch up
                wait_for(lambda seq=s["seq"]: c.get(f"/v1/games/{gid}").json()["seq"] > seq)
        events = c.get(f"/v1/games/{gid}/events", headers=bearer(tokens[0])).json()["events"]
        autos = [e for e in events if e["type"] == "boardlog.CommandAccepted" and e["seat"] == 1
                 and str(e["data"]["id"]).startswith("auto-")]
        assert autos and all(str(e["data"]["id"]).endswith("-resigned1") for e in autos)


def test_the_referee_settles_a_dispute_and_a_seat_cannot_pose_as_the_referee(stack: Stack) -> None:
    with stack.client() as c:
        g = _create(c, {"game": "rite", "seats": ["ann", "bob"], "referee": "rex", "options": {"takeback": False}})
        gid, tokens, ref = g["id"], [s["token"] for s in g["seats"]], g["referee"]["token"]
        s = _summary(c, gid, 1)
        assert s["conduct"]["takeback"] is False
        seat = s["prompt"]["seats"][0]
        move = _legal_move(c, gid, tokens[seat])
        r = command(c, gid, tokens[seat], move["type"], move["args"])
        on = r.json()["seq"][0]
        r = command(c, gid, tokens[seat], "boardlog.takeback")
        assert r.json()["code"] == "takeback_off", r.text
        r = command(c, gid, tokens[1 - seat], "boardlog.dispute", {"seq": on, "note": "that tile was not free"})
        assert r.json()["status"] == "accepted", r.text
        assert _summary(c, gid, r.json()["seq"][1])["conduct"]["disputes"][0]["on"] == on
        r = command(c, gid, tokens[seat], "boardlog.resolve", {"verdict": "upheld", "referee": True})
        assert r.json()["code"] == "referee_resolves", r.text
        r = command(c, gid, g["admin_token"], "boardlog.resolve", {"verdict": "upheld"})
        assert r.status_code == 403, r.text
        r = command(c, gid, ref, "boardlog.resolve", {"verdict": "upheld"})
        assert r.json()["status"] == "accepted", r.text
        d = _summary(c, gid, r.json()["seq"][1])["conduct"]["disputes"][0]
        assert d["verdict"] == "upheld"
        r = command(c, gid, tokens[0], "boardlog.resign")
        s = _summary(c, gid, r.json()["seq"][1])
        assert s["status"] == "over" and s["outcome"]["winners"] == [1]
