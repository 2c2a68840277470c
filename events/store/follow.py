"""The loop a process runs to follow every partition's feed with its own consumer group (the
projector, the notifier, the deadlines worker): read, catch each named game up, acknowledge;
take over what a dead consumer of the group left unacknowledged; wait out a Redis out of reach
and make the groups again when the server lost them.

Each follower says what catching a game up means (`catch_up`), or overrides `_handle` to take
a read's entries otherwise (the projector merges bursts and projects its games together), and
logs under its own name (`<name>.started`, `<name>.redis_unavailable`, ...: operators and tests
read those names).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Sequence
from typing import Any

from structlog.typing import FilteringBoundLogger

from events.store.errors import StoreUnavailable
from events.store.feed import Entry, FeedGroup, GroupMissing
from events.store.store import EventStore

# The back-off while Redis is out of reach: the first wait, and the longest.
FIRST_PAUSE = 0.1
LONGEST_PAUSE = 2.0


class Follower:
    """One consumer of the group `group` over every partition's feed, run by `run` until
    `running` is set False (from a signal handler)."""

    def __init__(
        self,
        store: EventStore,
        group: str,
        consumer: str | None,
        *,
        name: str,
        log: FilteringBoundLogger,
        block_ms: int,
        claim_idle_ms: int,
        batch: int,
        urgent: bool = False,
    ) -> None:
        self.store = store
        self.name = name
        self.log = log
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}"
        self.feed = FeedGroup(store, group, self.consumer, urgent=urgent)
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.batch = batch
        self.running = True
        self._last_claim = 0.0

    def catch_up(self, gid: str) -> object:
        """Bring what this follower keeps for `gid` up to its head. It must be safe to run
        twice: an entry is acknowledged after its game is caught up, so a crash between the two
        delivers it again."""
        raise NotImplementedError

    def ensure_groups(self) -> None:
        self.feed.ensure()

    def _handle(self, entries: Sequence[Entry]) -> int:
        for gid in dict.fromkeys(gid for _, _, gid in entries if gid is not None):
            try:
                self.catch_up(gid)
            except StoreUnavailable:
                raise  # its entries stay unacknowledged, to be read again once Redis is back
            except Exception:
                # A game its rules cannot fold (the projector marks it as data): the same game
                # fails the same way on every try, and retrying it would stop every game behind.
                self.log.exception(f"{self.name}.failed", game=gid)
        self.feed.ack([(feed, entry_id) for feed, entry_id, _ in entries])
        return len(entries)

    def claim_dead(self) -> int:
        """Take over entries a dead consumer read but never acknowledged."""
        n = 0
        for feed in self.feed.feeds:
            cursor: Any = "0-0"
            while cursor is not None:
                cursor, claimed = self.feed.claim(feed, cursor, self.claim_idle_ms, self.batch)
                n += self._handle(claimed)
        return n

    def _claim_if_due(self, now: float) -> int:
        # Twice per idle time: an entry is claimed at most 1.5 idle times after its reader died.
        if now - self._last_claim <= self.claim_idle_ms / 2000:
            return 0
        self._last_claim = now
        return self.claim_dead()

    def step(self) -> int:
        """One read of every feed (blocking up to block_ms); returns entries handled."""
        n = self._claim_if_due(time.monotonic())
        return n + self._handle(self.feed.read(self.block_ms, self.batch))

    def _started(self) -> dict[str, Any]:
        """What the `started` log line says beside the consumer."""
        return {}

    def _stopping(self) -> None:
        """Called once the loop ends, before the `stopped` log line."""

    def run(self) -> None:
        self.ensure_groups()
        self.log.info(f"{self.name}.started", consumer=self.consumer, **self._started())
        pause = 0.0
        while self.running:
            try:
                self.step()
                pause = 0.0
            except StoreUnavailable as e:
                # Redis restarting or out of reach: wait and read again. Whatever was read and
                # not acknowledged stays pending and is claimed again (catching up is idempotent).
                pause = min(LONGEST_PAUSE, max(FIRST_PAUSE, pause * 2))
                self.log.warning(f"{self.name}.redis_unavailable", error=str(e), retry_in=pause)
                time.sleep(pause)
            except GroupMissing as e:
                # The server lost its data (no AOF): make the groups again and go on.
                self.log.warning(f"{self.name}.groups_missing", error=str(e))
                self.ensure_groups()
        self._stopping()
        self.log.info(f"{self.name}.stopped", consumer=self.consumer)
