"""The feed-following loop the projector, the notifier and the deadlines worker share, on a real
Redis, through a follower of its own: a game that fails is logged under the follower's name and
acknowledged while the others go on; a dead consumer's entries are claimed; the loop waits out
a server out of reach, doubling its pause, and makes the groups the restarted server lost."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import structlog
from redis.backoff import NoBackoff
from redis.retry import Retry

from events.store.follow import Follower
from events.store.store import EventStore
from service.runtime.embedded import EmbeddedRedis
from service.usecases.matches import create_match
from tests.conftest import wait_for

pytestmark = pytest.mark.integration

GROUP = "tally"


class Tally(Follower):
    """Counts the times each game was caught up; a game in `broken` raises as a rules bug does."""

    def __init__(self, store: EventStore, consumer: str, *, claim_idle_ms: int = 10_000) -> None:
        super().__init__(store, GROUP, consumer, name="tally", log=structlog.get_logger("boardlog.tally"),
                         block_ms=10, claim_idle_ms=claim_idle_ms, batch=100)
        self.caught: dict[str, int] = {}
        self.broken: set[str] = set()

    def catch_up(self, gid: str) -> int:
        if gid in self.broken:
            raise RuntimeError(f"cannot fold {gid}")
        self.caught[gid] = self.caught.get(gid, 0) + 1
        return 1


def new_game(store: EventStore) -> str:
    gid: str = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    return gid


def pending(store: EventStore) -> int:
    return sum(store.r.xpending(store.feed(p), GROUP)["pending"] for p in range(store.partitions))


def test_a_failing_game_is_logged_and_acknowledged_and_the_others_go_on(store: EventStore) -> None:
    t = Tally(store, "me")
    t.ensure_groups()
    fine, broken, other = new_game(store), new_game(store), new_game(store)
    t.broken.add(broken)
    with structlog.testing.capture_logs() as logs:
        assert t.step() >= 3
    assert t.caught == {fine: 1, other: 1}  # each once, however many entries named it
    assert [x["game"] for x in logs if x["event"] == "tally.failed"] == [broken]
    assert pending(store) == 0  # the broken game's entries too: retrying would fail the same way


def test_a_dead_consumers_entries_are_claimed_and_caught_up(store: EventStore) -> None:
    dead = Tally(store, "dead")
    dead.ensure_groups()
    gid = new_game(store)
    assert dead.feed.read(10, 100)  # read, then died before catching up or acknowledging
    alive = Tally(store, "alive", claim_idle_ms=0)
    assert alive.claim_dead() >= 1
    assert alive.caught == {gid: 1} and pending(store) == 0
    assert alive.step() == 0  # nothing left for either


@pytest.fixture
def every_level() -> Iterator[None]:
    """Info lines reach capture_logs whatever level an earlier test in this process configured
    (service.runtime.logs filters below its level in the bound logger itself, which capture_logs keeps)."""
    saved = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
                        cache_logger_on_first_use=False)
    yield
    structlog.configure(**saved)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path / "redis", appendonly=False).start()
    yield server
    server.stop()


def test_run_waits_out_a_server_away_and_makes_its_lost_groups_again(own_server: EmbeddedRedis,
                                                                     tmp_path: Path, every_level: None) -> None:
    client = redis.Redis(port=own_server.port, retry=Retry(NoBackoff(), 0), socket_connect_timeout=1)
    store = EventStore(client, "t", partitions=4)
    t = Tally(store, "me")
    # Back without its data, as a restart without AOF: the groups are gone.
    back = EmbeddedRedis(tmp_path / "redis", port=own_server.port, appendonly=False)
    with structlog.testing.capture_logs() as logs:
        worker = threading.Thread(target=t.run, daemon=True)
        worker.start()
        try:
            first = new_game(store)
            wait_for(lambda: first in t.caught)
            own_server.stop()
            wait_for(lambda: sum(x["event"] == "tally.redis_unavailable" for x in logs) >= 3)
            back.start()
            second = new_game(store)
            wait_for(lambda: second in t.caught)
        finally:
            t.running = False
            worker.join(timeout=10)
            back.stop()
    assert not worker.is_alive()
    events = [x["event"] for x in logs]
    assert events[0] == "tally.started" and events[-1] == "tally.stopped"
    waits = [x["retry_in"] for x in logs if x["event"] == "tally.redis_unavailable"]
    assert waits[:3] == [0.1, 0.2, 0.4]
    assert "tally.groups_missing" in events
    client.close()
