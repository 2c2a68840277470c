"""The worker's port to the seats' conditional moves: after each accepted command, the queued
answer due now (events.domain.queued chooses it), taken from the seat's private queue first.

The automatic rules (events.domain.platform AUTOMATIC) are pure on the match and cannot read a
seat's private queue, so the command handler asks this port, an I/O step, once none of them is
due. An entry is taken (compare-and-set on the queue's version) before its command is appended:
a worker killed between the two loses that queued answer (the seat plays by hand, told by its
turn notice) rather than ever playing it twice; an append that loses a race puts it back.

A queue dropped is told to its seat through `tell` (workers/notifications/dropped.py queues the notify
jobs), right after the drop is written; the drop is stored `told: false` until then, so a worker
killed between the two tells it on the next look (a redelivery), and the notice's idempotency key
sends it once. A TakenBack voids the queues it undid the ground of (events.domain.queued
void_reason), every seat's, not only the prompted ones, and guards read only commands in force.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from events.domain.match import COMMAND_ACCEPTED, Match, command_of
from events.domain.platform.conduct import conduct_of
from events.domain.queued import QUEUED_PART, entries_of, in_force, pick, seen_notation, void_reason
from events.domain.wallclock import utcnow
from events.store.private import SeatPrivate, SeatQueue
from events.store.store import EventStore
from rules.core import Command

log = structlog.get_logger("boardlog.worker")

_WINDOW = 64

# Tell a seat its queue was dropped: (game, match, seat, the stored drop, when).
Tell = Callable[[str, Match, int, dict[str, Any], str], object]


@dataclass(frozen=True)
class Due:
    part: str  # the automatic command id's part: `auto-<seq>-queued-<seat>` says it was queued
    command: Command
    undo: Callable[[], None]  # put the entry back (the append did not happen)


class QueuedAnswers:
    def __init__(self, store: EventStore, private: SeatPrivate | None = None, tell: Tell | None = None) -> None:
        self.store = store
        self.private = private or SeatPrivate(store)
        self.tell = tell

    def due(self, gid: str, match: Match) -> Due | None:
        prompt = match.prompt
        if prompt is None:
            return None
        seats = list(prompt.seats)
        # After a takeback every seat's queue is looked at (one read either way): a queue it voided
        # is dropped and told now, not when that seat's turn comes.
        looked = list(range(len(match.seats))) if conduct_of(match).undone else seats
        for seat, queue in zip(looked, self.private.queues(gid, looked), strict=True):
            if not queue.entries:
                if queue.dropped is not None and queue.dropped.get("told") is False:
                    self._told(gid, match, seat, queue.ver, queue.dropped)  # a worker died before telling
                continue
            why = void_reason(match, queue.since, queue.played)
            if why is not None:
                self._drop(gid, match, seat, queue, {"seq": match.seq, "last": None, "by": None,
                                                      "entries": queue.entries, "reason": why, "cause": "takeback"})
                continue
            if seat not in seats:
                continue
            found = self._take(gid, match, seat, queue)
            if found is not None:
                return found
        return None

    def _drop(self, gid: str, match: Match, seat: int, queue: SeatQueue, dropped: dict[str, Any]) -> None:
        dropped = {**dropped, "told": self.tell is None}
        ver = self.private.put(gid, seat, [], dropped, ver=queue.ver)
        if ver is None:
            return  # the seat changed its queue meanwhile: the next command looks again
        log.info("queue.dropped", game=gid, seat=seat, seq=match.seq, entries=len(queue.entries),
                 cause=dropped.get("cause"))
        self._told(gid, match, seat, ver, dropped)

    def _told(self, gid: str, match: Match, seat: int, ver: int, dropped: dict[str, Any]) -> None:
        if self.tell is None:
            return
        self.tell(gid, match, seat, dropped, utcnow())
        self.private.put(gid, seat, [], {**dropped, "told": True}, ver=ver)  # lost to a new queue: fine

    def _take(self, gid: str, match: Match, seat: int, queue: SeatQueue) -> Due | None:
        moved, last, by = self._last_other(gid, match, seat)
        if moved <= queue.since:
            # No game command since the seat set its queue (only chat, say): the prompt it has
            # now came before the queue, which waits for the next one.
            return None
        chosen = pick(match, seat, entries_of(queue.entries), last)
        if chosen is None:
            self._drop(gid, match, seat, queue, {
                "seq": match.seq, "last": last, "by": by, "entries": queue.entries, "cause": "no_fit",
                "reason": "no queued answer fitted this prompt (its guards named other commands, "
                          "or its commands were not legal here), so the queue was dropped"})
            return None
        i, command = chosen
        # Its command's first seq, if the append goes through (undo puts the queue back if not).
        played = [*queue.played, match.seq + 1]
        ver = self.private.put(gid, seat, queue.entries[i + 1:], queue.dropped, ver=queue.ver, since=queue.since,
                               played=played)
        if ver is None:
            return None  # the seat changed its queue meanwhile: the next command looks again

        def undo() -> None:
            self.private.put(gid, seat, queue.entries, queue.dropped, ver=ver, since=queue.since,
                             played=queue.played)

        log.info("queue.taken", game=gid, seat=seat, seq=match.seq, entry=i)
        return Due(f"{QUEUED_PART.strip('-')}-{seat}", command, undo)

    def _last_other(self, gid: str, match: Match, seat: int) -> tuple[int, str | None, int | None]:
        """The seq of the last game command in force (whoever sent it: what moves prompts; 0 if
        none), and the last game command in force another seat made since `seat`'s own last
        one, in notation as `seat` saw it (None: none since, or its details hidden from `seat`),
        with that seat. A command a takeback undid is no longer there to answer."""
        end = match.seq
        while end >= 1:
            start = max(1, end - _WINDOW + 1)
            for env in reversed(self.store.read(gid, start, end)):
                if env.type != COMMAND_ACCEPTED or str(env.data.get("type", "")).startswith("boardlog."):
                    continue  # chat, resignations and other platform commands answer nothing
                if not in_force(match, env.seq):
                    continue
                if env.seat == seat or env.seat is None:
                    return env.seq, None, None
                return env.seq, seen_notation(match.rules, command_of(env.event), seat), env.seat
            end = start - 1
        return 0, None, None
