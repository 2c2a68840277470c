"""The sweeper: every `every` seconds, refused commands' answers older than their keep time and
games no command reached since they were made long enough ago are dropped (events.store.sweeps).
Like the archiver it is a thread of each projector process; two sweeping at once is harmless,
each drop is one script that checks again what it drops.
"""

from __future__ import annotations

import threading

import structlog

from events.store.errors import StoreUnavailable
from events.store.store import EventStore
from events.store.sweeps import sweep_refused, sweep_untouched

log = structlog.get_logger("boardlog.sweeper")


class Sweeper:
    def __init__(self, store: EventStore, refused_seconds: float, untouched_seconds: float,
                 every_seconds: float = 60.0) -> None:
        self.store = store
        self.refused_seconds = refused_seconds
        self.untouched_seconds = untouched_seconds
        self.every = every_seconds

    def step(self) -> dict[str, int]:
        counts = {"refusals": sweep_refused(self.store, self.refused_seconds),
                  "games": sweep_untouched(self.store, self.untouched_seconds)}
        if any(counts.values()):
            log.info("sweeper.pass", **counts)
        return counts

    def run(self, stop: threading.Event) -> None:
        log.info("sweeper.started", refused_seconds=self.refused_seconds,
                 untouched_seconds=self.untouched_seconds, every_seconds=self.every)
        while not stop.wait(self.every):
            try:
                self.step()
            except StoreUnavailable as e:  # Redis restarting: the next pass tries again
                log.warning("sweeper.redis_unavailable", error=str(e))

    def start(self, stop: threading.Event) -> threading.Thread:
        t = threading.Thread(target=self.run, args=(stop,), name="sweeper", daemon=True)
        t.start()
        return t
