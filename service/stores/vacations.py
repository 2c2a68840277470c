"""Players' vacations: the one running now and the days taken this year, kept with the players
(`{players}` hash tag) as `<ns>:{players}:vacation:<player>`, a hash: `n` (how many vacations the
player started, ever: each command a vacation sends is named by it), `on` ("1" while away),
`since` and `until` (ms), `year` and `used` (ms taken in that calendar year, UTC), `games` (the
JSON {game: seat} the running one stopped the clocks of)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
import redis

from events.store.errors import reports_unavailable
from service.stores.players import PlayerKeys

DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class Vacation:
    on: bool
    n: int  # the number of the running (or last) vacation
    since_ms: int = 0
    until_ms: int = 0
    used_ms: int = 0  # this year's, the running one not counted
    games: dict[str, int] = field(default_factory=dict)

    def to_json(self, allowance_days: int, now_ms: int) -> dict[str, Any]:
        running = max(0, min(now_ms, self.until_ms) - self.since_ms) if self.on else 0
        used = self.used_ms + running
        return {
            "on": self.on,
            "since": _iso(self.since_ms) if self.on else None,
            "until": _iso(self.until_ms) if self.on else None,
            "allowance_days": allowance_days,
            "used_days": round(used / DAY_MS, 2),
            "used_seconds": used / 1000,
            "left_days": round(max(0, allowance_days * DAY_MS - used) / DAY_MS, 2),
            "games": sorted(self.games),
        }


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _year(ms: int) -> int:
    return datetime.fromtimestamp(ms / 1000, UTC).year


class VacationRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _s(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class VacationStore:
    def __init__(self, r: redis.Redis, namespace: str, clock: Callable[[], float] = time.time) -> None:
        self.r = r
        self.base = f"{namespace}:{{players}}"
        self.clock = clock

    def key(self, pid: str) -> str:
        return f"{self.base}:vacation:{pid}"

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    @staticmethod
    def _read(raw: dict[Any, Any], now_ms: int) -> Vacation:
        d = {_s(k): _s(v) for k, v in raw.items()}
        used = int(d.get("used", 0)) if d.get("year") == str(_year(now_ms)) else 0
        return Vacation(d.get("on") == "1", int(d.get("n", 0)), int(d.get("since", 0)), int(d.get("until", 0)),
                        used, orjson.loads(d["games"]) if d.get("games") else {})

    @reports_unavailable
    def status(self, pid: str) -> Vacation:
        return self._read(self.r.hgetall(self.key(pid)), self.now_ms())

    @reports_unavailable
    def start(self, pid: str, days: float | None, allowance_days: int, games: dict[str, int]) -> Vacation:
        """Start a vacation of `days` (None: all the days left this year); refused when one runs
        or no day is left. Checked and written under WATCH, so two starts at once make one."""
        key = self.key(pid)
        with self.r.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(key)
                    now = self.now_ms()
                    v = self._read(pipe.hgetall(key), now)
                    if v.on:
                        raise VacationRefused("vacation_on", "a vacation is running: end it first")
                    left = allowance_days * DAY_MS - v.used_ms
                    if left <= 0:
                        raise VacationRefused("no_vacation_left", f"the {allowance_days} vacation days of this "
                                                                  "year are taken")
                    length = left if days is None else min(left, int(days * DAY_MS))
                    pipe.multi()
                    pipe.hset(key, mapping={"n": v.n + 1, "on": "1", "since": now, "until": now + length,
                                            "year": _year(now), "used": v.used_ms, "games": orjson.dumps(games)})
                    pipe.execute()
                    return Vacation(True, v.n + 1, now, now + length, v.used_ms, games)
                except redis.WatchError:
                    continue

    @reports_unavailable
    def end(self, pid: str, n: int | None = None) -> Vacation | None:
        """End the running vacation (only vacation `n` when given); the vacation as it ran, or
        None when none was running. Its days count to this year's."""
        key = self.key(pid)
        with self.r.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(key)
                    now = self.now_ms()
                    v = self._read(pipe.hgetall(key), now)
                    if not v.on or (n is not None and v.n != n):
                        pipe.reset()
                        return None
                    used = v.used_ms + max(0, min(now, v.until_ms) - v.since_ms)
                    pipe.multi()
                    pipe.hset(key, mapping={"on": "0", "year": _year(now), "used": used})
                    pipe.execute()
                    return v
                except redis.WatchError:
                    continue

    @reports_unavailable
    def seats(self, pid: str) -> dict[str, int]:
        """Game id -> the seat `pid` holds there (the players' claims, read on this client)."""
        keys = PlayerKeys(self.base.rsplit(":", 1)[0])
        gids = [_s(g) for g in self.r.zrange(keys.games(pid), 0, -1)]
        if not gids:
            return {}
        pipe = self.r.pipeline(transaction=False)
        for gid in gids:
            pipe.hgetall(keys.claims(gid))
        out = {}
        for gid, claims in zip(gids, pipe.execute(), strict=True):
            for seat, holder in claims.items():
                if _s(holder) == pid:
                    out[gid] = int(seat)
        return out

    @reports_unavailable
    def away_in(self, gid: str) -> dict[int, tuple[str, Vacation]]:
        """Seat -> (player, their running vacation) for the seats of `gid` whose player is away."""
        keys = PlayerKeys(self.base.rsplit(":", 1)[0])
        claims = {int(seat): _s(pid) for seat, pid in self.r.hgetall(keys.claims(gid)).items()}
        out = {}
        for seat, pid in claims.items():
            v = self.status(pid)
            if v.on:
                out[seat] = (pid, v)
        return out

    @reports_unavailable
    def add_game(self, pid: str, n: int, gid: str, seat: int) -> bool:
        """Count `gid` among the games vacation `n` stopped (so its end restarts that clock too);
        False when that vacation is no longer running."""
        key = self.key(pid)
        with self.r.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(key)
                    v = self._read(pipe.hgetall(key), self.now_ms())
                    if not v.on or v.n != n:
                        pipe.reset()
                        return False
                    pipe.multi()
                    pipe.hset(key, "games", orjson.dumps({**v.games, gid: seat}))
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue
