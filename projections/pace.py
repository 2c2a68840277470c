"""How long a busy game waits between two of its projections.

A game's events that arrive within one gap are projected together (one fold of the tail, one
set of read models, one write). While the projector is light the gap is its floor (50 ms by
default: a spectator sees a move that soon). Under load most of a projection's cost is per
projection, not per event (on the bench's race game ~120 us a projection against ~37 a
command), and at 64 busy games a 50 ms gap merges fewer than two commands: the projector then
spends on re-projecting what a longer gap would have merged the CPU the command path needs.
So the gap follows the projector's own CPU share: while it stays above `share` the gap grows
(to `max_gap`), and once the share falls below half of that it shrinks back to the floor. A
reader who waits for a seq (`?min_seq`) never waits out the gap: its entry is urgent.
"""

from __future__ import annotations

GROW = 1.5  # the gap's change at each window's end


class Pace:
    """The projection gap, adjusted once a `window` (seconds) from the CPU the projector used: from
    the floor to the ceiling in a few seconds of load."""

    def __init__(self, min_gap: float, max_gap: float, share: float = 0.10, window: float = 0.5) -> None:
        if not 0 <= min_gap <= max_gap:
            raise ValueError("the gaps must satisfy 0 <= min_gap <= max_gap")
        self.min_gap, self.max_gap, self.share, self.window = min_gap, max_gap, share, window
        self.gap = min_gap
        self._since: float | None = None
        self._cpu_then = 0.0

    def observe(self, now: float, cpu: float) -> float:
        """Told the wall clock (`time.monotonic`) and the process's CPU seconds
        (`time.process_time`) at each step; returns the gap to use now."""
        if self._since is None:
            self._since, self._cpu_then = now, cpu
            return self.gap
        elapsed = now - self._since
        if elapsed < self.window:
            return self.gap
        used = (cpu - self._cpu_then) / elapsed
        if used > self.share:
            self.gap = min(self.max_gap, max(self.gap * GROW, self.min_gap))
        elif used < self.share / 2:
            self.gap = max(self.min_gap, self.gap / GROW)
        self._since, self._cpu_then = now, cpu
        return self.gap
