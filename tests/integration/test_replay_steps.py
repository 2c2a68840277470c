"""Replay by move over HTTP (issue #21 item 5): `GET /v1/games/{gid}/replay?at=<step>` answers one
command with all its events, the board after it, what changed and its draws (indexed, then
re-derived from the revealed seed); a bad `at` is a clear 422. Real API, worker and projector."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import bearer, command, new_race
from tests.support.replaying import new_rite, play_rite_until_a_move

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    with running_stack(child_env(redis_url, ns), tmp_path_factory.mktemp("replay")) as s:
        yield s
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


def step(c: httpx.Client, gid: str, at: object = None, token: str | None = None, **q: object) -> httpx.Response:
    params: dict[str, Any] = dict(q)
    if at is not None:
        params["at"] = at
    return c.get(f"/v1/games/{gid}/replay", params=params, headers=bearer(token) if token else {})


def test_a_step_is_one_command_with_its_events_draws_and_when(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2, target=4)
        for i in range(40):
            r = command(c, gid, tokens[i % 2])
            if r.status_code == 409 and r.json()["error"]["code"] == "game_over":
                break
            assert r.status_code == 200, r.text
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["status"] == "over")
        summary = c.get(f"/v1/games/{gid}").json()
        last = step(c, gid).json()
        n = last["steps"]
        assert last["step"] == n and last["seq"] == summary["seq"]
        first_move = step(c, gid, 2).json()
        e = first_move["entry"]
        assert e["who"] == "p0" and e["notation"] == "roll" and e["text"] == "p0 rolls the die."
        assert e["at"].endswith("Z") and e["seq_from"] < e["seq_to"]
        assert [x["seq"] for x in e["events"]] == list(range(e["seq_from"] + 1, e["seq_to"] + 1))
        assert first_move["view"]["seq"] == e["seq_to"], "the board after the whole command"
        d = first_move["draws"]
        # after the end the seed is revealed: each draw re-derived, with its index
        assert d["status"] == "verified" and d["to"] == d["from"] + 1, d
        (note,) = d["noted"]
        assert note["index"] == d["from"] and note["kind"] == "randint" and note["asked"] == [1, 6]
        assert e["draws"] == [f"die {note['value']}"]
        assert note["text"] == f"#{d['from']}: d6 → {note['value']}"
        # every seq belongs to exactly one step
        seqs = [q for k in range(1, n + 1) for q in range(*(lambda x: (x["seq_from"], x["seq_to"] + 1))(step(c, gid, k).json()["entry"]))]
        assert seqs == list(range(1, summary["seq"] + 1))


def test_draws_are_checkable_only_once_the_seed_is_revealed(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2)
        assert command(c, gid, tokens[0]).status_code == 200
        d = step(c, gid, 2).json()["draws"]
        assert d["status"] == "committed" and d["noted"] == [] and d["to"] == d["from"] + 1
        r = step(c, gid, 2, full=1)
        assert r.status_code == 403 and r.json()["error"]["code"] == "game_not_over"
        assert c.get(f"/v1/games/{gid}/moves", params={"full": 1}).status_code == 403


def test_a_bad_at_says_why_and_changes_nothing(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2)
        r = command(c, gid, tokens[0])
        assert r.status_code == 200
        seq = r.json()["seq"][1]  # the store's head (the summary may lag a moment)
        steps = step(c, gid).json()["steps"]
        for bad, words in (("abc", "not 'abc'"), ("-1", "from 1"), ("0", "from 1"), (str(steps + 1), f"from 1 to {steps}"),
                           ("1.5", "whole number")):
            r = step(c, gid, bad)
            assert r.status_code == 422, (bad, r.text)
            err = r.json()["error"]
            assert err["code"] == "bad_step" and words in err["message"], (bad, err)
        for bad, words in (("abc", "not 'abc'"), ("-1", "from 1"), (str(seq + 1), f"from 1 to {seq}")):
            r = c.get(f"/v1/games/{gid}/view", params={"at": bad})
            assert r.status_code == 422, (bad, r.text)
            err = r.json()["error"]
            assert err["code"] == "bad_seq" and words in err["message"], (bad, err)
        assert c.get(f"/v1/games/{gid}/replay", params={"full": "yes"}).status_code == 422
        assert c.get(f"/v1/games/{gid}/view", params={"at": seq}).json()["seq"] == seq
        assert step(c, gid).json()["seq"] == seq, "nothing was written"


def test_a_rite_move_step_shows_the_unit_moved_and_both_cells(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens = new_rite(c)
        notation, _ = play_rite_until_a_move(c, gid, tokens)
        _, src, dst = notation.split()
        body = step(c, gid).json()
        assert body["entry"]["notation"] == notation
        ch = body["changes"]
        assert len(ch["moved"]) == 1 and (ch["moved"][0]["from"], ch["moved"][0]["to"]) == (src, dst), ch
        assert ch["added"] == [] and ch["removed"] == []
        cells = {x["id"]: x for x in body["view"]["board"]["board"]["cells"]}
        assert cells[dst]["pieces"] and not [p for p in cells[src]["pieces"] if p["label"] == ch["moved"][0]["label"]]
        assert {src, dst} <= set(body["entry"]["cells"]) | set(ch["cells"])
        assert any(s["what"].endswith("energy") for s in ch["scores"]), ch["scores"]


def test_a_move_taken_back_stays_in_the_replay_struck_through(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens = new_rite(c)
        notation, _ = play_rite_until_a_move(c, gid, tokens, seed=5)
        moved = step(c, gid).json()
        assert moved["entry"]["notation"] == notation
        ask = command(c, gid, tokens[0], "boardlog.takeback", {})
        assert ask.status_code == 200, ask.text
        ok = command(c, gid, tokens[1], "boardlog.accept", {})
        assert ok.status_code == 200, ok.text
        head = ok.json()["seq"][1]
        last = step(c, gid).json()
        assert last["seq"] == head and last["step"] > moved["step"]
        again = step(c, gid, moved["step"]).json()["entry"]
        assert again["notation"] == notation and again["undone"] > moved["seq"], again
        assert [e["type"] for e in last["entry"]["events"]][-1] == "boardlog.TakenBack" or any(
            e["type"] == "boardlog.TakenBack" for k in range(moved["step"] + 1, last["step"] + 1)
            for e in step(c, gid, k).json()["entry"]["events"])
        # the board after the take-back is the board before the move
        before = c.get(f"/v1/games/{gid}/view", params={"at": moved["entry"]["seq_from"] - 1}).json()
        assert last["view"]["board"]["board"] == before["board"]["board"]
        entries = c.get(f"/v1/games/{gid}/moves").json()["entries"]
        assert [e["n"] for e in entries if e.get("undone")] == [moved["step"]]


def test_mid_game_only_the_referee_replays_with_everything_shown(stack: Stack) -> None:
    """Dragon Dale's hidden units: the spectator sees backs, a seat its own units, the referee
    every unit (full=1), and the admin may not ask for everything before the end."""
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "dragondale", "seats": ["ann", "bob"], "options": {},
                                      "referee": {"name": "rita"}})
        assert r.status_code == 201, r.text
        g = r.json()
        gid, tokens, referee = g["id"], [s["token"] for s in g["seats"]], g["referee"]["token"]
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] > 1)
        tribes = [t["tribe"] for t in c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[0])).json()["board"]["tribes"]]

        def units(token: str | None, full: int = 0) -> set[str]:
            r = step(c, gid, token=token, full=full)
            assert r.status_code == 200, r.text
            cells = r.json()["view"]["board"]["board"]["cells"]
            return {p["label"] for x in cells for p in x["pieces"] if str(p["label"]).split(":")[0] in tribes}

        everything = units(referee, 1)
        assert everything and not any(u.endswith(":hidden") for u in everything)
        public = units(None)
        assert any(u.endswith(":hidden") for u in public), "the set-up hides units"
        mine = units(tokens[0])
        assert not any(u.startswith(f"{tribes[0]}:hidden") for u in mine)
        assert {u for u in mine if u.startswith(tribes[1] + ":")} == {u for u in public if u.startswith(tribes[1] + ":")}
        for token in (g["admin_token"], tokens[0], None):
            r = step(c, gid, token=token, full=1)
            assert r.status_code == 403 and r.json()["error"]["code"] == "game_not_over", r.text
        moves = c.get(f"/v1/games/{gid}/moves", params={"full": 1}, headers=bearer(referee))
        assert moves.status_code == 200
