"""The parts' stop signal: a second signal while the first handler is setting the event must
not hang the process (Ctrl-C reaches the whole group, then serve sends SIGTERM)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator

import pytest

from service.runtime.launcher import stop_event


@pytest.fixture
def handlers() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, h in saved.items():
        signal.signal(s, h)


def test_a_second_signal_inside_the_first_handlers_set_does_not_hang(handlers: None) -> None:
    stop = stop_event()
    handler = signal.getsignal(signal.SIGINT)
    assert callable(handler)
    handler(signal.SIGINT, None)  # the first signal
    assert stop.is_set()
    again = signal.getsignal(signal.SIGTERM)
    assert callable(again)

    def second_while_setting() -> None:
        with stop._cond:  # type: ignore[attr-defined]  # what Event.set holds when the next signal lands
            again(signal.SIGTERM, None)

    t = threading.Thread(target=second_while_setting, daemon=True)
    t.start()
    t.join(timeout=2)
    assert not t.is_alive(), "the second signal's handler waited on the lock the first one holds"
