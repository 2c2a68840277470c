"""The notifier's consumer group beside the projector's, on a real Redis: it starts at the
feeds' end, the projector's trim keeps what it has not read, and the notifier (in process,
with a recording enqueue) queues one job per player, target and step from its checkpoint."""

from __future__ import annotations

import asyncio
import threading
import uuid

import orjson
import pytest
import redis.asyncio as aioredis

from events.store.feed import FeedGroup
from events.store.store import EventStore
from projections.projector import GROUP
from service.stores.notifications import Confirmed, TargetStore, with_choices
from service.stores.players import PlayerStore
from service.usecases.matches import create_match
from service.usecases.notifications.notices import Notice
from workers.commands import CommandHandler
from workers.notifications.follower import Notifier

pytestmark = pytest.mark.integration


Job = tuple[Notice, str, str, int]


def notifier_and_race(store: EventStore) -> tuple[TargetStore, Notifier, list[Job], str]:
    """A notifier in this process whose jobs are recorded in a list, and a new race game."""
    targets = TargetStore(store.r, store.ns)
    queued: list[Job] = []
    n = Notifier(store, targets, lambda *job: queued.append(job), block_ms=10)
    n.ensure_groups()
    return targets, n, queued, create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]


def test_the_projector_trims_only_what_the_notifier_has_read(store: EventStore) -> None:
    projector = FeedGroup(store, GROUP, "p")
    projector.ensure()
    notifier = FeedGroup(store, "notifier", "n", start="$")
    notifier.ensure()
    gids = [create_match(store, {"game": "race", "seats": ["a", "b"]})["id"] for _ in range(6)]
    read = projector.read(10, 100)
    projector.ack([(f, e) for f, e, _ in read])
    projector.trim()
    # The notifier has read nothing yet: every entry is still there for it.
    assert sorted(g for _, _, g in notifier.read(10, 100)) == sorted(gids)


def test_the_notifier_queues_each_step_once_from_its_checkpoint(store: EventStore) -> None:
    targets, n, queued, gid = notifier_and_race(store)
    store.r.hset(targets.keys.players.claims(gid), mapping={"0": "ann", "1": "bob"})
    t_ann, _ = targets.add("ann", "webhook", "http://127.0.0.1:9/x")
    t_bob, _ = targets.add("bob", "atom", "", events=["over"])
    n.step()
    assert [(j[0].seat, j[1], j[2]) for j in queued] == [(0, "ann", t_ann.id)]  # the first turn: ann's
    n.catch_up(gid)
    assert len(queued) == 1  # nothing new since the checkpoint
    targets.set_checkpoint(gid, 0)  # a lost checkpoint: queued again, and the jobs' keys dedupe
    n.catch_up(gid)
    assert [j[0].key(j[1], j[2]) for j in queued[1:]] == [queued[0][0].key("ann", t_ann.id)]
    assert t_bob.id not in {j[2] for j in queued}  # bob's target tells only of the end


def address_confirmed(redis_url: str, ns: str, pid: str, address: str) -> bool:
    """The API's own check (PlayerStore, on an async client), from this sync test."""
    async def ask() -> bool:
        aio = aioredis.Redis.from_url(redis_url)
        try:
            return await PlayerStore(aio, ns).address_confirmed(pid, address)
        finally:
            await aio.aclose()

    return asyncio.run(ask())


def test_an_email_target_not_confirmed_is_queued_nothing_and_one_stored_before_confirmations_counts(
        store: EventStore, redis_url: str) -> None:
    targets, n, queued, gid = notifier_and_race(store)
    store.r.hset(targets.keys.players.claims(gid), mapping={"0": "ann", "1": "bob"})
    waiting, _ = targets.add("ann", "email", "Ann@example.org", confirmed=False)
    old, _ = targets.add("ann", "email", "old@example.org")
    # As stored before addresses were confirmed: the record has no "confirmed" field.
    record = orjson.loads(store.r.hget(targets.keys.targets("ann"), old.id))
    del record["confirmed"]
    store.r.hset(targets.keys.targets("ann"), old.id, orjson.dumps(record))
    got = targets.target("ann", old.id)
    assert got is not None and got.confirmed
    n.step()
    assert [j[2] for j in queued] == [old.id]

    token = targets.confirm_link("ann", "ann@EXAMPLE.org")
    assert not address_confirmed(redis_url, store.ns, "ann", "ann@example.org")
    assert targets.confirm(token) == Confirmed("ann", "ann@EXAMPLE.org", None)
    assert targets.confirm(token) is None  # once
    assert address_confirmed(redis_url, store.ns, "ann", "ANN@example.org")
    assert not address_confirmed(redis_url, store.ns, "bob", "ann@example.org")
    confirmed = targets.target("ann", waiting.id)
    assert confirmed is not None and confirmed.confirmed  # the address's target, whatever its case
    # A change of choices made from a copy read before the confirmation keeps it.
    assert targets.update(with_choices(waiting, ["over"], None))
    changed = targets.target("ann", waiting.id)
    assert changed is not None and changed.confirmed and changed.events == ("over",)
    assert targets.update(with_choices(waiting, ["turn"], None))
    targets.set_checkpoint(gid, 0)  # the first turn read again: now the confirmed target takes it too
    n.catch_up(gid)
    assert sorted(j[2] for j in queued[1:]) == sorted([old.id, waiting.id])


def test_a_seat_claimed_by_its_link_is_told_only_of_the_steps_after_the_one_its_claimant_saw(
        store: EventStore) -> None:
    targets, n, queued, gid = notifier_and_race(store)
    # Both seats claimed by their links after the game's first step (seq 1: seat 0 to move),
    # before the notifier reads it: that step was on the claimants' screens.
    store.r.hset(targets.keys.players.claims(gid), mapping={"0": "ann", "1": "bob"})
    store.r.hset(targets.keys.players.claimed_at(gid), mapping={"0": "1", "1": "1"})
    t_ann, _ = targets.add("ann", "webhook", "http://127.0.0.1:9/a")
    t_bob, _ = targets.add("bob", "webhook", "http://127.0.0.1:9/b")
    n.step()
    assert queued == []
    # Seat 0 moves: seat 1 is prompted after its claim, and told.
    cid = str(uuid.uuid4())
    store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": 0, "expect": None})
    answer = CommandHandler(store).handle(gid, cid)
    assert answer is not None and answer["status"] == "accepted", answer
    n.step()
    assert [(j[0].seat, j[1], j[2]) for j in queued] == [(1, "bob", t_bob.id)]
    assert t_ann.id not in {j[2] for j in queued}


def test_of_notices_held_for_a_digest_at_once_one_schedules_the_mail(store: EventStore) -> None:
    # Notify threads hold a burst's notices at the same moment: two that both saw an empty
    # digest scheduled two mails of the same notices (the suite saw it once).
    targets = TargetStore(store.r, store.ns)
    t, _ = targets.add("ann", "email", "ann@example.org", digest_mail=True)
    start = threading.Barrier(8)
    told: list[bool] = []

    def hold(i: int) -> None:
        start.wait()
        told.append(targets.hold_for_digest(f"g:{i}:ann:{t.id}", t, {"key": f"g:{i}:ann:{t.id}", "seq": i}))

    threads = [threading.Thread(target=hold, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(told) == [False] * 7 + [True]
    assert len(targets.digest_entries(t)) == 8
    assert targets.hold_for_digest("g:0:ann:" + t.id, t, {"key": "again"}) is False  # once a notice
    assert len(targets.digest_entries(t)) == 8

