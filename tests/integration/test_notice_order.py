"""Notices in order, once (issue #36 item 5), on a real Redis and a real Apprise to a local HTTP
receiver: a notice older than one already sent to the same target is dropped as superseded and
counted; every Apprise message ends with its notice's short id; a send a dead process began and
never marked goes once more, named a repeat; a lease of a live process is waited for, one of a dead
process is not; and the keeper puts a dead notify process's fetched messages back on the queue."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
import redis

from events.store.store import EventStore
from service.api.metrics import NoticeCollector
from service.stores.notice_sends import SendLedger
from service.stores.notifications import TargetStore
from service.usecases.notifications.config import NotifyConfig
from service.usecases.notifications.egress import Egress, networks
from service.usecases.notifications.notices import Notice
from tests.support.receivers import Web
from workers.broker import make_broker
from workers.notifications.jobs import NOTIFY_QUEUE, Keeper, Sender, declare_notify

pytestmark = pytest.mark.integration


def _notice(game: str, seq: int, kind: str = "turn") -> Notice:
    return Notice(game, "rite", seq, 0, "ann", kind, "take an action", "bob: pass", datetime.now(UTC).isoformat())


def _sender(targets: TargetStore, again: list[tuple[Any, ...]] | None = None) -> Sender:
    cfg = NotifyConfig(timeout=2, egress=Egress(networks(["127.0.0.0/8"])))
    return Sender(targets, cfg, lambda *_: None, again=lambda *a: (again if again is not None else []).append(a))


def _chat(targets: TargetStore, web: Web) -> tuple[str, str, str]:
    """A player with an Apprise target posting to the receiver: (player, target id, path)."""
    pid = f"p-{uuid.uuid4().hex[:8]}"
    path = f"/chat/{pid}"
    t, _ = targets.add(pid, "apprise", f"json://127.0.0.1:{web.port}{path}")
    return pid, t.id, path


def _said(web: Web, path: str) -> list[str]:
    return [str(orjson.loads(h.body)["message"]) for h in web.at(path)]


def _short(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:10]


def test_a_notice_older_than_one_sent_to_the_target_is_dropped_as_superseded_and_counted(
        store: EventStore, web: Web) -> None:
    targets = TargetStore(store.r, store.ns)
    pid, tid, path = _chat(targets, web)
    sender = _sender(targets)
    game = f"g-{uuid.uuid4().hex[:6]}"
    assert sender.notify(_notice(game, 12), pid, tid, "m-12") == "sent"
    # The turn of seq 10 comes late (redelivered after a crash): it would arrive after seq 12's.
    assert sender.notify(_notice(game, 10), pid, tid, "m-10") == "superseded"
    assert len(_said(web, path)) == 1
    assert targets.counters()["superseded|apprise"] == 1
    scraped = {f.name: f for f in NoticeCollector(targets).collect()}
    assert [s.value for s in scraped["boardlog_notices_superseded"].samples
            if s.labels == {"channel": "apprise"} and s.name.endswith("_total")] == [1]
    # Another game's notices have their own order.
    assert sender.notify(_notice(f"{game}x", 3), pid, tid, "m-3") == "sent"


def test_a_disputes_reminder_may_follow_newer_notices(store: EventStore, web: Web) -> None:
    targets = TargetStore(store.r, store.ns)
    pid, tid, _ = _chat(targets, web)
    sender = _sender(targets)
    game = f"g-{uuid.uuid4().hex[:6]}"
    assert sender.notify(_notice(game, 20), pid, tid, "m-20") == "sent"
    assert sender.notify(_notice(game, 14, "dispute_reminder"), pid, tid, "m-14") == "sent"


def test_every_apprise_message_ends_with_its_notice_id(store: EventStore, web: Web) -> None:
    targets = TargetStore(store.r, store.ns)
    pid, tid, path = _chat(targets, web)
    notice = _notice(f"g-{uuid.uuid4().hex[:6]}", 5)
    assert _sender(targets).notify(notice, pid, tid, "m-5") == "sent"
    [said] = _said(web, path)
    assert said.endswith(f"(notice {_short(notice.key(pid, tid))})"), said


def test_a_send_a_dead_process_began_goes_once_more_named_a_repeat(store: EventStore, web: Web) -> None:
    targets = TargetStore(store.r, store.ns)
    pid, tid, path = _chat(targets, web)
    notice = _notice(f"g-{uuid.uuid4().hex[:6]}", 7)
    key = notice.key(pid, tid)
    # A process began the send (its record before) and was killed: its alive mark is gone.
    ledger = SendLedger(targets)
    assert ledger.lease(key, f"{notice.game}:{pid}:{tid}", 7, "deadproc|m-7", 60_000).state == "leased"
    sender = _sender(targets)
    sender.process = "liveproc"
    ledger.alive("liveproc", None)
    assert sender.notify(notice, pid, tid, "m-7") == "sent"  # at once: no lease of the dead to wait out
    [said] = _said(web, path)
    assert said.endswith(f"(notice {_short(key)}, a repeat)"), said
    assert targets.counters()["repeated|apprise"] == 1
    assert sender.notify(notice, pid, tid, "m-7") == "skipped"  # marked: never a third
    assert len(_said(web, path)) == 1


def test_a_send_the_receiver_refused_is_no_repeat_when_tried_again(store: EventStore, web: Web) -> None:
    targets = TargetStore(store.r, store.ns)
    pid, tid, path = _chat(targets, web)
    notice = _notice(f"g-{uuid.uuid4().hex[:6]}", 4)
    sender = _sender(targets)
    web.fail[path] = 1
    with pytest.raises(Exception, match="Apprise"):
        sender.notify(notice, pid, tid, "m-4")
    assert sender.notify(notice, pid, tid, "m-4") == "sent"
    [said] = _said(web, path)
    assert "a repeat" not in said, said


def test_a_newer_notice_waits_while_an_older_one_of_its_lane_is_sent_by_a_live_process(
        store: EventStore, web: Web) -> None:
    targets = TargetStore(store.r, store.ns)
    pid, tid, path = _chat(targets, web)
    game = f"g-{uuid.uuid4().hex[:6]}"
    older, newer = _notice(game, 8), _notice(game, 9)
    ledger = SendLedger(targets)
    ledger.alive("otherproc", None)
    lane = f"{game}:{pid}:{tid}"
    assert ledger.lease(older.key(pid, tid), lane, 8, "otherproc|m-8", 60_000).state == "leased"
    again: list[tuple[Any, ...]] = []
    sender = _sender(targets, again)
    assert sender.notify(newer, pid, tid, "m-9") == "busy"
    assert again and again[0][3] <= 1100  # looked at again within a second, not the lease's minute
    assert _said(web, path) == []
    ledger.release(older.key(pid, tid), lane, "otherproc|m-8", ended=True)
    assert sender.notify(newer, pid, tid, "m-9") == "sent"


def test_a_burst_waiting_behind_a_send_goes_out_as_its_newest_notice(store: EventStore, web: Web) -> None:
    """Found by the chaos soak: with one send a lane at a time, a burst of moves was told one
    notice a second, minutes behind the game. A notice that waits for its lane is the lane's
    newest news: the older ones waiting with it are superseded at their next look."""
    targets = TargetStore(store.r, store.ns)
    pid, tid, path = _chat(targets, web)
    game = f"g-{uuid.uuid4().hex[:6]}"
    ledger = SendLedger(targets)
    ledger.alive("otherproc", None)
    lane = f"{game}:{pid}:{tid}"
    first = _notice(game, 8)
    assert ledger.lease(first.key(pid, tid), lane, 8, "otherproc|m-8", 60_000).state == "leased"
    sender = _sender(targets, [])
    waiting = [_notice(game, s) for s in (9, 10, 11)]
    assert [sender.notify(n, pid, tid, f"m-{n.seq}") for n in waiting] == ["busy"] * 3
    ledger.release(first.key(pid, tid), lane, "otherproc|m-8", ended=True)
    assert [sender.notify(n, pid, tid, f"m-{n.seq}") for n in waiting] == ["superseded", "superseded", "sent"]
    assert len(_said(web, path)) == 1


def test_the_keeper_puts_a_dead_notify_processs_fetched_messages_back_on_the_queue(
        redis_url: str, store: EventStore) -> None:
    targets = TargetStore(store.r, store.ns)
    broker = make_broker(redis_url, namespace=f"{store.ns}-dramatiq")
    sender = _sender(targets)
    actors = declare_notify(broker, sender, NotifyConfig(), keep=False)
    message = actors.enqueue(_notice("g-kept", 3), "p-1", "t-1")
    mid = message.options["redis_message_id"]
    raw = redis.Redis.from_url(redis_url)
    queue = f"{store.ns}-dramatiq:{NOTIFY_QUEUE}"
    # A notify process fetched it (its ack set) and was killed: its alive mark lapsed.
    assert raw.lrem(queue, 0, mid) == 1
    raw.sadd(f"{store.ns}-dramatiq:__acks__.dead-broker.{NOTIFY_QUEUE}", mid)
    raw.hset(f"{store.ns}:{{players}}:notify-holders", "dead-broker", "deadproc")
    keeper = Keeper(sender, broker, (NOTIFY_QUEUE, f"{NOTIFY_QUEUE}.DQ"))
    assert keeper.beat() == 1
    assert [m.decode() for m in raw.lrange(queue, 0, -1)] == [mid]
    assert keeper.beat() == 0  # once
    broker.close()
    raw.close()
