"""A bad seat name at creation is answered 422 with the rule it broke, and writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from events.store.store import EventStore
from tests.conftest import Stack, wait_for

# One stack for the module: the refusals test compares the namespace's keys and games before and
# after its refused creates (the module's tests run one at a time, so nobody else writes meanwhile).
pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def keyspace(store: EventStore) -> dict[bytes, Any]:
    """Every key of the service's namespace with its content (the broker's keys aside: a
    refused create queues nothing, and the workers' own bookkeeping there is not ours). A
    stream counts by its entries: its consumer groups' acknowledgements are the followers'
    bookkeeping, which goes on after the projector has written what the test waits for."""
    out: dict[bytes, Any] = {}
    for key in store.r.scan_iter(match=f"{store.ns}:*", count=1000):
        out[key] = store.r.xrange(key) if store.r.type(key) == b"stream" else store.r.dump(key)
    return out


BAD = [
    (["ann\u202ebob", "cy"], "name_bad_character", "U+202E", "seat 0's name"),
    (["ann", "b\x00b"], "name_bad_character", "U+0000", "seat 1's name"),
    (["an\u200bn", "ann"], "name_bad_character", "U+200B", "seat 0's name"),
    (["ann", "b" * 41], "name_too_long", "41", "seat 1's name"),
    (["ann", "  "], "name_empty", "empty", "seat 1's name"),
    (["ann", "bob", "ann"], "name_taken", "seat 0", "seat 2's name"),
    (["Ann", "ann"], "name_taken", "seat 0", "seat 1's name"),
    ([{"name": "ann"}, {"name": "ANN", "entropy": "x"}], "name_taken", "seat 0", "seat 1's name"),
    ([{"name": "a\u2066b"}], "name_bad_character", "U+2066", "seat 0's name"),
]


def test_bad_seat_names_are_refused_with_their_rule_and_write_nothing(stack: Stack, store: EventStore) -> None:
    with stack.client() as c:
        first = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"]})
        assert first.status_code == 201, first.text
        gid = first.json()["id"]
        games = store.game_ids()  # this one, and any the module's other test made
        assert gid in games
        # Wait for the projector to be done with the games that exist, so the keys stand still.
        wait_for(lambda: sorted(g["id"] for g in c.get("/v1/games").json()["games"]) == sorted(games))
        before = keyspace(store)
        for seats, code, detail, where in BAD:
            r = c.post("/v1/games", json={"game": "race", "seats": seats})
            assert r.status_code == 422, (seats, r.text)
            error = r.json()["error"]
            assert error["code"] == code, (seats, error)
            assert where in error["message"] and detail in error["message"], error
        assert keyspace(store) == before
        assert sorted(store.game_ids()) == sorted(games)
        assert sorted(g["id"] for g in c.get("/v1/games").json()["games"]) == sorted(games)


def test_names_are_stored_as_normalised_and_shown_that_way(stack: Stack) -> None:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "race", "seats": ["  Rene\u0301e ", "e\u0301" * 40]})
        assert r.status_code == 201, r.text
        assert [s["name"] for s in r.json()["seats"]] == ["Ren\u00e9e", "\u00e9" * 40]
        summary = c.get(f"/v1/games/{r.json()['id']}").json()
        assert [s["name"] for s in summary["seats"]] == ["Ren\u00e9e", "\u00e9" * 40]
