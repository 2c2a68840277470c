"""Each long-running part settles its heap once started (service/runtime/heap.py): what start-up
made is frozen out of the collector's walks, and the young threshold raised. A full collection
that walked those objects paused a part for 35-85 ms under load (bench/RESULTS.md)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.runtime.heap import YOUNG_THRESHOLD
from service.runtime.launcher import WORKER_SWITCH_INTERVAL
from tests.conftest import ROOT, child_env, running_stack, wait_for

pytestmark = pytest.mark.integration

PARTS = ("worker", "projector", "api", "notifier", "deadlines")


def settled(log: Path) -> dict[str, object] | None:
    """The part's `runtime.heap_settled` line, if it has written one."""
    if not log.exists():
        return None
    for line in log.read_text(errors="replace").splitlines():
        if '"runtime.heap_settled"' in line:
            found: dict[str, object] = json.loads(line)
            return found
    return None


def test_every_part_freezes_what_start_up_made_and_raises_the_young_threshold_and_the_worker_switches_threads_sooner(
        redis_url: str, namespace: str, tmp_path: Path) -> None:
    env = child_env(redis_url, namespace, BOARDLOG_LOG_LEVEL="debug", BOARDLOG_LOG="json")
    with running_stack(env, tmp_path) as stack:
        stack.start("notifier", "notifier")
        stack.start("deadlines", "deadlines")
        for part in PARTS:
            wait_for(lambda part=part: settled(tmp_path / f"{part}.log") is not None, timeout=30)  # type: ignore[misc]
            line = settled(tmp_path / f"{part}.log")
            assert line is not None
            # the modules, classes and parts start-up made: tens of thousands of objects
            assert isinstance(line["frozen"], int) and line["frozen"] > 10_000, (part, line)
            assert line["young_threshold"] == YOUNG_THRESHOLD
        started = [json.loads(x) for x in (tmp_path / "worker.log").read_text().splitlines() if '"worker.started"' in x]
        # a command worker's threads hand the GIL on within 0.5 ms, not Python's 5
        assert started and started[0]["switch_interval"] == WORKER_SWITCH_INTERVAL


def test_settling_keeps_collecting_the_cycles_made_after_it() -> None:
    # In a process of its own: a frozen object is never collected, so pytest's must not be.
    script = """
import gc, weakref
from service.runtime.heap import YOUNG_THRESHOLD, settle_heap

class Node:
    pass

settle_heap()
assert gc.get_freeze_count() > 1000, gc.get_freeze_count()
assert gc.get_threshold()[0] == YOUNG_THRESHOLD
a, b = Node(), Node()
a.other, b.other = b, a  # a cycle made after start-up
gone = weakref.ref(a)
del a, b
gc.collect()
assert gone() is None, "a cycle made after settling was not collected"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "ok", done.stdout + done.stderr
    assert gc.get_freeze_count() == 0  # this process was left as it was
