"""The feed adapter over a real Redis: a lost group is `GroupMissing`, and the projector makes
the groups again and goes on."""

from __future__ import annotations

import threading

import pytest

from events.store.feed import FeedGroup, GroupMissing
from events.store.store import EventStore
from projections.projector import GROUP, Projector
from projections.replay import match_at
from service.usecases.matches import create_match
from tests.conftest import wait_for

pytestmark = pytest.mark.integration


def test_a_feed_lost_with_the_server_data_is_group_missing(store: EventStore) -> None:
    feed = FeedGroup(store, GROUP, "me")
    feed.ensure()
    feed.ensure()  # there already: fine
    assert feed.read(1, 10) == []
    store.r.delete(*feed.feeds)
    with pytest.raises(GroupMissing):
        feed.read(1, 10)
    with pytest.raises(GroupMissing):
        feed.claim(feed.feeds[0], "0-0", 0, 10)


def test_the_projector_makes_lost_groups_again_and_goes_on(store: EventStore) -> None:
    p = Projector(store, block_ms=10, min_gap_ms=0)
    p.ensure_groups()
    worker = threading.Thread(target=p.run, daemon=True)
    worker.start()
    try:
        store.r.delete(*p.feed.feeds)  # as a restart without AOF leaves them
        gid = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
        wait_for(lambda: store.checkpoint(gid) == match_at(store, gid).seq)
    finally:
        p.running = False
        worker.join(timeout=10)
    assert not worker.is_alive()
