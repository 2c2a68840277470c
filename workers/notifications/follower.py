"""The notifier: follows every partition's feed with its own consumer group, and for each game
that moved, the notices its new steps call for, one dramatiq `notify` job per player and target.

It reacts to the log, never to the HTTP request. Each game has a checkpoint (the last seq whose
notices were queued), written after the jobs are queued and before the feed entries are
acknowledged: a notifier killed at any point queues some jobs again when it (or another) takes
the game up, and each job does nothing for a notice already marked sent (its idempotency key,
per game, seq, player and target). Quiet hours delay a job to the hours' end.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import structlog

from events.domain.match import Match, fold_match
from events.store.follow import Follower
from events.store.store import EventStore
from projections.moves import move_number
from service.stores.notifications import TargetStore
from service.usecases.notifications.notices import (
    REFEREE,
    Notice,
    notices_for,
    referee_move,
    step_groups,
)
from service.usecases.notifications.quiet import held_for_ms
from workers.notifications.history import moves_since

log = structlog.get_logger("boardlog.notifier")

GROUP = "notifier"
CACHE_GAMES = 1024

# A job to queue: the notice, its player, the target's id, and a delay in ms (0: now).
Enqueue = Callable[[Notice, str, str, int], object]


def _ms(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


class Notifier(Follower):
    def __init__(
        self,
        store: EventStore,
        targets: TargetStore,
        enqueue: Enqueue,
        consumer: str | None = None,
        *,
        block_ms: int = 1000,
        claim_idle_ms: int = 10_000,
        batch: int = 200,
        clock: Callable[[], float] = time.time,
        dispute_reminder_ms: int = 0,
    ) -> None:
        # From the feeds' start: what the projector has not trimmed yet is read once; a game
        # older than the notifier's first run is told only its latest step (see catch_up).
        super().__init__(store, GROUP, consumer, name="notifier", log=log,
                         block_ms=block_ms, claim_idle_ms=claim_idle_ms, batch=batch)
        self.targets = targets
        self.enqueue = enqueue
        self.clock = clock
        self._matches: OrderedDict[str, Match] = OrderedDict()
        self._born = 0.0
        # A dispute still unruled this long after it was opened reminds its referee (0: never).
        self.dispute_reminder_ms = dispute_reminder_ms

    def ensure_groups(self) -> None:
        self.feed.ensure()
        self._born = self.targets.born()

    def _match_at(self, gid: str, seq: int) -> Match | None:
        """The match after `seq` events (None for seq 0), from this process's cache or the log."""
        if seq == 0:
            return None
        cached = self._matches.get(gid)
        if cached is not None and cached.seq == seq:
            return cached
        return fold_match((e.event for e in self.store.read(gid, 1, seq)), gid)

    def catch_up(self, gid: str) -> int:
        """Queue the notices of `gid`'s steps after its checkpoint; how many jobs were queued."""
        checkpoint = self.targets.checkpoint(gid)
        tail = self.store.read(gid, 1 if checkpoint is None else checkpoint + 1)
        if not tail:
            return 0
        groups = step_groups(tail)
        before = None if checkpoint is None else self._match_at(gid, checkpoint)
        quiet_start = 0
        if checkpoint is None and tail[0].seq == 1 and _ms(tail[0].at) < self._born:
            # A game older than the notifier: its past turns are history, not news. Fold them
            # and tell only its latest step.
            quiet_start = len(groups) - 1
        claims = self.targets.claims_after(gid)
        referee = self._referee(gid, before if before is not None else fold_match((e.event for e in groups[0]), gid))
        pids = {pid for pid, _ in claims.values()} | ({referee} if referee else set())
        targets = self.targets.targets_of(pids) if pids else {}
        queued = 0
        for i, group in enumerate(groups):
            after = fold_match((e.event for e in group), gid, before)
            # A seat claimed by its link is told of the steps after the one its claimant saw:
            # so whether the game's opening prompt is news does not hang on how soon this runs.
            held = {seat: pid for seat, (pid, seen) in claims.items() if group[0].seq > seen}
            if referee:
                held[REFEREE] = referee
            if i >= quiet_start and held:
                notices = notices_for(before, after, group, self._move_of(gid), self._disputed(gid),
                                      moves_since(self.store, gid))
                queued += self._queue(notices, held, targets)
                queued += self._remind(notices, held, targets)
            before = after
        assert before is not None
        self._remember(gid, before)
        self.targets.set_checkpoint(gid, tail[-1].seq)
        return queued

    def _move_of(self, gid: str) -> Callable[[int], int | None]:
        # Read only when a notice names a move (a takeback asked, a dispute opened): rare, and
        # the move list's numbers need the log from its start.
        return lambda seq: move_number(self.store.read(gid, 1, seq), seq)

    def _disputed(self, gid: str) -> Callable[[int], str]:
        """The disputed move in words as the referee reads it (everything shown): read only
        when a dispute is opened."""

        def words(on: int) -> str:
            envs = self.store.read(gid, 1, on)
            if len(envs) < 2 or envs[-1].seq != on:
                return ""
            before = fold_match((e.event for e in envs[:-1]), gid)
            return referee_move(before, envs[-1])

        return words

    def _referee(self, gid: str, match: Match) -> str | None:
        """Whose targets the game's referee is told on: the player it names (at creation, or who
        claimed the role with the referee token); None for an unrefereed game or a token holder
        no player claimed (they read the board page)."""
        if match.referee is None:
            return None
        return self.store.referee_player(gid)

    def _queue(self, notices: Sequence[Notice], claims: dict[int, str], targets: dict[str, list[Any]]) -> int:
        return queue_notices(self.targets, self.enqueue, self.clock(), notices, claims, targets)

    def _remind(self, notices: Sequence[Notice], claims: dict[int, str], targets: dict[str, list[Any]]) -> int:
        """Each dispute opened: its referee's reminder, queued now to run when it is due (the
        job sends nothing once the dispute is settled)."""
        if not self.dispute_reminder_ms:
            return 0
        reminders = [replace(n, kind="dispute_reminder") for n in notices if n.kind == "dispute"]
        if not reminders:
            return 0
        now = self.clock()
        due = max(0, self.dispute_reminder_ms - int((now - _ms(reminders[0].at)) * 1000))
        return queue_notices(self.targets, self.enqueue, now, reminders, claims, targets, due)

    def _remember(self, gid: str, match: Match) -> None:
        self._matches[gid] = match
        self._matches.move_to_end(gid)
        while len(self._matches) > CACHE_GAMES:
            self._matches.popitem(last=False)


def queue_notices(store: TargetStore, enqueue: Enqueue, now: float, notices: Sequence[Notice],
                  claims: dict[int, str], targets: dict[str, list[Any]], later_ms: int = 0) -> int:
    """Queue a notify job for each notice, its seat's player and each of the player's targets
    that takes its kind (an email target once its address is confirmed), unless marked sent
    already; `later_ms` from now (a reminder), held to the end of the player's quiet hours then.
    How many were queued. (The notifier's, and the worker's for a queue it dropped.)"""
    jobs = []
    for n in notices:
        pid = claims.get(n.seat)
        if pid is None:
            continue
        for t in targets.get(pid, []):
            if n.choice in t.events and t.confirmed:  # an address not confirmed is sent nothing
                jobs.append((n, pid, t))
    if not jobs:
        return 0
    done = store.sent([n.key(pid, t.id) for n, pid, t in jobs])
    quiet = {pid: store.quiet(pid) for pid in {pid for _, pid, _ in jobs}}
    by_kind: dict[str, int] = {}
    for (n, pid, t), sent in zip(jobs, done, strict=True):
        if sent:
            continue
        delay = later_ms + held_for_ms(quiet[pid], now + later_ms / 1000)
        enqueue(n, pid, t.id, delay)
        by_kind[t.kind] = by_kind.get(t.kind, 0) + 1
        log.info("notice.queued", game=n.game, seq=n.seq, player=pid, channel=t.kind, target=t.id,
                 kind=n.kind, held_ms=delay or None)
    for kind, count in by_kind.items():
        store.count("queued", kind, count)
    return sum(by_kind.values())
