"""The cyclic garbage collector of a long-running part, set once the part has started.

Python's collector stops the whole process while it runs, and its full collections walk every
tracked object: under load (64 busy games, bench_trips) the API, the worker and the projector
each paused 35-85 ms every two or three seconds, walking the ~85,000-125,000 objects that
start-up made (modules, classes, the parts) and that live as long as the process. A pause of the API holds
every command in flight, so these pauses were the commands' p99. Frozen after start-up (moved
to the permanent generation, which no collection walks), a full collection took under 2 ms.

The young generation's threshold is raised too: a batch of commands keeps more than Python's
700 tracked objects alive at once, so the collector ran 35-70 times a second in each part for
no garbage; at 5,000 it ran a few times in 20 s. Cycles are still collected; only later.
"""

from __future__ import annotations

import gc

import structlog

log = structlog.get_logger("boardlog.runtime")

# Net new tracked objects (containers) between young collections; Python's default is 700.
YOUNG_THRESHOLD = 5_000


def settle_heap() -> None:
    """Collect what start-up left, freeze what survives it and raise the young threshold. Called
    by each part's entry point once its parts are built, never by code a test imports and runs
    in its own process: frozen objects are never collected, even when they become garbage."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
    log.debug("runtime.heap_settled", frozen=gc.get_freeze_count(), young_threshold=YOUNG_THRESHOLD)
