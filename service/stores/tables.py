"""Open tables: games that wait for players to take their free seats before they are set up.

A table is account data until it is full, like a claim: it lives with the players, under the
`{players}` hash tag (`<ns>:{players}:table:<gid>`, a hash, and `<ns>:{players}:tables`, the
forming tables, and full ones not started yet, by when they expire), so a join, its seat and, at the start, every player's
claim are each one script on one slot. The game itself (its partition's keys) does not exist
until the table is full: nothing of a forming table is in any game's log.

The table's hash holds `game`, `options` (JSON), `creator` (a player id) and `creator_name`, `created`,
`expires`, `status` (forming, full, started, cancelled, expired), `ver` (written by every
change, so a join computed from one read applies only to that read), `free` (seats still
open), `seed` (the game's secret seed, drawn at creation, dropped once the game holds it),
`admin` (the admin token's digest), `filled_at` (when the last seat was taken: the time of the
game's first events) and one `seat:<i>` field per seat, JSON: `{"name", "player", "entropy",
"token", "open"}` (`token` is the seat token's digest, never the token).

Every call raises `StoreUnavailable` when Redis is out of reach.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
import redis.asyncio as aioredis

from events.store.errors import reaching_redis
from service.stores.players import PlayerKeys

T = TypeVar("T")

# A started, cancelled or expired table is kept this long, so that its link still says what
# became of it; then Redis drops it.
KEEP_CLOSED_SECONDS = 7 * 86400

# Take a seat: only if the table is still the one the caller read (`ver`), still forming and
# not expired, and the player holds no seat of it. The last seat makes the table full.
_JOIN = """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 'is:gone' end
if st ~= 'forming' then return 'is:' .. st end
if tonumber(redis.call('HGET', KEYS[1], 'expires')) <= tonumber(ARGV[5]) then return 'is:expired' end
if redis.call('HGET', KEYS[1], 'ver') ~= ARGV[1] then return 'retry' end
redis.call('HSET', KEYS[1], 'seat:' .. ARGV[2], ARGV[3])
redis.call('HINCRBY', KEYS[1], 'ver', 1)
local free = redis.call('HINCRBY', KEYS[1], 'free', -1)
if free <= 0 then
  -- Still listed: until its start has run, any listing of the tables finishes a start cut short.
  redis.call('HSET', KEYS[1], 'status', 'full', 'filled_at', ARGV[6])
  return 'full'
end
return 'ok'
"""

# End a forming table (cancelled by its creator, or expired): only from `forming`, so a table
# that filled in the meantime starts instead. ARGV[3] > 0: only if it has expired by then.
_CLOSE = """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then redis.call('ZREM', KEYS[2], ARGV[1]) return 'gone' end
if st ~= 'forming' then return st end
if tonumber(ARGV[3]) > 0 and tonumber(redis.call('HGET', KEYS[1], 'expires')) > tonumber(ARGV[3]) then
  return 'forming'
end
redis.call('HSET', KEYS[1], 'status', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'ver', 1)
redis.call('HDEL', KEYS[1], 'seed')
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 'ok'
"""

# Every seat of a full table that names a player is claimed for them (the same claims as a
# seat link's): before its game is stored (ARGV[#ARGV] "claim"), so that whatever follows the
# game's first events (the notifier) finds its players; then, once the game exists ("start"),
# again, with the seed out of the table and the table out of the list. Run again (after a
# crash) it writes the same.
_STARTED = """
local st = redis.call('HGET', KEYS[1], 'status')
if st ~= 'full' and st ~= 'started' then return st or 'gone' end
local n = #ARGV - 3
for i = 1, n, 2 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[3 + (i + 1) / 2], ARGV[n + 2], ARGV[n + 1])
end
if ARGV[#ARGV] == 'start' then
  redis.call('HSET', KEYS[1], 'status', 'started')
  redis.call('HDEL', KEYS[1], 'seed')
  redis.call('ZREM', KEYS[2], ARGV[n + 1])
  redis.call('EXPIRE', KEYS[1], KEEP)
end
return 'ok'
""".replace("KEEP", str(KEEP_CLOSED_SECONDS))


@dataclass(frozen=True, slots=True)
class TableSeat:
    seat: int
    name: str | None  # None: an open seat nobody has taken
    player: str | None  # the player id the seat is (or will be) claimed for
    entropy: str
    token: str | None  # the seat token's sha256 digest
    open: bool  # the seat was open at creation (taken or not)

    def to_json(self) -> bytes:
        return orjson.dumps({"name": self.name, "player": self.player, "entropy": self.entropy,
                             "token": self.token, "open": self.open})

    @classmethod
    def from_json(cls, seat: int, raw: bytes) -> TableSeat:
        d = orjson.loads(raw)
        return cls(seat, d["name"], d["player"], d["entropy"], d["token"], d["open"])


@dataclass(frozen=True, slots=True)
class Table:
    gid: str
    game: str
    options: dict[str, Any]
    creator: str
    creator_name: str
    created: float
    expires: float
    status: str
    ver: str
    seats: tuple[TableSeat, ...]
    seed: bytes | None
    admin: str
    filled_at: str | None
    # The game's referee, when it names one: {"name", "player": id or None, "token": digest or None}.
    referee: Mapping[str, Any] | None = None

    @property
    def free(self) -> list[int]:
        return [s.seat for s in self.seats if s.name is None]

    def seat_of(self, pid: str) -> int | None:
        return next((s.seat for s in self.seats if s.player == pid), None)


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _table(gid: str, h: Mapping[bytes, bytes]) -> Table:
    seats = sorted(
        (TableSeat.from_json(int(k[5:]), v) for k, v in h.items() if k.startswith(b"seat:")), key=lambda s: s.seat)
    seed = h.get(b"seed")
    filled = h.get(b"filled_at")
    referee = h.get(b"referee")
    return Table(gid, _text(h[b"game"]), orjson.loads(h[b"options"]), _text(h[b"creator"]),
                 _text(h[b"creator_name"]), float(h[b"created"]),
                 float(h[b"expires"]), _text(h[b"status"]), _text(h[b"ver"]), tuple(seats),
                 None if seed is None else bytes.fromhex(_text(seed)), _text(h[b"admin"]),
                 None if filled is None else _text(filled), None if referee is None else orjson.loads(referee))


class TableStore:
    """Open tables on the API's async client; takes its client, never makes one."""

    def __init__(self, aio: aioredis.Redis, namespace: str, clock: Callable[[], float] = time.time) -> None:
        self.aio = aio
        self.players = PlayerKeys(namespace)
        self.clock = clock

    def key(self, gid: str) -> str:
        return f"{self.players.base}:table:{gid}"

    @property
    def index(self) -> str:
        """The forming tables (and the full ones whose start has not finished), scored by when
        they expire."""
        return f"{self.players.base}:tables"

    async def _run(self, call: Callable[[], Awaitable[T]]) -> T:
        with reaching_redis():
            return await call()

    async def open(self, gid: str, game: str, options: Mapping[str, Any], creator: tuple[str, str], expires: float,
                   seats: list[TableSeat], seed: bytes, admin_digest: str,
                   referee: Mapping[str, Any] | None = None) -> None:
        """A new forming table (free seats among `seats`), listed until `expires`."""
        now = self.clock()
        record: dict[str, Any] = {
            "game": game, "options": orjson.dumps(dict(options), option=orjson.OPT_SORT_KEYS), "creator": creator[0],
            "creator_name": creator[1], "created": repr(now), "expires": repr(expires), "status": "forming", "ver": "1",
            "free": str(sum(1 for s in seats if s.name is None)), "seed": seed.hex(), "admin": admin_digest,
            **{f"seat:{s.seat}": s.to_json() for s in seats},
            **({} if referee is None else {"referee": orjson.dumps(dict(referee), option=orjson.OPT_SORT_KEYS)}),
        }

        async def write() -> None:
            pipe = self.aio.pipeline(transaction=True)
            pipe.hset(self.key(gid), mapping=record)  # type: ignore[arg-type]
            # A backstop: a table nobody looks at again still leaves Redis in time.
            pipe.expireat(self.key(gid), int(expires) + 1 + KEEP_CLOSED_SECONDS)
            pipe.zadd(self.index, {gid: expires})
            await pipe.execute()

        await self._run(write)

    async def get(self, gid: str) -> Table | None:
        h: dict[bytes, bytes] = await self._run(lambda: self.aio.hgetall(self.key(gid)))  # type: ignore[arg-type, return-value]
        return _table(gid, h) if h.get(b"status") else None

    async def join(self, table: Table, seat: TableSeat, filled_at: str) -> str:
        """Writes `seat` (taken by a player) into `table` as read: "ok", "full" (this join took
        the last seat: now start it), "retry" (the table changed since it was read), or, written
        nothing, "is:<status>" (the table is "is:full", "is:started", "is:cancelled",
        "is:expired" or "is:gone"), never to be mistaken for this join's own "full"."""
        got = await self._run(lambda: self.aio.eval(
            _JOIN, 2, self.key(table.gid), self.index, table.ver, str(seat.seat), seat.to_json(), table.gid,
            repr(self.clock()), filled_at))
        return _text(got)

    async def close(self, gid: str, status: str, expired_by: float = 0.0) -> str:
        """Ends a forming table as `status` ("cancelled", "expired"); with `expired_by`, only one
        that expired by then. "ok", or the status that kept it from closing."""
        got = await self._run(lambda: self.aio.eval(
            _CLOSE, 2, self.key(gid), self.index, gid, status, repr(expired_by), str(KEEP_CLOSED_SECONDS)))
        return _text(got)

    async def started(self, table: Table, final: bool = True) -> str:
        """Claims each player's seat of a full table; `final` (once its game exists): marks it
        started, drops its seed and takes it off the list."""
        held = [s for s in table.seats if s.player is not None]
        keys = [self.key(table.gid), self.index, self.players.claims(table.gid),
                *(self.players.games(s.player) for s in held if s.player is not None)]
        args: list[str] = []
        for s in held:
            args += [str(s.seat), s.player or ""]
        args += [table.gid, repr(self.clock()), "start" if final else "claim"]
        got = await self._run(lambda: self.aio.eval(_STARTED, len(keys), *keys, *args))
        return _text(got)

    async def forming(self, limit: int = 200) -> tuple[list[Table], list[str]]:
        """Up to `limit` listed tables (forming, or full with their start not finished), the
        soonest to expire first, and the ids of those listed whose time is up (for the caller to
        close, or start)."""
        now = self.clock()
        expired = [_text(g) for g in await self._run(lambda: self.aio.zrangebyscore(self.index, "-inf", now))]
        gids = [_text(g) for g in await self._run(
            lambda: self.aio.zrangebyscore(self.index, f"({now}", "+inf", start=0, num=limit))]
        if not gids:
            return [], expired

        async def read() -> list[Any]:
            pipe = self.aio.pipeline(transaction=False)
            for gid in gids:
                pipe.hgetall(self.key(gid))
            return await pipe.execute()

        tables = [_table(gid, h) for gid, h in zip(gids, await self._run(read), strict=True) if h.get(b"status")]
        return tables, expired
