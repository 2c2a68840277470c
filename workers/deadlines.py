"""The deadlines worker: follows every partition's feed with its own consumer group, and for each
game whose clock was set (events.domain.platform.clock) schedules a dramatiq delayed message per
running deadline (and per reminder) on the `deadlines` queue.

A deadline message carries the game, the seq of the clock event it was set for, the seat and
its kind (timeout or remind). When it fires, the `deadline_due` actor reads the game: a clock
set again since (a move, a vacation, a dispute) makes it a no-op; otherwise it submits the
platform command (`boardlog.timeout` / `boardlog.remind`) through the normal command path (the
store's pending record, then the commands actor), under the platform's command id of the clock's
seq and the seat (events.store.commandids), so the store's idempotency applies it once however many times it fires: two deadline
workers, a worker killed as it fires and its message redelivered, a message scheduled twice.

The delayed messages live in the broker's Redis (its delay queue, kept by the AOF); a worker
that dies holding them leaves them in its ack set, and dramatiq's maintenance puts them back
once its heartbeat lapses. The follower also submits `boardlog.clock` for a game just created
(its first prompt has no command before it, whose worker would set the clock).

Idle games: with `idle_after_s` (BOARDLOG_IDLE_END_SECONDS), every game with a prompt, clocked or
not, gets one delayed `idle` message per move, due that long after the move; when it fires and
no move came since, `boardlog.idle_end` (under the platform's id of `idle-<seq of the move>`) ends the game as
abandoned.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

import dramatiq
import structlog

from events.domain.match import Match
from events.domain.platform.clock import (
    CLOCK,
    IDLE_END,
    REMIND,
    TIMEOUT,
    VACATION,
    clock_of,
    due_change,
    last_move_seq,
    setting_of,
    to_iso,
    to_ms,
)
from events.store.cache import MatchCache
from events.store.errors import StoreUnavailable
from events.store.follow import Follower
from events.store.store import EventStore
from rules.core import Command
from service.stores.vacations import VacationStore

log = structlog.get_logger("boardlog.deadlines")

GROUP = "deadlines"
DEADLINES_QUEUE = "deadlines"
DEADLINE_DUE = "deadline_due"
# A deadline is acted on this long after it passed: the command worker's own reading of the time
# (the envelope's) must be past it too, or the timeout would be refused as early.
MARGIN_MS = 50
KINDS = {"timeout": TIMEOUT, "remind": REMIND}
EARLY = frozenset({"deadline_not_reached", "reminder_not_due", "not_idle_yet"})
IDLE = "idle"  # a deadline message's kind for a game's idle end; its seat is NO_SEAT
NO_SEAT = -1
IDLE_MARKS = 4096  # games whose idle message this process remembers having scheduled

# Submit a platform command: (game, command id, command).
Submit = Callable[[str, str, Command], object]
# Schedule a deadline message: (game, clock seq, seat, kind, delay in ms).
Schedule = Callable[[str, int, int, str, int], object]


def submitter(store: EventStore, send: Callable[[str, str], object],
              crash_before_send: Callable[[], bool] | None = None) -> Submit:
    """The normal command path, from a worker: the pending record, then the commands actor."""

    def submit(gid: str, cid: str, command: Command) -> None:
        store.put_pending(gid, cid, command.to_json(), time.time_ns() // 1_000_000)
        if crash_before_send is not None and crash_before_send():
            # Fault injection for the killed-as-it-fires test; never set in production.
            os.kill(os.getpid(), signal.SIGKILL)
        send(gid, cid)

    return submit


class Deadlines(Follower):
    def __init__(
        self,
        store: EventStore,
        submit: Submit,
        schedule: Schedule,
        consumer: str | None = None,
        *,
        block_ms: int = 1000,
        claim_idle_ms: int = 10_000,
        batch: int = 200,
        clock: Callable[[], float] = time.time,
        vacations: VacationStore | None = None,
        idle_after_s: int = 0,
    ) -> None:
        super().__init__(store, GROUP, consumer, name="deadlines", log=log,
                         block_ms=block_ms, claim_idle_ms=claim_idle_ms, batch=batch)
        self.vacations = vacations
        self.submit = submit
        self.schedule = schedule
        self.cache = MatchCache(store, size=1024)
        self.clock = clock
        self.idle_after_s = max(0, idle_after_s)  # 0: games never end for want of moves
        # gid -> the move seq whose idle message is scheduled; lost at a restart, it only
        # schedules one again (a second message for the same move is a no-op when it fires).
        self.idle_marks: dict[str, int] = {}

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def catch_up(self, gid: str) -> int:
        """Schedule the deadlines of `gid`'s clock if not scheduled yet; how many were."""
        match = self.cache.refresh(gid).match
        self._schedule_idle(gid, match)
        setting = setting_of(match)
        if setting is None or match.over:
            return 0
        clock = clock_of(match)
        if clock.seq == 0:
            # The game's first prompt: no command comes before it, so no worker sets its clock
            # (after a command the worker does, as the platform's automatic answer). A seat whose
            # player is away already (a game started during their vacation) starts stopped.
            self._away(gid, match)
            if due_change(match) is not None:
                self.submit(gid, self.store.platform_id(gid, f"clock-{match.seq}"), Command(CLOCK, {}, None))
            return 0
        if not clock.deadlines:
            return 0
        done = self.store.deadlines_scheduled(gid)
        if done is not None and done >= clock.seq:
            return 0
        now = self._now_ms()
        n, latest = 0, now
        for seat, deadline in clock.deadlines:
            at = to_ms(deadline)
            latest = max(latest, at)
            self.schedule(gid, clock.seq, seat, "timeout", max(0, at - now) + MARGIN_MS)
            n += 1
            if setting.reminder and seat not in clock.reminded:
                self.schedule(gid, clock.seq, seat, "remind", max(0, at - setting.reminder * 1000 - now) + MARGIN_MS)
                n += 1
        # Kept a day past the last deadline; a lost mark only schedules them again (harmless).
        self.store.mark_deadlines_scheduled(gid, clock.seq, latest - now + 86_400_000)
        log.info("deadlines.scheduled", game=gid, clock=clock.seq, messages=n)
        return n

    def _moved_at(self, gid: str, seq: int) -> str | None:
        """The envelope time of seq `seq`: when the game last moved."""
        found = self.store.read(gid, seq, seq)
        return found[0].at if found else None

    def _schedule_idle(self, gid: str, match: Match) -> None:
        """One idle message per move, due `idle_after_s` after it."""
        if not self.idle_after_s or match.over or match.prompt is None:
            return
        since = last_move_seq(match)
        if self.idle_marks.get(gid) == since:
            return
        moved_at = self._moved_at(gid, since)
        if moved_at is None:
            return
        now = self._now_ms()
        self.schedule(gid, since, NO_SEAT, IDLE, max(0, to_ms(moved_at) + self.idle_after_s * 1000 - now) + MARGIN_MS)
        if len(self.idle_marks) >= IDLE_MARKS:
            self.idle_marks.pop(next(iter(self.idle_marks)))
        self.idle_marks[gid] = since
        log.info("idle_end.scheduled", game=gid, since=since)

    def fire_idle(self, gid: str, since: int) -> str:
        """An idle message arrived: end the game if it has not moved since `since`."""
        match: Match = self.cache.refresh(gid).match
        moved_at = self._moved_at(gid, since)
        if not self.idle_after_s or match.over or last_move_seq(match) != since or moved_at is None:
            log.info("idle_end.moved_on", game=gid, since=since)
            return "moved_on"
        due, now = to_ms(moved_at) + self.idle_after_s * 1000, self._now_ms()
        if now < due + MARGIN_MS:
            # The setting grew since the message was scheduled: again later.
            self.schedule(gid, since, NO_SEAT, IDLE, due + MARGIN_MS - now)
            return "early"
        cid = self._command_id(gid, f"idle-{since}")
        self.submit(gid, cid, Command(IDLE_END, {"since": since, "moved_at": moved_at, "after": self.idle_after_s}, None))
        log.info("idle_end.fired", game=gid, since=since, command=cid, late_ms=now - due)
        return "submitted"

    def _away(self, gid: str, match: Match) -> None:
        if self.vacations is None:
            return
        for seat, (pid, v) in self.vacations.away_in(gid).items():
            if seat in clock_of(match).vacation or not self.vacations.add_game(pid, v.n, gid, seat):
                continue
            # The id a vacation's start gives its commands: sent twice, it applies once.
            self.submit(gid, self.store.platform_id(gid, f"vacation-{pid}-{v.n}-on"),
                        Command(VACATION, {"on": True, "until": to_iso(v.until_ms)}, seat))

    def fire(self, gid: str, clock_seq: int, seat: int, kind: str) -> str:
        """A deadline message arrived: submit its command if it still stands; what was done."""
        if kind == IDLE:
            return self.fire_idle(gid, clock_seq)
        if kind not in KINDS:
            return "unknown"
        match: Match = self.cache.refresh(gid).match
        clock = clock_of(match)
        setting = setting_of(match)
        deadline = clock.deadline(seat)
        if setting is None or match.over or clock.seq != clock_seq or deadline is None:
            log.info("deadline.moved_on", game=gid, clock=clock_seq, now=clock.seq, seat=seat, kind=kind)
            return "moved_on"
        if kind == "remind" and (seat in clock.reminded or not setting.reminder):
            return "moved_on"
        due = to_ms(deadline) - (setting.reminder * 1000 if kind == "remind" else 0)
        now = self._now_ms()
        if now < due + MARGIN_MS:
            # Early (the message was scheduled for an older reading of the deadline): again later.
            self.schedule(gid, clock_seq, seat, kind, due + MARGIN_MS - now)
            return "early"
        cid = self._command_id(gid, f"{kind}-{clock_seq}-{seat}")
        self.submit(gid, cid, Command(KINDS[kind], {"clock": clock_seq, "seat": seat}, None))
        log.info("deadline.fired", game=gid, clock=clock_seq, seat=seat, kind=kind, command=cid,
                 late_ms=now - due)
        return "submitted"

    def _command_id(self, gid: str, base: str) -> str:
        """The id to submit under: the platform's id of `base` (events.store.commandids), unless
        a command of that id was refused as early (a command worker whose clock runs behind this
        one's), then the next try's. A refused command applied nothing, and every worker firing
        the same deadline reckons the same id."""
        cid = self.store.platform_id(gid, base)
        for attempt in range(2, 10):
            prior = self.store.result(gid, cid)
            if prior is None or prior.get("code") not in EARLY:
                return cid
            cid = self.store.platform_id(gid, f"{base}-{attempt}")
        return cid


def declare_deadlines(broker: dramatiq.Broker, fire: Callable[[str, int, int, str], object] | None,
                      store_wait: float = 30.0) -> dramatiq.Actor:
    """Declare `deadline_due` on `broker`. A Redis out of reach is waited for while the message
    is held (as the command actor does): the message is acked only once its command is queued."""

    def deadline_due(gid: str, clock_seq: int, seat: int, kind: str) -> None:
        if fire is None:
            raise RuntimeError("this process only schedules deadlines")
        pause, until = 0.05, time.monotonic() + store_wait
        while True:
            try:
                fire(gid, clock_seq, seat, kind)
                return
            except StoreUnavailable as e:
                if time.monotonic() > until:
                    raise
                log.warning("deadline.store_unavailable", game=gid, error=str(e), retry_in=pause)
                time.sleep(pause)
                pause = min(1.0, pause * 2)

    actor: dramatiq.Actor = dramatiq.Actor(deadline_due, broker=broker, actor_name=DEADLINE_DUE,
                                           queue_name=DEADLINES_QUEUE, priority=0, options={})
    return actor
