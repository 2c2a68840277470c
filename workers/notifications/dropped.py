"""Telling a seat that its queue of conditional moves was dropped.

The drop is the command worker's (workers/conditional.py): it writes it to the seat's private
key, which the notifier, following the game's feed, may read before or after it is there. So
the worker itself queues the notify jobs, right after the drop is written, for the player
holding that seat only (its targets, its quiet hours), under the notice's own idempotency key
(`game:seq:player:target:dropped`): the feed, the log and every other seat or spectator never
hear of it. The jobs are the notifier's `notify` actor's messages on its own queue, sent by
name: the worker process runs no notify job and needs no mail or webhook settings.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import dramatiq

from events.domain.match import Match
from service.stores.notifications import TargetStore
from service.usecases.notifications.notices import Notice
from workers.notifications.follower import Enqueue, queue_notices
from workers.notifications.jobs import NOTIFY, NOTIFY_QUEUE

# What the stored drop's `cause` says, in a notice's words.
CAUSES = {
    "no_fit": "none of its answers fitted this turn",
    "takeback": "a takeback undid the moves it was planned after",
}


def notify_message(notice: Notice, pid: str, tid: str) -> dramatiq.Message[None]:
    """The notify job for one notice and target, as the notifier's `notify` actor takes it."""
    return dramatiq.Message(queue_name=NOTIFY_QUEUE, actor_name=NOTIFY, args=(notice.to_json(), pid, tid),
                            kwargs={}, options={})


def broker_enqueue(broker: dramatiq.Broker) -> Enqueue:
    def enqueue(notice: Notice, pid: str, tid: str, delay_ms: int) -> object:
        return broker.enqueue(notify_message(notice, pid, tid), delay=delay_ms or None)

    return enqueue


def drop_notice(match: Match, seat: int, dropped: dict[str, Any], at: str) -> Notice:
    """The notice of a dropped queue for `seat`, at the seq the drop names."""
    names = [s.name for s in match.seats]
    why = CAUSES.get(str(dropped.get("cause")), "it no longer fitted the game")
    last, who = dropped.get("last"), dropped.get("by")
    words = ""
    if isinstance(last, str) and last:
        words = f"{names[who]}: {last}" if isinstance(who, int) and 0 <= who < len(names) else last
    return Notice(match.gid, match.game, int(dropped.get("seq") or match.seq), seat,
                  names[seat] if 0 <= seat < len(names) else f"seat {seat}", "dropped", why, words, at)


class DropNotices:
    """The worker's teller: one notice per target of the player holding the seat, if any."""

    def __init__(self, targets: TargetStore, enqueue: Enqueue, clock: Callable[[], float] = time.time) -> None:
        self.targets = targets
        self.enqueue = enqueue
        self.clock = clock

    def tell(self, gid: str, match: Match, seat: int, dropped: dict[str, Any], at: str) -> int:
        """How many notify jobs were queued (0: the seat is nobody's, or its player has no
        target for turns)."""
        pid = self.targets.claims(gid).get(seat)
        if pid is None:
            return 0
        notice = drop_notice(match, seat, dropped, at)
        return queue_notices(self.targets, self.enqueue, self.clock(), [notice], {seat: pid},
                             self.targets.targets_of([pid]))
