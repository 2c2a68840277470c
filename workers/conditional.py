"""The worker's port to the seats' conditional moves: after each accepted command, the queued
answer due now (events.domain.queued chooses it), taken from the seat's private queue first.

The automatic rules (events.domain.platform AUTOMATIC) are pure on the match and cannot read a
seat's private queue, so the command handler asks this port, an I/O step, once none of them is
due. An entry is taken (compare-and-set on the queue's version) before its command is appended:
a worker killed between the two loses that queued answer (the seat plays by hand, told by its
turn notice) rather than ever playing it twice; an append that loses a race puts it back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import structlog

from events.domain.match import COMMAND_ACCEPTED, Match, command_of
from events.domain.queued import QUEUED_PART, entries_of, pick, seen_notation
from events.redisstore.private import SeatPrivate, SeatQueue
from events.redisstore.store import EventStore
from rules.core import Command

log = structlog.get_logger("boardlog.worker")

_WINDOW = 64


@dataclass(frozen=True)
class Due:
    part: str  # the automatic command id's part: `auto-<seq>-queued-<seat>` says it was queued
    command: Command
    undo: Callable[[], None]  # put the entry back (the append did not happen)


class QueuedAnswers:
    def __init__(self, store: EventStore, private: SeatPrivate | None = None) -> None:
        self.store = store
        self.private = private or SeatPrivate(store)

    def due(self, gid: str, match: Match) -> Due | None:
        prompt = match.prompt
        if prompt is None:
            return None
        seats = list(prompt.seats)
        for seat, queue in zip(seats, self.private.queues(gid, seats), strict=True):
            if not queue.entries:
                continue
            found = self._take(gid, match, seat, queue)
            if found is not None:
                return found
        return None

    def _take(self, gid: str, match: Match, seat: int, queue: SeatQueue) -> Due | None:
        moved, last = self._last_other(gid, match, seat)
        if moved <= queue.since:
            # No game command since the seat set its queue (only chat, say): the prompt it has
            # now came before the queue, which waits for the next one.
            return None
        chosen = pick(match, seat, entries_of(queue.entries), last)
        if chosen is None:
            dropped = {"seq": match.seq, "last": last, "entries": queue.entries,
                       "reason": "no queued answer fitted this prompt (its guards named other commands, "
                       "or its commands were not legal here), so the queue was dropped"}
            if self.private.put(gid, seat, [], dropped, ver=queue.ver) is not None:
                log.info("queue.dropped", game=gid, seat=seat, seq=match.seq, entries=len(queue.entries))
            return None
        i, command = chosen
        ver = self.private.put(gid, seat, queue.entries[i + 1:], queue.dropped, ver=queue.ver, since=queue.since)
        if ver is None:
            return None  # the seat changed its queue meanwhile: the next command looks again

        def undo() -> None:
            self.private.put(gid, seat, queue.entries, queue.dropped, ver=ver, since=queue.since)

        log.info("queue.taken", game=gid, seat=seat, seq=match.seq, entry=i)
        return Due(f"{QUEUED_PART.strip('-')}-{seat}", command, undo)

    def _last_other(self, gid: str, match: Match, seat: int) -> tuple[int, str | None]:
        """The seq of the last game command (whoever sent it: what moves prompts; 0 if none), and
        the last game command another seat made since `seat`'s own last one, in notation as
        `seat` saw it (None: none since, or its details hidden from `seat`)."""
        end = match.seq
        while end >= 1:
            start = max(1, end - _WINDOW + 1)
            for env in reversed(self.store.read(gid, start, end)):
                if env.type != COMMAND_ACCEPTED or str(env.data.get("type", "")).startswith("boardlog."):
                    continue  # chat, resignations and other platform commands answer nothing
                if env.seat == seat or env.seat is None:
                    return env.seq, None
                return env.seq, seen_notation(match.rules, command_of(env.event), seat)
            end = start - 1
        return 0, None
