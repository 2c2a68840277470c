"""Conduct through the real API, worker and projector: the platform option `takeback` chosen at
creation, a takeback asked and accepted over HTTP (the worker reads the past from the store),
resigning seats answered by the platform, the referee's token settling a dispute where a seat
may not (and a seat cannot pass itself off as the referee), and the summary saying all of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from events.domain.platform.clock import to_iso, to_ms
from tests.conftest import Stack, child_env, running_stack, wait_for
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
        # A resigned seat: the platform answers its prompts (ids bl-auto-<seq>-resigned<seat>-<mac>).
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
                 and str(e["data"]["id"]).startswith("bl-auto-")]
        assert autos and all("-resigned1-" in str(e["data"]["id"]) for e in autos)


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
        assert r.json()["code"] == "bad_reason", r.text  # the referee says why
        r = command(c, gid, ref, "boardlog.resolve", {"verdict": "upheld", "reason": "the tile was free"})
        assert r.json()["status"] == "accepted", r.text
        d = _summary(c, gid, r.json()["seq"][1])["conduct"]["disputes"][0]
        assert d["verdict"] == "upheld"
        r = command(c, gid, tokens[0], "boardlog.resign")
        s = _summary(c, gid, r.json()["seq"][1])
        assert s["status"] == "over" and s["outcome"]["winners"] == [1]


def _refereed_dispute(c: httpx.Client) -> tuple[dict[str, Any], list[str], int, int]:
    """A Rite game refereed by rex: the first prompted seat moves and the other disputes it.
    The game, the seats' tokens, the disputed command's seq and the dispute's."""
    g = _create(c, {"game": "rite", "seats": ["ann", "bob"], "referee": "rex"})
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    seat = _summary(c, gid, 1)["prompt"]["seats"][0]
    move = _legal_move(c, gid, tokens[seat])
    r = command(c, gid, tokens[seat], move["type"], move["args"])
    on = r.json()["seq"][0]
    r = command(c, gid, tokens[seat], "boardlog.dispute", {"seq": on, "note": "mine"})
    assert r.json()["code"] == "own_move" and "takeback" in r.json()["message"], r.text
    r = command(c, gid, tokens[1 - seat], "boardlog.dispute", {"seq": on, "note": "that tile was not free"})
    assert r.json()["status"] == "accepted", r.text
    _summary(c, gid, r.json()["seq"][1])
    return g, tokens, on, r.json()["seq"][1]


def test_the_ruling_view_of_the_open_dispute(stack: Stack) -> None:
    with stack.client() as c:
        g, tokens, on, opened = _refereed_dispute(c)
        gid, ref = g["id"], g["referee"]["token"]
        for token in (None, g["admin_token"]):
            r = c.get(f"/v1/games/{gid}/dispute", headers=bearer(token) if token else {})
            assert r.status_code == 403 and r.json()["error"]["code"] == "referee_or_seat", r.text
        r = c.get(f"/v1/games/{gid}/dispute", headers=bearer(ref))
        assert r.status_code == 200, r.text
        d = r.json()
        assert set(d) == {"dispute", "on", "move", "by", "note", "text", "before_seq", "after_seq", "redraws",
                          "opened_seq"}
        assert (d["dispute"], d["on"], d["move"], d["opened_seq"]) == (opened, on, 1, opened)
        assert d["by"] in ("ann", "bob") and d["note"] == "that tile was not free"
        assert d["before_seq"] == on - 1 and on <= d["after_seq"] < opened - 1
        moves = c.get(f"/v1/games/{gid}/moves", headers=bearer(ref)).json()["entries"]
        assert d["text"] == next(e["text"] for e in moves if e["seq_from"] == on)
        assert isinstance(d["redraws"], list) and all(x.startswith("voiding ") for x in d["redraws"])
        seen = c.get(f"/v1/games/{gid}/dispute", headers=bearer(tokens[0]))
        assert seen.status_code == 200 and seen.json()["on"] == on


def test_a_refereed_dispute_holds_the_game_until_a_ruling_with_a_reason(stack: Stack) -> None:
    with stack.client() as c:
        g, tokens, _, opened = _refereed_dispute(c)
        gid, ref = g["id"], g["referee"]["token"]
        first = c.get(f"/v1/games/{gid}/events", headers=bearer(ref)).json()["events"][0]
        assert first["data"]["platform"]["void_draws"] == "onward"  # made under "draws never rewind"
        s = _summary(c, gid, opened)
        seat = s["prompt"]["seats"][0]
        legal = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[seat])).json()["commands"]
        r = command(c, gid, tokens[seat], legal[0]["type"], legal[0]["args"])
        assert r.status_code == 422 and r.json()["code"] == "dispute_open", r.text
        assert "disputes" in r.json()["message"] and "referee's ruling" in r.json()["message"]
        for bad in ("", "x" * 501, "tab\tok but bell\x07", "\u202eevil"):
            r = command(c, gid, ref, "boardlog.resolve", {"verdict": "voided", "reason": bad})
            assert r.status_code == 422 and r.json()["code"] == "bad_reason", r.text
        r = command(c, gid, tokens[seat], "boardlog.resolve", {"verdict": "voided", "reason": "me"})
        assert r.json()["code"] == "referee_resolves", r.text
        assert c.get(f"/v1/games/{gid}").json()["seq"] == opened  # nothing was written
        r = command(c, gid, ref, "boardlog.post", {"text": "I am reading the rulebook"})
        assert r.json()["status"] == "accepted", r.text
        r = command(c, gid, ref, "boardlog.resolve", {"verdict": "voided", "reason": "the tile was taken",
                                                       "dispute": opened})
        assert r.json()["status"] == "accepted", r.text
        done = r.json()["seq"][1]
        r = command(c, gid, ref, "boardlog.resolve", {"verdict": "upheld", "reason": "again", "dispute": opened})
        assert r.json()["code"] == "dispute_settled", r.text
        _summary(c, gid, done)
        r = c.get(f"/v1/games/{gid}/dispute", headers=bearer(ref))
        assert r.status_code == 404 and r.json()["error"]["code"] == "no_dispute", r.text
        moves = c.get(f"/v1/games/{gid}/moves").json()["entries"]
        said = [x["text"] for e in moves for x in e["events"]]
        assert "The referee (rex) voids move 1: the tile was taken" in said
        assert "The referee (rex) writes: I am reading the rulebook" in said
        assert any(e["who"] == "rex (referee)" for e in moves)


def test_a_seat_disputes_its_own_timeout_over_http_and_the_referees_void_gives_it_a_fresh_period(
        redis_url: str, own_namespace: str, tmp_path: Path) -> None:
    """Real deadlines: a stack of its own with a deadlines worker and clocks of seconds. Ann lets
    her 2 s run out (pause), disputes her own timeout ("the clock was wrong"), the referee voids
    it with a reason, and her turn starts again with a fresh 2 s, read from the log's own times."""
    env = child_env(redis_url, own_namespace, BOARDLOG_CLOCK_MIN_SECONDS="1")
    with running_stack(env, tmp_path) as s, s.client() as c:
        s.start("deadlines", "deadlines")
        r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "referee": "rex",
                                      "options": {"target": 1000, "clock": {"per_move": 2, "on_timeout": "pause"}}})
        assert r.status_code == 201, r.text
        g = r.json()
        gid, tokens, ref = g["id"], [x["token"] for x in g["seats"]], g["referee"]["token"]

        def log() -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = c.get(f"/v1/games/{gid}/events", headers=bearer(ref)).json()["events"]
            return out

        wait_for(lambda: any(e["type"] == "boardlog.TurnTimedOut" for e in log()), timeout=90, interval=0.2)
        events = log()
        timed = next(e for e in events if e["type"] == "boardlog.TurnTimedOut")
        on = timed["seq"] - 1
        assert events[on - 1]["data"]["type"] == "boardlog.timeout" and timed["data"]["seat"] == 0
        # the log's own head (the timeout's other events may not be projected yet on a busy machine)
        head = events[-1]["seq"]
        r = command(c, gid, tokens[1], "boardlog.dispute", {"seq": on + 1, "note": "not the timeout itself"})
        assert r.status_code == 422 and r.json()["code"] == "not_a_command", r.text
        assert log()[-1]["seq"] == head  # nothing was written
        r = command(c, gid, tokens[0], "boardlog.dispute", {"seq": on, "note": "the clock was wrong, I was away"})
        assert r.json()["status"] == "accepted", r.text
        opened = r.json()["seq"][1]
        _summary(c, gid, opened)
        view = c.get(f"/v1/games/{gid}/dispute", headers=bearer(ref)).json()
        assert view["on"] == on and view["by"] == "ann" and view["redraws"] == []  # a pause drew nothing
        deadline = timed["data"]["deadline"][:16].replace("T", " ")
        assert view["text"] == f"ann's turn timed out at {deadline} UTC (their deadline): the game waited for them"
        r = command(c, gid, tokens[0])
        assert r.status_code == 422 and r.json()["code"] == "dispute_open", r.text
        assert r.json()["message"].startswith("ann disputes their timeout")
        r = command(c, gid, ref, "boardlog.resolve", {"verdict": "voided", "reason": "the deadline was wrong"})
        assert r.json()["status"] == "accepted", r.text
        wait_for(lambda: any(e["type"] == "boardlog.ClockStarted" and e["seq"] > opened for e in log()), timeout=20)
        after = [e for e in log() if e["seq"] > opened]
        kinds = [e["type"] for e in after]
        assert kinds.index("boardlog.TakenBack") < kinds.index("boardlog.TimeoutVoided")
        started = next(e for e in after if e["type"] == "boardlog.ClockStarted")
        assert started["data"]["deadlines"]["0"] == to_iso(to_ms(started["data"]["at"]) + 2000)
        moves = c.get(f"/v1/games/{gid}/moves").json()["entries"]
        n = next(e["move"] for e in moves if e["seq_from"] == on)
        said = [x["text"] for e in moves for x in e["events"]]
        assert f"ann disputes their timeout (move {n}): the clock was wrong, I was away" in said
        assert f"The referee (rex) voids ann's timeout (move {n}): the deadline was wrong" in said
        assert c.get(f"/v1/games/{gid}/audit").json()["ok"] is True
