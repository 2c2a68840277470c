"""The wall clock as the envelopes and answers write it (the rules never read a clock)."""

from __future__ import annotations

import time

_second: tuple[int, str] = (-1, "")


def utcnow() -> str:
    """Now as ISO 8601 UTC with milliseconds; the seconds part is formatted once a second."""
    global _second
    sec, ms = divmod(time.time_ns() // 1_000_000, 1000)
    if _second[0] != sec:
        _second = (sec, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)))
    return f"{_second[1]}.{ms:03d}Z"
