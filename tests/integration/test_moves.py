"""The move list over HTTP (issue #14 item 5), the prompt in words on the view, and the sentence of
each legal command: through the real API, worker and projector processes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import bearer, command, new_race

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


def _moves(c, gid: str, token: str | None = None, **q: object) -> dict:  # type: ignore[no-untyped-def, type-arg]
    r = c.get(f"/v1/games/{gid}/moves", params=q, headers=bearer(token) if token else {})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


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
            assert command(c, gid, tokens[0]).status_code == 200
            stack.moves_game = (gid, tokens)  # type: ignore[attr-defined]
        gid, tokens = stack.moves_game  # type: ignore[attr-defined]
        before = c.get(f"/v1/games/{gid}").json()["seq"]
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
