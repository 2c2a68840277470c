"""The archiver: every `every` seconds, games that ended `after` seconds ago or more are swapped
for their archive record (events.store.archive). It runs as a thread of each projector
process (so `serve` starts it); two of them archiving one game at once is harmless, the swap is
one script and the second finds it done.
"""

from __future__ import annotations

import threading

import structlog

from events.store.archive import archive_due
from events.store.errors import StoreUnavailable
from events.store.store import EventStore

log = structlog.get_logger("boardlog.archiver")


class Archiver:
    def __init__(self, store: EventStore, after_seconds: float, every_seconds: float = 60.0) -> None:
        self.store = store
        self.after_ms = int(after_seconds * 1000)
        self.every = every_seconds

    def step(self) -> dict[str, int]:
        counts = archive_due(self.store, self.after_ms)
        if counts:
            log.info("archiver.pass", **counts)
        return counts

    def run(self, stop: threading.Event) -> None:
        log.info("archiver.started", after_seconds=self.after_ms / 1000, every_seconds=self.every)
        while not stop.wait(self.every):
            try:
                self.step()
            except StoreUnavailable as e:  # Redis restarting: the next pass tries again
                log.warning("archiver.redis_unavailable", error=str(e))

    def start(self, stop: threading.Event) -> threading.Thread:
        t = threading.Thread(target=self.run, args=(stop,), name="archiver", daemon=True)
        t.start()
        return t
