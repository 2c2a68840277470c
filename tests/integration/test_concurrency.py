"""Concurrent commands on one game: the append's version check serialises them."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from events.records.chain import verify
from events.store.store import EventStore
from tests.conftest import Stack, wait_for
from tests.integration.helpers import command, new_race, unacked

# Each test plays only its own game; the unacked count covers the module's namespace, whose tests run one by one.
pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def test_fifty_commands_with_the_same_expected_seq_one_wins(stack: Stack, store: EventStore) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        seq = c.get(f"/v1/games/{gid}").json()["seq"]
        with ThreadPoolExecutor(50) as pool:
            codes = list(pool.map(lambda _: command(c, gid, tokens[0], expect=seq).status_code, range(50)))
        assert sorted(codes) == [200] + [409] * 49, codes
        envs = store.read(gid)
        assert verify(envs) is None
        rolls = [e for e in envs if e.type == "race.DieRolled"]
        assert len(rolls) == 1


def test_commands_without_expect_all_apply_in_some_order(stack: Stack, store: EventStore, namespace: str) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        with ThreadPoolExecutor(20) as pool:
            codes = list(pool.map(
                lambda i: command(c, gid, tokens[0], "race.note", {"text": f"n{i}"}).status_code, range(40)))
        assert codes == [200] * 40
        envs = store.read(gid)
        assert verify(envs) is None
        assert sorted(e.data["text"] for e in envs if e.type == "race.NoteWritten") == sorted(f"n{i}" for i in range(40))

    # The consumer sends its acks with its next fetch or wait (workers/broker.py): once the
    # commands are answered, none may stay unacked in the broker's Redis.
    r = store.r

    wait_for(lambda: unacked(r, namespace) == 0, timeout=10)
