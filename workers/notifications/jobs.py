"""The notify jobs: dramatiq actors that send one notice to one target, once.

`notify(notice, player, target)` leases the notice's idempotency key, sends, and marks it sent;
a notice already marked is skipped, and one whose lease another send holds is retried later (it
finds the mark then). A failed send records the target's last error and raises, so dramatiq's
Retries tries again with backoff; when the tries are spent, `notify_gave_up` writes the notice
to the player's dead letters and the target shows as failing on their page. A notice is sent
twice only if a worker dies between the receiver's answer and the mark: the webhook's
`webhook-id` and the mail's `X-Boardlog-Notice` carry the key, so a receiver can drop that one,
and the second send says it is a repeat (an Apprise message ends with the notice's short id).

Order: one send at a time per game, player and target, and a notice older than one already sent
there is dropped as superseded (service/stores/notice_sends.py). After a crash, `Keeper` puts the
notices a dead notify process had fetched back on the queue within seconds.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import dramatiq
import structlog
from dramatiq.middleware import CurrentMessage

from events.store.errors import StoreUnavailable
from service.stores.notice_sends import ALIVE_MS, DeadConsumers, SendLedger
from service.stores.notifications import Target, TargetStore
from service.usecases.notifications.channels import (
    SendFailed,
    digest_mail,
    masked,
    notice_mail,
    notice_tag,
    send_apprise,
    send_mail,
    send_webhook,
    webhook_client,
)
from service.usecases.notifications.config import NotifyConfig
from service.usecases.notifications.egress import refused
from service.usecases.notifications.notices import Notice
from workers.notifications.play import reply_address

if TYPE_CHECKING:
    import httpx

log = structlog.get_logger("boardlog.notify")

NOTIFY_QUEUE = "notify"
NOTIFY = "notify"
DIGEST = "notify_digest"
GAVE_UP = "notify_gave_up"


# Notices that may go out after newer ones: a dispute's reminder, delayed by design (it checks
# that its dispute is still open instead).
UNORDERED = ("dispute_reminder",)

# The notices a mail reply answers: a turn and its reminder (with a move), a dispute for the
# referee (with a ruling).
REPLIED = ("turn", "reminder", "dispute", "dispute_reminder")


def reply_context(notice: Notice, t: Target) -> dict[str, Any]:
    """What a notice's reply token is bound to: the seat's turn at its seq (reply to play), or
    the dispute the referee is asked to rule on (reply to rule)."""
    bound = {"game": notice.game, "seq": notice.seq, "player": t.player, "address": t.address}
    if notice.kind in ("turn", "reminder"):
        return {**bound, "seat": notice.seat}
    return {**bound, "rule": notice.dispute}


def _latency(at: str, now: float) -> float:
    return max(0.0, now - datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp())


class Sender:
    """What the jobs do, without dramatiq: send a notice, a digest, or give up on one."""

    def __init__(self, targets: TargetStore, cfg: NotifyConfig,
                 schedule_digest: Callable[[str, str, int], object], clock: Callable[[], float] = time.time,
                 again: Callable[[Notice, str, str, int], object] | None = None,
                 open_dispute: Callable[[str], int | None] | None = None) -> None:
        self.targets = targets
        # The seq of a game's open dispute (None: none open), read before a dispute's reminder
        # is sent: a dispute settled since needs none. Without it, every reminder is sent.
        self.open_dispute = open_dispute
        self.cfg = cfg
        self.schedule_digest = schedule_digest
        self.again = again or (lambda *_: None)
        # A send's lease outlives its timeout (a worker still sending holds it) but not by much
        # (a worker killed mid-send frees it soon).
        self.lease_ms = int((cfg.timeout * 2 + 5) * 1000)
        self._http: httpx.Client | None = None  # made on the first webhook
        self.clock = clock
        self.holder = f"{os.getpid()}"
        self.ledger = SendLedger(targets)
        self.process: str | None = None  # set by a Keeper, which keeps this process's alive mark

    def notify(self, notice: Notice, pid: str, tid: str, holder: str | None = None) -> str:
        """Send `notice` to the player's target; what happened (sent, skipped, held, busy, gone).
        `holder` names this try's message, so a redelivery of it takes over its own lease."""
        t = self.targets.target(pid, tid)
        key = notice.key(pid, tid)
        if t is None:
            log.info("notice.skipped", game=notice.game, seq=notice.seq, player=pid, target=tid, why="target removed")
            return "gone"
        if notice.choice not in t.events:
            return "skipped"
        if notice.deadline:  # a reminder's or a turn's: told on the player's own clock
            notice = notice.in_zone(self.targets.quiet(pid).tz)
        if notice.kind == "dispute_reminder" and self.open_dispute is not None \
                and self.open_dispute(notice.game) != notice.dispute:
            log.info("notice.skipped", game=notice.game, seq=notice.seq, player=pid, target=tid, why="ruled")
            return "skipped"
        if t.kind == "atom":
            entry = {**notice.to_json(), "key": key, "title": notice.subject(), "body": notice.text(self.cfg.public_url)}
            added = self.targets.feed_once(key, t, entry, _latency(notice.at, self.clock()))
            log.info("notice.sent" if added else "notice.skipped", game=notice.game, seq=notice.seq, player=pid,
                     channel="atom")
            return "sent" if added else "skipped"
        if t.kind == "email" and t.digest:
            if self.targets.hold_for_digest(key, t, {**notice.to_json(), "key": key}):
                self.schedule_digest(pid, tid, int(self.cfg.digest_seconds * 1000))
            log.info("notice.held_for_digest", game=notice.game, seq=notice.seq, player=pid, channel="email")
            return "held"
        return self._leased_send(t, notice, pid, tid, key, self._holder(holder))

    def _holder(self, message: str | None) -> str:
        """Who sends: this message, in this process when a keeper vouches it is alive (a lease
        of a dead process is then free at once)."""
        if self.process is None:
            return message or self.holder
        return f"{self.process}|{message or uuid.uuid4().hex}"

    def _leased_send(self, t: Target, notice: Notice, pid: str, tid: str, key: str, me: str) -> str:
        lane = f"{notice.game}:{pid}:{tid}"
        got = self.ledger.lease(key, lane, notice.seq, me, self.lease_ms, notice.kind not in UNORDERED)
        if got.state == "sent":
            return "skipped"
        if got.state == "superseded":
            # A newer notice of this game went (or goes) to this target first: this one would
            # arrive after it, stale.
            self.targets.count("superseded", t.kind)
            log.info("notice.superseded", game=notice.game, seq=notice.seq, player=pid, channel=t.kind,
                     newer=got.newest)
            return "superseded"
        if got.state == "busy":
            # Another send of this notice, or of another in its lane, is under way: look again
            # soon, without spending a retry; a lease of a dead process is free by then.
            wait = max(100, min(got.wait_ms, 1000) + 100)
            self.again(notice, pid, tid, wait)
            log.info("notice.busy", game=notice.game, seq=notice.seq, player=pid, channel=t.kind, retry_ms=wait)
            return "busy"
        try:
            self._send(t, notice, key, got.repeat)
        except SendFailed as e:
            self.targets.failed(key, t, t.kind, str(e))
            self.ledger.release(key, lane, me, ended=True)  # refused: the next try is no repeat
            log.warning("notice.failed", game=notice.game, seq=notice.seq, player=pid, channel=t.kind,
                        to=masked(t.address), error=str(e))
            raise
        except BaseException:
            self.targets.release(key)
            self.ledger.release(key, lane, me, ended=False)  # it may have gone: a next send repeats
            raise
        latency = _latency(notice.at, self.clock())
        # The receiver has it: a Redis out of reach now waits for the mark alone. Retrying the
        # whole job (its lease is this message's own) would send it again.
        holding(lambda: self.targets.mark_sent(key, t, t.kind, latency))
        holding(lambda: self.ledger.release(key, lane, me, ended=True))
        if got.repeat:
            self.targets.count("repeated", t.kind)
        log.info("notice.sent", game=notice.game, seq=notice.seq, player=pid, channel=t.kind,
                 to=masked(t.address), latency_ms=round(latency * 1000, 1), repeat=got.repeat or None)
        return "sent"

    def send_test(self, t: Target, notice: Notice, key: str) -> None:
        """A test notice to `t` now, asked for by its player: no lease, no digest, no quiet
        hours; marked sent (an Atom target: added to its feed) under `key`. Raises `SendFailed`."""
        if t.kind == "atom":
            entry = {**notice.to_json(), "key": key, "title": "boardlog: a test notice", "body": "A test notice."}
            self.targets.feed_once(key, t, entry, None)
            return
        self._send(t, notice, key)
        self.targets.mark_sent(key, t, t.kind, None)

    def _send(self, t: Target, notice: Notice, key: str, repeat: bool = False) -> None:
        if t.kind == "email":
            reply_to = None
            if self.cfg.reply_domain and notice.game != "test" and notice.kind in REPLIED:
                reply_to = reply_address(self.targets.reply_token(reply_context(notice, t)), self.cfg.reply_domain)
            msg = notice_mail(self.cfg.mail, notice, t.address, self.cfg.public_url, self.cfg.unsubscribe_url(t),
                              key, reply_to)
            if repeat:  # the same Message-ID as the first: a mail client shows one of the two
                msg["X-Boardlog-Repeat"] = "yes"
            send_mail(self.cfg.mail, msg)
        elif t.kind in ("apprise", "webhook"):
            with self.cfg.egress.guarded():  # the player's URL: never an internal address
                try:
                    self._send_to_url(t, notice, key, repeat)
                except SendFailed:
                    why = refused()
                    if why is not None:
                        raise SendFailed(why) from None
                    raise
        else:
            raise SendFailed(f"no channel {t.kind!r}")

    def _send_to_url(self, t: Target, notice: Notice, key: str, repeat: bool = False) -> None:
        if t.kind == "apprise":
            # Its id at the end: a chat has no Message-ID, so its reader drops a repeat by this.
            send_apprise(t.address, notice.subject(), notice.text(self.cfg.public_url) + notice_tag(key, repeat))
            return
        if self._http is None:
            self._http = webhook_client(self.cfg.timeout)
        send_webhook(self._http, t.address, t.secret, key, notice.payload(self.cfg.public_url, key),
                     self.cfg.timeout)

    def digest(self, pid: str, tid: str) -> int:
        """Mail the target's digest (the notices held for it); how many it held."""
        t = self.targets.target(pid, tid)
        if t is None:
            return 0
        entries = self.targets.digest_entries(t)
        if not entries:
            return 0
        tz = self.targets.quiet(pid).tz
        notices = [Notice.from_json({k: v for k, v in e.items() if k != "key"}).in_zone(tz) for e in entries]
        key = f"digest:{entries[0]['key']}"
        try:
            send_mail(self.cfg.mail, digest_mail(self.cfg.mail, notices, t.address, self.cfg.public_url,
                                                 self.cfg.unsubscribe_url(t), key))
        except SendFailed as e:
            self.targets.failed(key, t, "email", str(e))
            log.warning("digest.failed", player=pid, channel="email", to=masked(t.address), error=str(e))
            raise
        latency = _latency(notices[0].at, self.clock())
        holding(lambda: self.targets.digest_sent(t, len(entries), latency))  # mailed: wait to mark it, not to mail again
        log.info("digest.sent", player=pid, channel="email", to=masked(t.address), notices=len(entries))
        return len(entries)

    def gave_up(self, message: dict[str, Any], retry_info: dict[str, Any]) -> None:
        args = message["args"]
        pid, tid = args[1], args[2]
        key = Notice.from_json(args[0]).key(pid, tid) if message["actor_name"] == NOTIFY else f"digest:{pid}:{tid}"
        t = self.targets.target(pid, tid)
        channel = t.kind if t is not None else "unknown"
        tries = int(retry_info.get("retries", 0)) + 1
        self.targets.dead_letter(key, pid, tid, channel, tries)
        log.error("notice.dead_letter", player=pid, target=tid, channel=channel, tries=tries)


@dataclass(frozen=True, slots=True)
class NotifyActors:
    notify: dramatiq.Actor
    digest: dramatiq.Actor

    def enqueue(self, notice: Notice, pid: str, tid: str, delay_ms: int = 0) -> Any:
        return self.notify.send_with_options(args=(notice.to_json(), pid, tid), delay=delay_ms or None)


def holding(call: Callable[[], object], stop_wait: float = 30.0) -> None:
    """Run `call`, waiting (bounded) for a Redis out of reach instead of spending a retry."""
    pause, deadline = 0.05, time.monotonic() + stop_wait
    while True:
        try:
            call()
            return
        except StoreUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(1.0, pause * 2)


class Keeper:
    """Keeps this notify process's alive mark, and puts back on the queue the notify messages a
    dead notify process had fetched (dramatiq's Redis broker only does after its heartbeat
    timeout, on a chance), so every due notice goes out seconds after the service is back."""

    EVERY = 1.0

    def __init__(self, sender: Sender, broker: dramatiq.Broker, queues: tuple[str, ...]) -> None:
        self.sender = sender
        self.ledger = sender.ledger
        self.broker_id: str | None = getattr(broker, "broker_id", None)
        client, namespace = getattr(broker, "client", None), getattr(broker, "namespace", None)
        # RabbitMQ gives a dead consumer's messages back itself: only the Redis broker's are taken.
        self.dead = DeadConsumers(client, namespace) if client is not None and namespace else None
        self.queues = queues
        sender.process = uuid.uuid4().hex[:16]

    def beat(self) -> int:
        """Say this process is alive; how many messages of dead ones went back on the queue."""
        assert self.sender.process is not None
        self.ledger.alive(self.sender.process, self.broker_id, ALIVE_MS)
        if self.dead is None or self.broker_id is None:
            return 0
        n = 0
        for gone in self.ledger.dead_holders(self.broker_id):
            back = self.dead.requeue(gone, self.queues)
            self.ledger.forget_holder(gone)
            log.info("notify.recovered", holder=gone, messages=back)
            n += back
        return n

    def start(self) -> Keeper:
        def run() -> None:
            while True:
                try:
                    self.beat()
                except Exception as e:  # Redis away: the next beat tries again
                    log.warning("notify.keeper_failed", error=str(e)[:200])
                time.sleep(self.EVERY)

        threading.Thread(target=run, name="notify-keeper", daemon=True).start()
        return self


def declare_notify(broker: dramatiq.Broker, sender: Sender | None, cfg: NotifyConfig,
                   keep: bool = True) -> NotifyActors:
    """Declare the notify actors on `broker`; `sender` is None in processes that only enqueue.
    A process that sends runs a `Keeper` (`keep` False: a test's, which beats it itself)."""

    def need() -> Sender:
        if sender is None:
            raise RuntimeError("this process only enqueues notices")
        return sender

    def notify(notice: dict[str, Any], pid: str, tid: str) -> None:
        current = CurrentMessage.get_current_message()
        holder = current.message_id if current is not None else None
        holding(lambda: need().notify(Notice.from_json(notice), pid, tid, holder))

    def notify_digest(pid: str, tid: str) -> None:
        holding(lambda: need().digest(pid, tid))

    def notify_gave_up(message: dict[str, Any], retry_info: dict[str, Any]) -> None:
        holding(lambda: need().gave_up(message, retry_info))

    if not any(isinstance(m, CurrentMessage) for m in broker.middleware):
        broker.add_middleware(CurrentMessage())  # the notify job's lease names its message
    retry = {"max_retries": cfg.max_retries, "min_backoff": cfg.min_backoff_ms, "max_backoff": cfg.max_backoff_ms,
             "on_retry_exhausted": GAVE_UP}
    dramatiq.Actor(notify_gave_up, broker=broker, actor_name=GAVE_UP, queue_name=NOTIFY_QUEUE, priority=0, options={})
    n = dramatiq.Actor(notify, broker=broker, actor_name=NOTIFY, queue_name=NOTIFY_QUEUE, priority=0, options=retry)
    d = dramatiq.Actor(notify_digest, broker=broker, actor_name=DIGEST, queue_name=NOTIFY_QUEUE, priority=0,
                       options=retry)
    if sender is not None and keep:
        Keeper(sender, broker, (n.queue_name, f"{n.queue_name}.DQ")).start()
    return NotifyActors(n, d)
