"""Every EventStore call that reaches Redis says StoreUnavailable, never a redis-py error, when
the server is out of reach: the store's callers (workers, projector, API) handle only that."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from events.domain.wallclock import utcnow
from events.records.chain import seal
from events.store.errors import StoreUnavailable
from events.store.store import Answered, EventStore, GameWrite, GameWrites
from rules.core import Event
from service.runtime.embedded import free_port

GID = "p01-unreachable01"
NO_IO = {"keys", "feed", "lobby", "queued", "ended", "lua", "fingerprint", "project_call"}


def _written(writes: GameWrites, w: GameWrite) -> Any:
    writes.send(w)
    return writes.outcomes()


def calls() -> dict[str, Callable[[EventStore], Any]]:
    """A call of each method (those this tree's EventStore has)."""
    env = seal(GID, 1, "00" * 32, [Event("race.Started", {"game": "race"})], None, utcnow())
    every: dict[str, Callable[[EventStore], Any]] = {
        "create": lambda s: s.create(GID, env, "active", b"seed", {}, "now"),
        "append": lambda s: s.append(GID, 0, env, "c1", {"id": "c1"}),
        "settle": lambda s: s.settle(GID, "c1", {"id": "c1"}, "reply", "over"),
        "reject": lambda s: s.reject(GID, "c1", {"id": "c1"}),
        "put_pending": lambda s: s.put_pending(GID, "c1", {"type": "race.roll"}, 1),
        "pending": lambda s: s.pending(GID, "c1"),
        "pending_and_tail": lambda s: s.pending_and_tail(GID, "c1", 0),
        "batch_heads": lambda s: s.batch_heads([(GID, "c1"), (GID, "c2")], {GID: 0}),
        "append_games": lambda s: s.append_games([GameWrite(GID, 0, [Answered("c1", {"id": "c1"}, "", env)]),
                                                  GameWrite(GID, 0, [Answered("c2", {"id": "c2"}, refused=True)])]),
        "game_writes": lambda s: _written(s.game_writes(), GameWrite(GID, 0, [Answered("c1", {"id": "c1"}, "", env)])),
        "exists": lambda s: s.exists(GID),
        "head": lambda s: s.head(GID),
        "archived": lambda s: s.archived(GID),
        "read": lambda s: s.read(GID),
        "result": lambda s: s.result(GID, "c1"),
        "seed": lambda s: s.seed(GID),
        "imported": lambda s: s.imported(GID),
        "origin": lambda s: s.origin(GID),
        "save_snapshot": lambda s: s.save_snapshot(GID, 500, {"any": "state"}),
        "load_snapshot": lambda s: s.load_snapshot(GID, 500),
        "project": lambda s: s.project(GID, 1, 0, {"summary": b"{}"}, b"{}"),
        "read_model": lambda s: s.read_model(GID, "summary"),
        "checkpoint": lambda s: s.checkpoint(GID),
        "read_after": lambda s: s.read_after([(GID, 0), ("p02-unreachable02", 3)]),
        "project_many": lambda s: s.project_many([(GID, 1, 0, {"summary": b"{}"}, b"{}")] * 2),
        "stored_summary": lambda s: s.stored_summary(GID),
        "project_failed": lambda s: s.project_failed(GID, 1, b"{}", 0, b"{}"),
        "queued_before": lambda s: s.queued_before([1, 2], 0, 10),
        "queued_states": lambda s: s.queued_states([(GID, "c1")]),
        "sweep_queued": lambda s: s.sweep_queued([(GID, "c1")], [(GID, "c2", True)], 0),
        "game_ids": lambda s: s.game_ids(),
        "status": lambda s: s.status(GID),
        "referee_player": lambda s: s.referee_player(GID),
        "platform_id": lambda s: s.platform_id(GID, "join-0"),
        "deadlines_scheduled": lambda s: s.deadlines_scheduled(GID),
        "mark_deadlines_scheduled": lambda s: s.mark_deadlines_scheduled(GID, 3, 1000),
        "drop_read_models": lambda s: s.drop_read_models([GID]),
        "summaries": lambda s: s.summaries([GID]),
        "lobby_below": lambda s: s.lobby_below(5, 10),
    }
    return {name: call for name, call in every.items() if hasattr(EventStore, name)}


def test_every_call_that_reaches_redis_is_listed_here() -> None:
    public = {n for n, f in inspect.getmembers(EventStore, inspect.isfunction) if not n.startswith("_")}
    missing = public - NO_IO - set(calls())
    assert not missing, f"EventStore methods not checked for StoreUnavailable (add them to calls()): {missing}"


@pytest.mark.parametrize("name", sorted(calls()))
def test_a_server_out_of_reach_is_store_unavailable(name: str) -> None:
    client = redis.Redis(port=free_port(), retry=Retry(NoBackoff(), 0), socket_connect_timeout=1)
    store = EventStore(client, "t", partitions=8)
    with pytest.raises(StoreUnavailable):
        calls()[name](store)
