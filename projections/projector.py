"""The projector: follows every partition's feed through a consumer group and folds read models.

Each feed entry names a game that changed. The projector catches that game up from
its own position and writes the read models with their checkpoint in one script,
so a redelivered or duplicated entry costs a little work and changes nothing.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import redis
import structlog
from redis.cluster import RedisCluster
from redis.exceptions import NoScriptError

from events.mapping.codec import canonical
from events.redisstore.cache import Loaded, MatchCache
from events.redisstore.store import EventStore, envelope_from_entry, queued_command
from projections.readmodels import read_model_fields

log = structlog.get_logger("boardlog.projector")

GROUP = "projector"
TRIM_SECONDS = 10.0


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


class Projector:
    CLUSTER_IDLE_MS = 20

    def __init__(
        self,
        store: EventStore,
        consumer: str | None = None,
        *,
        block_ms: int = 1000,
        claim_idle_ms: int = 30_000,
        batch: int = 200,
        min_gap_ms: float = 50.0,
        min_read_gap_ms: float = 10.0,
        requeue: Callable[[str, str], object] | None = None,
        requeue_after_ms: int = 60_000,
    ) -> None:
        self.store = store
        self.r: Any = store.r
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}"
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.batch = batch
        self.cache = MatchCache(store)
        self.feeds = [store.feed(p) for p in range(store.partitions)]
        self.cluster = isinstance(store.r, RedisCluster)
        self._created: dict[str, str] = {}
        self._last_claim = 0.0
        self.running = True
        # Bursts on one game are folded into one projection per min_gap_ms; feed entries
        # stay unacknowledged until their game is projected, so a crash loses nothing.
        self.min_gap = min_gap_ms / 1000
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

    def ensure_groups(self) -> None:
        for feed in self.feeds:
            try:
                self.r.xgroup_create(feed, GROUP, id="0", mkstream=True)
            except redis.ResponseError as e:
                if "BUSYGROUP" not in str(e):
                    raise

    def project(self, gid: str) -> bool:
        """Bring one game's read models up to its head; True if anything was written."""
        item = self.cache.refresh(gid)
        seq, score, fields, notice = self._projection(gid, item)
        wrote = self.store.project(gid, seq, score, fields, notice)
        if wrote:
            log.debug("projected", game=gid, seq=seq)
        return wrote

    def project_or_log(self, gid: str) -> bool:
        """`project`, except that a bug in the game's rules is logged instead of raised."""
        try:
            return self.project(gid)
        except redis.RedisError:
            raise
        except Exception:
            self._failed(gid)
            return False

    def _failed(self, gid: str) -> None:
        # A bug in the rules' evolve or view. Both are pure, so trying this seq again fails the
        # same way: log it, acknowledge the entries and let the game's next event try again,
        # rather than stop the read models of every other game behind it.
        log.exception("projector.failed", game=gid)
        self.cache.drop(gid)

    def _projection(self, gid: str, item: Loaded) -> tuple[int, int, dict[str, bytes], bytes]:
        match = item.match
        created = self._created.get(gid)
        if created is None:
            first = self.store.read(gid, 1, 1)
            created = self._created[gid] = first[0].at
        last = item.at or self.store.read(gid, match.seq, match.seq)[0].at
        fields = read_model_fields(match, created, last)
        notice = canonical({"seq": match.seq, "summary": fields["summary"].decode()})
        return match.seq, _ms(last), fields, notice

    def _project_many(self, gids: list[str]) -> None:
        """Project several games in three round trips (their tails, their read models, the
        acks) instead of two per game and one for the acks. Entries are acknowledged only
        after their game's read models are written."""
        cached = [(gid, self.cache.peek(gid)) for gid in gids]
        pipe = self.r.pipeline(transaction=False)
        for gid, item in cached:
            if item is not None:
                pipe.xrange(self.store.keys(gid).events, f"{item.match.seq + 1}-0", "+")
        tails = iter(pipe.execute())
        script = self.store._project
        pipe = self.r.pipeline(transaction=False)
        calls = []
        for gid, item in cached:
            try:
                if item is None:
                    item = self.cache.refresh(gid)  # not cached yet: snapshot and tail
                else:
                    item = self.cache.catch_up(gid, item, [envelope_from_entry(f) for _, f in next(tails)])
                keys, args = self.store.project_call(gid, *self._projection(gid, item))
            except redis.RedisError:
                raise
            except Exception:
                self._failed(gid)
                continue
            calls.append((keys, args))
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
        for (keys, args), res in zip(calls, pipe.execute(raise_on_error=False), strict=True):
            if isinstance(res, NoScriptError):
                script(keys=keys, args=args)  # loads the script, then runs it
            elif isinstance(res, Exception):
                raise res
        pipe = self.r.pipeline(transaction=False)
        for gid in gids:
            for feed, entry_id in self._dirty.pop(gid):
                pipe.xack(feed, GROUP, entry_id)
        pipe.execute()

    def _collect(self, feed: str, entries: Iterable[tuple[Any, dict[bytes, bytes]]]) -> int:
        n = 0
        for entry_id, fields in entries:
            n += 1
            if fields and b"g" in fields:
                self._dirty.setdefault(fields[b"g"].decode(), []).append((feed, entry_id))
            else:
                self.r.xack(feed, GROUP, entry_id)
        return n

    def flush(self, force: bool = False) -> int:
        """Project the dirty games whose last projection is old enough; ack their entries."""
        now = time.monotonic()
        due = [gid for gid in self._dirty
               if force or now - self._projected_at.get(gid, 0.0) >= self.min_gap]
        if not due:
            return 0
        for gid in due:
            self._projected_at[gid] = now
        if len(due) > 1 and not self.cluster:
            self._project_many(due)
            return len(due)
        pipe = self.r.pipeline(transaction=False)
        for gid in due:
            self.project_or_log(gid)
            for feed, entry_id in self._dirty.pop(gid):
                pipe.xack(feed, GROUP, entry_id)
        pipe.execute()
        return len(due)

    def _handle(self, feed: str, entries: Iterable[tuple[Any, dict[bytes, bytes]]]) -> int:
        n = self._collect(feed, entries)
        self.flush(force=True)
        return n

    def claim_dead(self) -> int:
        """Take over entries a dead consumer read but never acknowledged."""
        n = 0
        for feed in self.feeds:
            cursor = "0-0"
            while True:
                res = self.r.xautoclaim(feed, GROUP, self.consumer, self.claim_idle_ms, cursor, count=self.batch)
                cursor, claimed = res[0], res[1]
                n += self._handle(feed, [(i, f) for i, f in claimed if f is not None])
                if cursor in (b"0-0", "0-0"):
                    break
        return n

    def sweep_queued(self, max_rounds: int = 100) -> int:
        """Queue again every command queued over requeue_after_ms ago that has no answer yet,
        and forget the answered ones; how many were queued again."""
        requeue = self.requeue
        assert requeue is not None
        now_ms = int(time.time() * 1000)
        keys = [self.store.queued(p) for p in range(self.store.partitions)]
        total = 0
        for _ in range(max_rounds):
            pipe = self.r.pipeline(transaction=False)
            for key in keys:
                pipe.zrangebyscore(key, "-inf", now_ms - self.requeue_after_ms, start=0, num=self.batch)
            found = [(key, [m.decode() for m in rows]) for key, rows in zip(keys, pipe.execute(), strict=True) if rows]
            if not found:
                break
            total += self._sweep_round(found, now_ms, requeue)
            keys = [key for key, members in found if len(members) == self.batch]  # more may wait
            if not keys:
                break
        return total

    def _sweep_round(
        self, found: list[tuple[str, list[str]]], now_ms: int, requeue: Callable[[str, str], object]
    ) -> int:
        pipe = self.r.pipeline(transaction=False)
        for _, members in found:
            for m in members:
                gid, cid = queued_command(m)
                k = self.store.keys(gid)
                pipe.hexists(k.results, cid)
                pipe.hexists(k.pending, cid)
        flags = iter(pipe.execute())
        again: list[str] = []
        pipe = self.r.pipeline(transaction=False)
        for key, members in found:
            done = []
            for m in members:
                answered, waiting = next(flags), next(flags)
                if waiting and not answered:
                    again.append(m)
                    pipe.zadd(key, {m: now_ms})  # and again after as long, until answered
                else:
                    done.append(m)
                    if waiting:  # answered, its body left behind (its settling was lost)
                        gid, cid = queued_command(m)
                        pipe.hdel(self.store.keys(gid).pending, cid)
            if done:
                pipe.zrem(key, *done)
        pipe.execute()
        for m in again:
            gid, cid = queued_command(m)
            requeue(gid, cid)
            log.warning("command.requeued", game=gid, command=cid, after_ms=self.requeue_after_ms)
        return len(again)

    def trim_feeds(self) -> int:
        """Drop the feed entries below the group's oldest unacknowledged one (or, with none,
        below its last delivered one); how many feeds were trimmed."""
        pipe = self.r.pipeline(transaction=False)
        for feed in self.feeds:
            pipe.xinfo_groups(feed)
            pipe.xpending(feed, GROUP)
        replies = pipe.execute(raise_on_error=False)
        pipe = self.r.pipeline(transaction=False)
        n = 0
        for i, feed in enumerate(self.feeds):
            groups, pending = replies[2 * i], replies[2 * i + 1]
            if isinstance(groups, Exception) or isinstance(pending, Exception):
                continue  # no feed or no group yet
            ours = [g for g in groups if g["name"] in (GROUP, GROUP.encode())]
            if not ours:
                continue
            bound = pending["min"] if pending["pending"] else ours[0]["last-delivered-id"]
            if bound in (b"0-0", "0-0"):
                continue
            pipe.xtrim(feed, minid=bound, approximate=False)
            n += 1
        pipe.execute()
        return n

    def step(self) -> int:
        """One read of every feed (blocking up to block_ms); returns entries handled."""
        now = time.monotonic()
        n = 0
        if now - self._last_trim > TRIM_SECONDS:
            self._last_trim = now
            self.trim_feeds()
        if self.requeue is not None and now - self._last_sweep > self.requeue_after_ms / 4000:
            self._last_sweep = now
            self.sweep_queued()
        if now - self._last_claim > self.claim_idle_ms / 2000:
            self._last_claim = now
            n += self.claim_dead()
        block = self.block_ms if not self._dirty else max(1, int(self.min_gap * 1000 / 2))
        if self._read_found:
            wait = self._read_at + self.min_read_gap - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        self._read_at = time.monotonic()
        self._read_found = False
        for feed, entries in self._read(block):
            name = feed.decode() if isinstance(feed, bytes) else feed
            self._read_found = True
            n += self._collect(name, entries)
        self.flush()
        return n + len(self._dirty)

    def _read(self, block_ms: int) -> list[Any]:
        if not self.cluster:
            resp = self.r.xreadgroup(
                GROUP, self.consumer, dict.fromkeys(self.feeds, ">"), count=self.batch, block=block_ms
            )
            return list(resp or [])
        # On a cluster each feed lives in its own slot, and one XREADGROUP cannot name keys in
        # several slots: read every feed without blocking in one pipeline (one call per node),
        # and pause when all were empty.
        pipe = self.r.pipeline(transaction=False)
        for feed in self.feeds:
            pipe.xreadgroup(GROUP, self.consumer, {feed: ">"}, count=self.batch)
        out = [row for resp in pipe.execute() for row in (resp or [])]
        if not out:
            time.sleep(min(block_ms, self.CLUSTER_IDLE_MS) / 1000)
        return out

    def run(self) -> None:
        self.ensure_groups()
        log.info("projector.started", consumer=self.consumer, partitions=len(self.feeds))
        pause = 0.0
        while self.running:
            try:
                self.step()
                pause = 0.0
            except (redis.ConnectionError, redis.TimeoutError) as e:
                # Redis restarting or out of reach: wait and read again. Whatever was read and
                # not acknowledged stays pending and is claimed again (projection is idempotent).
                pause = min(2.0, max(0.1, pause * 2))
                log.warning("projector.redis_unavailable", error=str(e), retry_in=pause)
                time.sleep(pause)
            except redis.ResponseError as e:
                if "NOGROUP" not in str(e):
                    raise
                # The server lost its data (no AOF): make the groups again and go on.
                log.warning("projector.groups_missing", error=str(e))
                self.ensure_groups()
        self.flush(force=True)
        log.info("projector.stopped", consumer=self.consumer)


def all_games(store: EventStore) -> list[str]:
    """Every game id in this namespace, found from the meta keys."""
    out = []
    for key in store.r.scan_iter(match=f"{store.ns}:{{p*}}:g:*:meta", count=1000):
        k = key.decode() if isinstance(key, bytes) else key
        out.append(k.split(":g:", 1)[1].rsplit(":", 1)[0])
    return sorted(out)


def rebuild(store: EventStore) -> int:
    """Drop every read model and the lobby, then project every game from its first event."""
    games = all_games(store)
    pipe = store.r.pipeline(transaction=False)
    for p in range(store.partitions):
        pipe.delete(store.lobby(p))
    for gid in games:
        pipe.delete(store.keys(gid).rm)
    pipe.execute()
    fresh = Projector(store, consumer="rebuild")
    for gid in games:
        fresh.project_or_log(gid)
    return len(games)
