"""The projector: redelivery is harmless, dead consumers' entries are claimed, rebuild equals live."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from events.domain.match import decide_and_fold
from events.records.chain import seal
from events.store.store import EventStore
from projections.projector import GROUP, Projector, all_games, rebuild
from projections.replay import match_at
from rules.core import Command
from service.usecases.matches import create_match
from tests.support.racegame import VIEW_BUG_NOTE
from tests.support.records import prev_hash
from workers.commands import CommandHandler

pytestmark = pytest.mark.integration


def decide_events(*args: Any, **kw: Any) -> list[Any]:
    """The events one command appends (without the folded match)."""
    return decide_and_fold(*args, **kw)[0]


def play(store: EventStore, gid: str, n: int) -> None:
    handler = CommandHandler(store)
    for _ in range(n):
        match = match_at(store, gid)
        if match.over:
            return
        seat = match.prompt.seats[0]  # type: ignore[union-attr]
        cid = str(uuid.uuid4())
        store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": seat, "expect": None})
        handler.handle(gid, cid)


def models(store: EventStore, gid: str) -> dict[bytes, bytes]:
    return dict(store.r.hgetall(store.keys(gid).rm))


def test_rebuild_drops_every_read_model_and_the_result_equals_the_live_one(store: EventStore) -> None:
    gids = [create_match(store, {"game": "race", "seats": ["a", "b", "c"], "options": {"target": 40}})["id"]
            for _ in range(4)]
    for i, gid in enumerate(gids):
        play(store, gid, 5 + 7 * i)
    p = Projector(store, block_ms=10)
    p.ensure_groups()
    while p.step():
        pass
    live = {gid: models(store, gid) for gid in gids}
    lobby = {k: store.r.zrange(store.lobby(k), 0, -1, withscores=True) for k in range(store.partitions)}
    assert all(live[g][b"checkpoint"] for g in gids)
    assert sorted(all_games(store)) == sorted(gids)
    assert rebuild(store) == 4
    assert {gid: models(store, gid) for gid in gids} == live
    assert {k: store.r.zrange(store.lobby(k), 0, -1, withscores=True) for k in range(store.partitions)} == lobby


def test_a_redelivered_feed_entry_changes_nothing(store: EventStore) -> None:
    gid = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    play(store, gid, 3)
    p = Projector(store, block_ms=10)
    p.ensure_groups()
    while p.step():
        pass
    before = models(store, gid)
    assert not p.project(gid)  # the same checkpoint again: a no-op
    assert models(store, gid) == before


def test_an_older_projector_cannot_overwrite_newer_models(store: EventStore) -> None:
    gid = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    old = Projector(store, consumer="old", block_ms=10)
    old.project(gid)
    play(store, gid, 4)
    new = Projector(store, consumer="new", block_ms=10)
    new.project(gid)
    newest = models(store, gid)
    # The old projector's cached match is behind; it catches up from the stream, never writes back.
    old.cache.put(gid, old.cache.get(gid))
    old.project(gid)
    assert models(store, gid) == newest


def test_entries_of_a_dead_consumer_are_claimed(store: EventStore) -> None:
    gid = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    dead = Projector(store, consumer="dead", block_ms=10)
    dead.ensure_groups()
    feed = store.keys(gid).feed
    # The dead consumer reads the entry and never acknowledges it.
    got = store.r.xreadgroup(GROUP, "dead", {feed: ">"}, count=10)
    assert got and got[0][1]
    assert store.checkpoint(gid) == 0
    alive = Projector(store, consumer="alive", block_ms=10, claim_idle_ms=0)
    assert alive.claim_dead() >= 1
    assert store.checkpoint(gid) == match_at(store, gid).seq
    pending = store.r.xpending(feed, GROUP)
    assert pending["pending"] == 0


def test_a_forged_event_cannot_be_appended_out_of_order(store: EventStore) -> None:
    gid = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    match = match_at(store, gid)
    events = decide_events(match, Command("race.roll", {}, 0), "c1", store.seed(gid))
    envs = seal(gid, match.seq + 1, prev_hash(store, gid, match.seq), events, "c1", "t")
    assert store.append(gid, match.seq - 1, envs, "c1", {}).status == "conflict"
    assert store.append(gid, match.seq, envs, "c1", {}).status == "ok"


def note(store: EventStore, gid: str, text: str) -> None:
    cid = str(uuid.uuid4())
    store.put_pending(gid, cid, {"type": "race.note", "args": {"text": text}, "seat": 0, "expect": None})
    assert CommandHandler(store).handle(gid, cid)["status"] == "accepted"  # type: ignore[index]


def test_a_game_whose_view_fails_does_not_stop_the_other_games_read_models(store: EventStore) -> None:
    broken, fine = (create_match(store, {"game": "race", "seats": ["a", "b"]})["id"] for _ in range(2))
    p = Projector(store, block_ms=10, min_gap_ms=0)
    p.ensure_groups()
    while p.step():
        pass
    before = store.checkpoint(broken)
    for i in range(3):  # both games due together (one batch), then one at a time
        note(store, broken, VIEW_BUG_NOTE if i == 0 else f"n{i}")
        note(store, fine, f"n{i}")
        while p.step():
            pass
        note(store, fine, f"m{i}")
        while p.step():
            pass
    assert store.checkpoint(fine) == match_at(store, fine).seq
    assert store.checkpoint(broken) == before  # its read models wait for a fixed rule
    pending = sum(store.r.xpending(store.feed(k), GROUP)["pending"] for k in range(store.partitions))
    assert pending == 0  # acknowledged: trying the same seq again would fail the same way
    assert rebuild(store) == 2  # a rebuild goes on past it too
    assert store.checkpoint(fine) == match_at(store, fine).seq


def test_the_sweep_queues_again_only_unanswered_commands_older_than_its_wait(store: EventStore) -> None:
    gid = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    old, now = 1_000, int(time.time() * 1000)
    for i in range(23):  # more than one round of 5
        store.put_pending(gid, f"w{i}", {"type": "race.note", "args": {"text": "x"}, "seat": 0}, queued_ms=old)
    for i in range(7):
        store.put_pending(gid, f"a{i}", {"type": "race.note", "args": {"text": "x"}, "seat": 0}, queued_ms=old)
        store.reject(gid, f"a{i}", {"id": f"a{i}", "status": "rejected", "code": "x", "message": "x", "http": 422})
    store.put_pending(gid, "fresh", {"type": "race.note", "args": {}, "seat": 0}, queued_ms=now)
    # Answered, its body left behind (the worker's settling was lost with its connection).
    store.put_pending(gid, "left", {"type": "race.note", "args": {}, "seat": 0}, queued_ms=old)
    store.r.hset(store.keys(gid).results, "left", b'{"status":"accepted"}')
    again: list[tuple[str, str]] = []
    p = Projector(store, batch=5, requeue=lambda g, c: again.append((g, c)), requeue_after_ms=60_000)
    assert p.sweep_queued() == 23
    assert sorted(again) == sorted((gid, f"w{i}") for i in range(23))
    queued = dict(store.r.zrange(store.keys(gid).queued, 0, -1, withscores=True))
    assert len(queued) == 24 and all(score >= now for score in queued.values())  # answered ones gone
    assert store.pending(gid, "left") is None
    assert p.sweep_queued() == 0  # not again before another wait


def test_the_feeds_are_trimmed_below_what_the_group_still_needs(store: EventStore) -> None:
    gids = [create_match(store, {"game": "race", "seats": ["a", "b"]})["id"] for _ in range(3)]
    for gid in gids:
        play(store, gid, 4)
    feeds = sorted({store.keys(gid).feed for gid in gids})
    p = Projector(store, block_ms=10, batch=2)
    p.ensure_groups()
    before = {f: store.r.xlen(f) for f in feeds}
    p.trim_feeds()
    assert {f: store.r.xlen(f) for f in feeds} == before  # nothing delivered yet: all kept
    store.r.xreadgroup(GROUP, "slow", {feeds[0]: ">"}, count=1)  # read, never acknowledged
    while p.step():
        pass
    p.trim_feeds()
    kept = store.r.xrange(feeds[0])
    assert len(kept) >= 1 and kept[0][0] == store.r.xpending(feeds[0], GROUP)["min"]  # the unacknowledged one stays
    for f in feeds[1:]:
        assert store.r.xlen(f) <= 1  # all acknowledged: only the last delivered entry stays


def test_what_the_projector_keeps_a_game_is_bounded_however_many_games_it_projects(store: EventStore) -> None:
    gids = [create_match(store, {"game": "race", "seats": ["a", "b"]})["id"] for _ in range(7)]
    for gid in gids:
        play(store, gid, 2)
    p = Projector(store, block_ms=10, memo=3, min_gap_ms=0)
    p.ensure_groups()
    while p.step():
        pass
    assert len(p._created_at) <= 3 and len(p._imported_as) <= 3 and len(p._projected_at) <= 3 + 1
    # a game whose entries were let go is read again when it moves, and projects as before
    first = gids[0]
    play(store, first, 1)
    while p.step():
        pass
    summary = store.r.hget(store.keys(first).rm, "summary")
    assert summary is not None and b'"seq":' in summary
    assert all(store.r.hget(store.keys(g).rm, "checkpoint") for g in gids)


def test_a_flush_projects_at_most_flush_games_games_urgent_first_and_the_rest_next(store: EventStore) -> None:
    """Under load the games fall due together after a long gap: one flush takes a few of them
    (a reader's urgent game first), the next steps the rest, none waiting out another gap."""
    from events.store.feed import URGENT

    gids = [create_match(store, {"game": "race", "seats": ["a", "b"]})["id"] for _ in range(5)]
    p = Projector(store, block_ms=10, min_gap_ms=0, flush_games=2)
    p.ensure_groups()
    while p.step():
        pass
    for gid in gids:
        note(store, gid, "x")
    last = gids[-1]
    store.r.xadd(store.keys(last).feed, {"g": last, URGENT.decode(): "1"})
    p.step()
    done = [gid for gid in gids if store.checkpoint(gid) == match_at(store, gid).seq]
    assert len(done) == 2 and last in done, done
    while p.step():
        pass
    assert all(store.checkpoint(gid) == match_at(store, gid).seq for gid in gids)
    assert p.feed.urgent == set()
