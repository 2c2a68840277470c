"""Starting and ending a player's vacation: the record with the players, and one
`boardlog.vacation` command in every active game of theirs (so each game's log says it, and its
clock stops or runs again), each under an id made of the player and the vacation's number, so a
start or end sent twice applies once. A vacation ends when the player ends it or when its days
run out: `schedule_end` asks for that (the composition root makes it send a delayed
`vacation_over` message on the deadlines queue, workers/vacations.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson
import structlog

from events.domain.platform.clock import VACATION, to_iso
from events.store.store import EventStore
from rules.core import Command
from service.stores.vacations import Vacation, VacationStore

log = structlog.get_logger("boardlog.vacations")

# Submit a platform command: (game, command id, command), as the deadlines worker submits its own.
Submit = Callable[[str, str, Command], object]


class Vacations:
    def __init__(self, store: EventStore, vacations: VacationStore, submit: Submit,
                 schedule_end: Callable[[str, int, int], object], allowance_days: int) -> None:
        self.store = store
        self.vacations = vacations
        self.submit = submit
        self.schedule_end = schedule_end
        self.allowance_days = allowance_days

    def _active(self, seats: dict[str, int]) -> dict[str, int]:
        gids = sorted(seats)
        out = {}
        for gid, raw in zip(gids, self.store.summaries(gids), strict=True):
            if raw is not None and orjson.loads(raw).get("status") == "active":
                out[gid] = seats[gid]
        return out

    def _wait(self, sent: list[tuple[str, str]], seconds: float) -> None:
        """Wait (bounded) until the commands sent are answered, so that whoever asked reads the
        games with their clocks stopped (or running again)."""
        until = time.monotonic() + seconds
        left = list(sent)
        while left and time.monotonic() < until:
            left = [(gid, cid) for gid, cid in left if self.store.result(gid, cid) is None]
            if left:
                time.sleep(0.02)

    def start(self, pid: str, days: float | None, wait: float = 0.0) -> Vacation:
        games = self._active(self.vacations.seats(pid))
        v = self.vacations.start(pid, days, self.allowance_days, games)
        until = to_iso(v.until_ms)
        sent = []
        for gid, seat in games.items():
            cid = self.store.platform_id(gid, f"vacation-{pid}-{v.n}-on")
            self.submit(gid, cid, Command(VACATION, {"on": True, "until": until}, seat))
            sent.append((gid, cid))
        self.schedule_end(pid, v.n, max(0, v.until_ms - self.vacations.now_ms()))
        self._wait(sent, wait)
        log.info("vacation.started", player=pid, n=v.n, games=len(games), until=until)
        return v

    def end(self, pid: str, n: int | None = None, wait: float = 0.0) -> Vacation | None:
        v = self.vacations.end(pid, n)
        if v is None:
            return None
        sent = []
        for gid, seat in v.games.items():
            cid = self.store.platform_id(gid, f"vacation-{pid}-{v.n}-off")
            self.submit(gid, cid, Command(VACATION, {"on": False}, seat))
            sent.append((gid, cid))
        self._wait(sent, wait)
        log.info("vacation.ended", player=pid, n=v.n, games=len(v.games))
        return v

    def shown(self, pid: str) -> dict[str, Any]:
        """The player's vacation as their answers show it: running or not, days used and left."""
        return self.vacations.status(pid).to_json(self.allowance_days, self.vacations.now_ms())
