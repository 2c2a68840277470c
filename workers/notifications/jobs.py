"""The notify jobs: dramatiq actors that send one notice to one target, once.

`notify(notice, player, target)` leases the notice's idempotency key, sends, and marks it sent;
a notice already marked is skipped, and one whose lease another send holds is retried later (it
finds the mark then). A failed send records the target's last error and raises, so dramatiq's
Retries tries again with backoff; when the tries are spent, `notify_gave_up` writes the notice
to the player's dead letters and the target shows as failing on their page. A notice is sent
twice only if a worker dies between the receiver's answer and the mark: the webhook's
`webhook-id` and the mail's `X-Boardlog-Notice` carry the key, so a receiver can drop that one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import dramatiq
import structlog
from dramatiq.middleware import CurrentMessage

from events.store.errors import StoreUnavailable
from service.stores.notifications import Target, TargetStore
from service.usecases.notifications.channels import (
    SendFailed,
    digest_mail,
    masked,
    notice_mail,
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
        got, busy_ms = self.targets.lease(key, holder or self.holder, self.lease_ms)
        if got == "sent":
            return "skipped"
        if got == "busy":
            # Another job (a duplicate queued by a restarted notifier) is sending it: look again
            # once its lease ends, without spending a retry; it is marked sent by then, or free.
            self.again(notice, pid, tid, max(100, busy_ms + 100))
            log.info("notice.busy", game=notice.game, seq=notice.seq, player=pid, channel=t.kind, retry_ms=busy_ms)
            return "busy"
        try:
            self._send(t, notice, key)
        except SendFailed as e:
            self.targets.failed(key, t, t.kind, str(e))
            log.warning("notice.failed", game=notice.game, seq=notice.seq, player=pid, channel=t.kind,
                        to=masked(t.address), error=str(e))
            raise
        except BaseException:
            self.targets.release(key)
            raise
        latency = _latency(notice.at, self.clock())
        # The receiver has it: a Redis out of reach now waits for the mark alone. Retrying the
        # whole job (its lease is this message's own) would send it again.
        holding(lambda: self.targets.mark_sent(key, t, t.kind, latency))
        log.info("notice.sent", game=notice.game, seq=notice.seq, player=pid, channel=t.kind,
                 to=masked(t.address), latency_ms=round(latency * 1000, 1))
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

    def _send(self, t: Target, notice: Notice, key: str) -> None:
        if t.kind == "email":
            reply_to = None
            if self.cfg.reply_domain and notice.game != "test" and notice.kind in REPLIED:
                reply_to = reply_address(self.targets.reply_token(reply_context(notice, t)), self.cfg.reply_domain)
            send_mail(self.cfg.mail, notice_mail(self.cfg.mail, notice, t.address, self.cfg.public_url,
                                                 self.cfg.unsubscribe_url(t), key, reply_to))
        elif t.kind in ("apprise", "webhook"):
            with self.cfg.egress.guarded():  # the player's URL: never an internal address
                try:
                    self._send_to_url(t, notice, key)
                except SendFailed:
                    why = refused()
                    if why is not None:
                        raise SendFailed(why) from None
                    raise
        else:
            raise SendFailed(f"no channel {t.kind!r}")

    def _send_to_url(self, t: Target, notice: Notice, key: str) -> None:
        if t.kind == "apprise":
            send_apprise(t.address, notice.subject(), notice.text(self.cfg.public_url))
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


def declare_notify(broker: dramatiq.Broker, sender: Sender | None, cfg: NotifyConfig) -> NotifyActors:
    """Declare the notify actors on `broker`; `sender` is None in processes that only enqueue."""

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
    return NotifyActors(n, d)
