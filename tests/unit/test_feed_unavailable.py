"""Every FeedGroup call says StoreUnavailable, never a redis-py error, when the server is out of
reach: the projector waits and reads again on that alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from events.store.errors import StoreUnavailable
from events.store.feed import FeedGroup
from events.store.store import EventStore
from service.runtime.embedded import free_port

CALLS: dict[str, Callable[[FeedGroup], Any]] = {
    "ensure": lambda f: f.ensure(),
    "read": lambda f: f.read(1, 10),
    "claim": lambda f: f.claim(f.feeds[0], "0-0", 0, 10),
    "ack": lambda f: f.ack([(f.feeds[0], b"1-0")]),
    "trim": lambda f: f.trim(),
}


def test_every_feed_call_is_listed_here() -> None:
    public = {n for n in vars(FeedGroup) if not n.startswith("_") and callable(vars(FeedGroup)[n])}
    assert public == set(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_server_out_of_reach_is_store_unavailable(name: str) -> None:
    client = redis.Redis(port=free_port(), retry=Retry(NoBackoff(), 0), socket_connect_timeout=1)
    feed = FeedGroup(EventStore(client, "t", partitions=4), "projector", "me")
    with pytest.raises(StoreUnavailable):
        CALLS[name](feed)
