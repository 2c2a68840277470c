"""The move list over HTTP (issue #14 item 5), the prompt in words on the view, and the sentence of
each legal command; replay by move (issue #21 item 5): `GET .../replay?at=<step>` answers one
command with all its events, the board after it, what changed and its draws (indexed, then
re-derived from the revealed seed), and a bad `at` is a clear 422. Through the real API, worker
and projector processes (one stack for the module)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import bearer, command, new_race
from tests.support.replaying import new_rite, play_rite_until_a_move

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One stack for the module (each test plays its own game), over a namespace of its own,
    deleted afterwards: starting the processes costs more than these tests."""
    ns = f"t{uuid.uuid4().hex[:12]}"
    with running_stack(child_env(redis_url, ns), tmp_path_factory.mktemp("moves")) as s:
        yield s
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


def _moves(c: httpx.Client, gid: str, token: str | None = None, **q: Any) -> dict[str, Any]:
    r = c.get(f"/v1/games/{gid}/moves", params=q, headers=bearer(token) if token else {})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_one_entry_per_command_with_its_sentence_and_draws(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2)
        for i in range(5):
            assert command(c, gid, tokens[i % 2]).status_code == 200
        body = _moves(c, gid)
        entries = body["entries"]
        assert [e["seat"] for e in entries] == [None, 0, 1, 0, 1, 0]
        setup, first = entries[0], entries[1]
        assert setup["heading"] == "Set-up" and setup["seq_from"] == 1 and setup["who"] is None
        assert first["who"] == "p0" and first["notation"] == "roll" and first["text"] == "p0 rolls the die."
        assert len(first["draws"]) == 1 and first["draws"][0].startswith("die ")
        # the command's own record (CommandAccepted, at seq_from) is the entry itself, not one of its events
        assert first["events"][0]["seq"] == first["seq_from"] + 1 and first["events"][-1]["seq"] == first["seq_to"]
        assert first["events"][0]["text"].startswith("The die shows ")
        assert [e["n"] for e in entries] == list(range(1, 7)) and body["total"] == 6 and body["older"] is None
        seqs = [s for e in entries for s in range(e["seq_from"], e["seq_to"] + 1)]
        assert seqs == list(range(1, body["seq"] + 1)), "every seq belongs to exactly one entry"
        assert first["cells"] == ["s0"]


def test_the_move_list_is_paged_newest_last(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2)
        for i in range(7):
            assert command(c, gid, tokens[i % 2]).status_code == 200
        last = _moves(c, gid, limit=3)
        assert [e["n"] for e in last["entries"]] == [6, 7, 8] and last["older"] == 6 and last["total"] == 8
        older = _moves(c, gid, limit=3, before=last["older"])
        assert [e["n"] for e in older["entries"]] == [3, 4, 5] and older["older"] == 3
        first = _moves(c, gid, limit=3, before=older["older"])
        assert [e["n"] for e in first["entries"]] == [1, 2] and first["older"] is None
        for bad in ({"limit": 0}, {"limit": 501}, {"before": 0}, {"before": "x"}, {"limit": "many"}):
            r = c.get(f"/v1/games/{gid}/moves", params=bad)
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_page", bad
        assert c.get("/v1/games/nope/moves").status_code == 404


def test_a_seat_reads_its_own_secret_in_words_and_nobody_else_does(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=3)
        for tok in tokens:
            text = _moves(c, gid, tok)["entries"][0]["events"][-1]["text"]
            wait_for(lambda t=tok: "charm" in c.get(f"/v1/games/{gid}/view", headers=bearer(t)).json()["board"])
            charm = c.get(f"/v1/games/{gid}/view", headers=bearer(tok)).json()["board"]["charm"]
            assert text.endswith(f"Your charm is {charm}."), text  # its own, as its view has it
            assert text.count("charm") == 1, "no other seat's charm"
        public = _moves(c, gid)["entries"][0]["events"][-1]["text"]
        assert "charm" not in public


def test_the_view_says_the_prompt_and_each_legal_command_its_sentence(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2)
        wait_for(lambda: c.get(f"/v1/games/{gid}/view").json().get("prompt_text") is not None)
        assert c.get(f"/v1/games/{gid}/view").json()["prompt_text"] == "p0: roll the die."
        legal = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[0])).json()["commands"]
        assert legal == [{"type": "race.roll", "args": {}, "text": "roll", "sentence": "p0 rolls the die."}]


_VALUE = st.one_of(st.integers(min_value=-(10**30), max_value=10**30).map(str),
                   st.text(max_size=12), st.sampled_from(["", "1", "50", "500", "501", "1e3", "0x10", " 3", "+2"]))
_QUERY = st.dictionaries(st.sampled_from(["before", "limit", "other"]), _VALUE, max_size=3)


# One stack and one game for every example (hypothesis runs them all inside one test call).
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=_QUERY, who=st.sampled_from(["none", "seat0", "seat1", "garbage"]))
def test_any_query_is_answered_2xx_or_4xx_and_changes_nothing(stack: Stack, query: dict[str, str], who: str) -> None:
    with stack.client() as c:
        if not hasattr(stack, "moves_game"):
            gid, tokens, _ = new_race(c, seats=2)
            r = command(c, gid, tokens[0])
            assert r.status_code == 200, r.text
            stack.moves_game = (gid, tokens, r.json()["seq"][1])  # type: ignore[attr-defined]
        gid, tokens, head = stack.moves_game  # type: ignore[attr-defined]
        # Read once the projection has the command: a read right after ?wait=1 may be a moment old.
        before = c.get(f"/v1/games/{gid}", params={"min_seq": head}).json()["seq"]
        headers = {"none": {}, "seat0": bearer(tokens[0]), "seat1": bearer(tokens[1]),
                   "garbage": bearer("not-a-token")}[who]
        r = c.get(f"/v1/games/{gid}/moves", params=query, headers=headers)
        assert r.status_code < 500, r.text
        assert r.status_code in (200, 401, 403, 422), r.text
        if r.status_code != 200:
            assert r.json()["error"]["code"], r.text
        else:
            assert all(isinstance(e["n"], int) for e in r.json()["entries"])
        assert c.get(f"/v1/games/{gid}").json()["seq"] == before, "a read wrote something"


# --- replay by move ---------------------------------------------------------------------------

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
