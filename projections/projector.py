"""The projector: follows every partition's feed through a consumer group and folds read models.

Each feed entry names a game that changed. The projector catches that game up from
its own position and writes the read models with their checkpoint in one script,
so a redelivered or duplicated entry costs a little work and changes nothing. A game whose
rules raise while it is projected is recorded as data, not retried: see `Projector._failed` and
"Failures as data" in docs/architecture.md.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import structlog

from events.domain.match import fold_match
from events.records.codec import canonical, loads
from events.records.envelope import Envelope
from events.store.cache import Loaded, MatchCache, Memo
from events.store.errors import StoreUnavailable
from events.store.feed import Entry
from events.store.follow import Follower
from events.store.store import EventStore
from projections.pace import Pace
from projections.readmodels import read_model_fields, summary_of, unfolded_summary, with_failure

log = structlog.get_logger("boardlog.projector")

GROUP = "projector"
TRIM_SECONDS = 10.0

# What one game's projection writes: game id, checkpoint seq, lobby score, fields, notice.
Projection = tuple[str, int, int, dict[str, bytes], bytes]


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _fold_until_failure(gid: str, base: Loaded | None, tail: Sequence[Envelope]) -> tuple[Loaded | None, Envelope | None]:
    """Fold `tail` into `base` one event at a time: the last match that folded, and the event
    whose fold raised (None: every one folded)."""
    good = base
    for env in tail:
        try:
            match = fold_match([env.event], gid, None if good is None else good.match)
        except Exception:
            return good, env
        good = Loaded(match, env.hash, env.at)
    return good, None


class Projector(Follower):
    def __init__(
        self,
        store: EventStore,
        consumer: str | None = None,
        *,
        block_ms: int = 1000,
        claim_idle_ms: int = 30_000,
        batch: int = 200,
        min_gap_ms: float = 50.0,
        max_gap_ms: float = 500.0,
        cpu_share: float = 0.10,
        flush_games: int = 16,
        min_read_gap_ms: float = 10.0,
        requeue: Callable[[str, str], object] | None = None,
        requeue_after_ms: int = 60_000,
        memo: int = 4096,
    ) -> None:
        super().__init__(store, GROUP, consumer, name="projector", log=log, block_ms=block_ms,
                         claim_idle_ms=claim_idle_ms, batch=batch, urgent=True)
        self.cache = MatchCache(store)
        # read once a game, kept for the games projected last (re-read after that: both are fixed)
        self._created_at: Memo[str, str] = Memo(lambda gid: self.store.read(gid, 1, 1)[0].at, memo)
        # an import is marked when it is stored, before its first event
        self._imported_as: Memo[str, dict[str, Any] | None] = Memo(self.store.imported, memo)
        self.memo = memo
        # Bursts on one game are folded into one projection a gap: min_gap_ms while the
        # projector is light, up to max_gap_ms while it uses over cpu_share of a core
        # (projections/pace.py). Feed entries stay unacknowledged until their game is projected,
        # so a crash loses nothing. A game a reader waits for (an URGENT feed entry, from
        # ?min_seq) is projected at once.
        self.pace = Pace(min_gap_ms / 1000, max(min_gap_ms, max_gap_ms) / 1000, cpu_share)
        self._gap_told = self.pace.gap
        # At most flush_games games a flush (urgent ones first), the rest at the next step: under
        # load the games fall due together at the end of a long gap, and one flush of all of them
        # (~40 ms of CPU at 64 games) took a core from the command path at once.
        self.flush_games = flush_games
        self._behind = False  # games were left due by the last flush
        self._dirty: dict[str, list[tuple[str, Any]]] = {}
        self._projected_at: dict[str, float] = {}
        # One XREADGROUP names every partition's feed (~100 us of Redis CPU whatever it
        # finds): after a read that found entries, the next waits min_read_gap_ms, so a busy
        # feed is read in batches. The first entry after a quiet spell is read at once.
        self.min_read_gap = min_read_gap_ms / 1000
        self._read_at = 0.0
        self._read_found = False
        # Commands still unanswered requeue_after_ms after they were queued are queued again
        # (harmless if their message was only slow): a lost message must not leave one queued.
        self.requeue = requeue
        self.requeue_after_ms = requeue_after_ms
        self._last_sweep = time.monotonic()
        # The append script no longer caps the feeds (one write less in it): entries the group
        # has read and acknowledged are trimmed here every TRIM_SECONDS.
        self._last_trim = time.monotonic()

    def project(self, gid: str) -> bool:
        """Bring one game's read models up to its head; True if anything was written. When the
        game's rules raise on it, its last good read models stay and its summary is marked."""
        out = self._projected(gid, self.cache.peek(gid), None)
        if out is None or not self.store.project(*out):
            return False
        log.debug("projected", game=gid, seq=out[1])
        return True

    def _project_many(self, gids: list[str]) -> None:
        """Project several games in three round trips (their tails, their read models, the
        acks) however many they are. Entries are acknowledged only after their game's read
        models are written, or its failure recorded."""
        cached = [(gid, self.cache.peek(gid)) for gid in gids]
        tails = iter(self.store.read_after([(gid, item.match.seq) for gid, item in cached if item is not None]))
        out = []
        for gid, item in cached:
            p = self._projected(gid, item, None if item is None else next(tails))
            if p is not None:
                out.append(p)
        if out:
            self.store.project_many(out)
        self.feed.ack([entry for gid in gids for entry in self._dirty.pop(gid)])

    def _projected(self, gid: str, item: Loaded | None, tail: list[Envelope] | None) -> Projection | None:
        """What to write for the game at its head, from its cached match and the events after it
        (None: read them here); None when its rules raised (the failure is recorded)."""
        try:
            if item is None or tail is None:
                item_now = self.cache.refresh(gid)  # not cached yet: snapshot and tail
            else:
                item_now = self.cache.catch_up(gid, item, tail)
            return self._projection(gid, item_now)
        except StoreUnavailable:
            raise
        except Exception as e:
            # A bug in the rules' evolve or view (or a game this deployment does not know).
            self._failed(gid, item, tail, e)
            return None

    def _projection(self, gid: str, item: Loaded) -> Projection:
        match = item.match
        last = item.at or self.store.read(gid, match.seq, match.seq)[0].at
        fields = read_model_fields(match, self._created_at(gid), last, self._imported_as(gid))
        notice = canonical({"seq": match.seq, "summary": fields["summary"].decode()})
        return gid, match.seq, _ms(last), fields, notice

    def _failed(self, gid: str, base: Loaded | None, tail: list[Envelope] | None, error: Exception) -> None:
        """Record that the rules raised projecting this game, as data: its views and checkpoint
        stay the last good ones, and its summary (and so its lobby row) carries the marker
        `projection_failed` with the seq that failed and an error id, also in the log line.

        The rules are pure, so the same seq fails the same way every time: retrying would only
        stop the read models of every other game behind this one. The entries are acknowledged;
        the game's next event (or a rebuild, once the rules are fixed) tries again, and its
        first good projection writes a summary without the marker."""
        self.cache.drop(gid)
        if tail is None:
            tail = self.store.read(gid, 1 if base is None else base.match.seq + 1)
        good, bad = _fold_until_failure(gid, base, tail)
        # The event whose fold raised, or else the head, where the view (or summary) raised.
        seq = bad.seq if bad is not None else (0 if good is None else good.match.seq)
        eid = uuid.uuid4().hex[:12]
        log.error("projector.failed", game=gid, seq=seq, error=eid, exc_info=error)
        if seq == 0:
            return  # no events at all: nothing to mark
        if good is not None:
            self.cache.put(gid, good)  # folded as far as it goes: the next try starts there
        at = "" if good is None else good.at
        checkpoint, stored = self.store.stored_summary(gid)
        if checkpoint >= seq:
            return  # projected past it already, by a projector whose rules work (a rolling fix)
        summary = loads(stored) if stored is not None else self._fallback_summary(gid, good)
        summary.pop("projection_failed", None)
        marked = canonical(with_failure(summary, seq, eid, type(error).__name__))
        notice = canonical({"seq": summary["seq"], "summary": marked.decode()})
        self.store.project_failed(gid, checkpoint, marked, _ms(at or summary["created"]), notice)

    def _fallback_summary(self, gid: str, good: Loaded | None) -> dict[str, Any]:
        """A summary for a game with none stored (a rebuild, or its first projection failed): of
        as much of it as folds, or else of its opening."""
        first = self.store.read(gid, 1, 1)[0]
        if good is not None:
            try:
                return summary_of(good.match, first.at, good.at or first.at, self._imported_as(gid))
            except Exception:
                log.warning("projector.summary_failed", game=gid, seq=good.match.seq)
        return unfolded_summary(gid, first)

    def _handle(self, entries: Sequence[Entry]) -> int:
        # Not a game at a time: the games are projected together, in three round trips, and a
        # game whose rules raise is marked (see _failed), not skipped.
        n = self._collect(entries)
        self.flush(force=True)
        return n

    def _collect(self, entries: Sequence[Entry]) -> int:
        stray = []
        for feed, entry_id, gid in entries:
            if gid is None:
                stray.append((feed, entry_id))
            else:
                self._dirty.setdefault(gid, []).append((feed, entry_id))
        self.feed.ack(stray)
        return len(entries)

    def flush(self, force: bool = False) -> int:
        """Project the dirty games whose last projection is old enough; ack their entries."""
        now, gap = time.monotonic(), self.pace.gap
        urgent = self.feed.urgent
        due = [gid for gid in self._dirty
               if force or gid in urgent or now - self._projected_at.get(gid, 0.0) >= gap]
        self._behind = not force and len(due) > self.flush_games
        if self._behind:
            due.sort(key=lambda g: g not in urgent)  # stable: urgent first, the rest as they came
            del due[self.flush_games:]
        urgent.difference_update(due)  # the rest stay urgent; those not dirty need nothing more
        urgent.intersection_update(self._dirty)
        if not due:
            return 0
        for gid in due:
            self._projected_at[gid] = now
        if len(self._projected_at) > self.memo:
            # only a game projected within the gap waits for its next projection
            self._projected_at = {g: t for g, t in self._projected_at.items() if now - t < gap}
        self._project_many(due)
        return len(due)

    def sweep_queued(self, max_rounds: int = 100) -> int:
        """Queue again every command queued over requeue_after_ms ago that has no answer yet,
        and forget the answered ones; how many were queued again."""
        requeue = self.requeue
        assert requeue is not None
        now_ms = int(time.time() * 1000)
        partitions = list(range(self.store.partitions))
        total = 0
        for _ in range(max_rounds):
            found = self.store.queued_before(partitions, now_ms - self.requeue_after_ms, self.batch)
            if not found:
                break
            total += self._sweep_round([c for commands in found.values() for c in commands], now_ms, requeue)
            partitions = [p for p, commands in found.items() if len(commands) == self.batch]  # more may wait
            if not partitions:
                break
        return total

    def _sweep_round(self, commands: list[tuple[str, str]], now_ms: int, requeue: Callable[[str, str], object]) -> int:
        again: list[tuple[str, str]] = []
        forget: list[tuple[str, str, bool]] = []
        for (gid, cid), (answered, waiting) in zip(commands, self.store.queued_states(commands), strict=True):
            if waiting and not answered:
                again.append((gid, cid))  # and again after as long, until answered
            else:
                forget.append((gid, cid, waiting))  # a body beside its answer: its settling was lost
        self.store.sweep_queued(again, forget, now_ms)
        for gid, cid in again:
            requeue(gid, cid)
            log.warning("command.requeued", game=gid, command=cid, after_ms=self.requeue_after_ms)
        return len(again)

    def trim_feeds(self) -> int:
        """Drop the feed entries the group no longer needs; how many feeds were trimmed."""
        return self.feed.trim()

    def step(self) -> int:
        """One read of every feed (blocking up to block_ms); returns entries handled."""
        now = time.monotonic()
        gap = self.pace.observe(now, time.process_time())
        if gap != self._gap_told:
            log.info("projector.pace", gap_ms=round(gap * 1000))
            self._gap_told = gap
        n = 0
        if now - self._last_trim > TRIM_SECONDS:
            self._last_trim = now
            self.trim_feeds()
        if self.requeue is not None and now - self._last_sweep > self.requeue_after_ms / 4000:
            self._last_sweep = now
            self.sweep_queued()
        n += self._claim_if_due(now)
        block = self.block_ms if not self._dirty else 1 if self._behind else max(1, int(gap * 1000 / 2))
        if self._read_found:
            wait = self._read_at + self.min_read_gap - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        self._read_at = time.monotonic()
        entries = self.feed.read(block, self.batch)
        self._read_found = bool(entries)
        n += self._collect(entries)
        self.flush()
        return n + len(self._dirty)

    def _started(self) -> dict[str, Any]:
        return {"partitions": len(self.feed.feeds)}

    def _stopping(self) -> None:
        self.flush(force=True)  # the bursts still waiting out min_gap


def all_games(store: EventStore) -> list[str]:
    """Every game id in this namespace."""
    return store.game_ids()


def rebuild(store: EventStore, progress: Callable[[int, int], None] | None = None) -> int:
    """Drop every read model and the lobby, then project every game from its first event. A
    game its rules fail on is marked (`projection_failed`) and the rebuild goes on past it.
    `progress(done, total)` is told after each game."""
    games = all_games(store)
    store.drop_read_models(games)
    fresh = Projector(store, consumer="rebuild")
    for i, gid in enumerate(games, 1):
        fresh.project(gid)
        if progress is not None:
            progress(i, len(games))
    return len(games)
