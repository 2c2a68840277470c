"""What a seat keeps to itself in a game, outside the game's log: its queue of conditional moves
(with the notice of the last queue dropped) and whether it muted the game's chat.

One hash per game, `<ns>:{pNN}:g:<gid>:private`, in the game's own slot; fields per seat:
`queue:<seat>` (JSON: the entries, the last drop notice, the seq it was set at and the seqs
its answers were played at), `ver:<seat>` (bumped by every
change, so that the worker takes an entry only from the queue it read) and `mute:<seat>`. Never
an event: the log is readable by spectators, a queue is for its seat's eyes only. The append
script answers whether this hash exists, and the worker reads the queues only where it does (a
seat's queue is written here and nowhere else).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from events.records.codec import canonical, loads
from events.store.errors import reports_unavailable
from events.store.store import EventStore, Lua, private_key
from events.store.wire import Links, checked

# Write a seat's queue only if its version is still the one read ('' : whatever it is now), and,
# when ARGV[4] names a seq, only if the game's log (KEYS[2]) still ends there; answer the new
# version, -1 when the queue changed meanwhile, -2 when the game moved on.
_SET_LUA = """
local ver = tonumber(redis.call('HGET', KEYS[1], 'ver:' .. ARGV[1]) or '0')
if ARGV[2] ~= '' and ver ~= tonumber(ARGV[2]) then return -1 end
if ARGV[4] ~= '' then
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
  local head = 0
  if last then head = tonumber(string.match(last[1], '^(%d+)')) end
  if head ~= tonumber(ARGV[4]) then return -2 end
end
redis.call('HSET', KEYS[1], 'queue:' .. ARGV[1], ARGV[3])
return redis.call('HINCRBY', KEYS[1], 'ver:' .. ARGV[1], 1)
"""


@dataclass(frozen=True)
class SeatQueue:
    ver: int = 0
    entries: list[dict[str, Any]] = field(default_factory=list)  # [{"if": str | None, "then": str}]
    dropped: dict[str, Any] | None = None  # the last queue dropped: {seq, reason, last, entries}
    # The game's seq when the seat set it: only a prompt reaching the seat after it plays it.
    since: int = 0
    # The first seq of each command played from it (a takeback that undoes one voids the rest).
    played: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"ver": self.ver, "queue": self.entries, "dropped": self.dropped, "since": self.since}


class SeatPrivate:
    """A game's per-seat private keys (sync: the worker's port, and the API through its thread pool)."""

    def __init__(self, store: EventStore, *, links: bool = True) -> None:
        self.store = store
        # The worker reads the queues after every accepted command: over the thread's own link
        # (events/store/wire.py), which costs a fraction of redis-py's command path. A link
        # is a connection of its own per instance and thread, so the API, which makes one of
        # these a request, goes through redis-py's pool (links=False).
        self._links = Links.for_client(store.r) if links else None
        self._set = Lua(store.r, _SET_LUA, self._links)

    def key(self, gid: str) -> str:
        return private_key(self.store.keys(gid))

    @reports_unavailable
    def queues(self, gid: str, seats: list[int]) -> list[SeatQueue]:
        """Each seat's queue, in one round trip."""
        fields = [f for s in seats for f in (f"queue:{s}", f"ver:{s}")]
        if not fields:
            return []
        if self._links is not None:
            raw = checked(self._links.run([("HMGET", self.key(gid), *fields)]))[0]
        else:
            raw = self.store.r.hmget(self.key(gid), fields)
        out = []
        for i in range(len(seats)):
            body, ver = raw[2 * i], raw[2 * i + 1]
            data = loads(body) if body else {}
            out.append(SeatQueue(int(ver or 0), list(data.get("queue") or []), data.get("dropped"),
                                 int(data.get("since") or 0), [int(x) for x in data.get("played") or []]))
        return out

    def queue(self, gid: str, seat: int) -> SeatQueue:
        return self.queues(gid, [seat])[0]

    @reports_unavailable
    def put(self, gid: str, seat: int, entries: list[dict[str, Any]], dropped: dict[str, Any] | None = None,
            ver: int | None = None, since: int = 0, played: list[int] | None = None) -> int | None:
        """Write the seat's queue (only over version `ver`, when given), set at game seq `since`,
        with answers played from it at the seqs `played`; the new version, or None when the queue
        changed since `ver` was read."""
        got = self._put(gid, seat, entries, dropped, ver, since, played, head=False)
        return None if got < 0 else got

    def set_at(self, gid: str, seat: int, entries: list[dict[str, Any]], since: int) -> int | None:
        """A seat's new queue, set at seq `since`, written only while the game's log still ends at
        `since`: the new version, or None when a command landed meanwhile (read the game again).

        Why: a queue written with a `since` that a command has already passed would look set
        before that command, while the worker, which looks at the queues only where this hash
        exists, may have appended it without looking. Either the queue is in before the command (the
        worker reads it) or it is set after it and waits for the seat's next prompt, as saved."""
        got = self._put(gid, seat, entries, None, None, since, None, head=True)
        return None if got == -2 else got

    def _put(self, gid: str, seat: int, entries: list[dict[str, Any]], dropped: dict[str, Any] | None,
             ver: int | None, since: int, played: list[int] | None, head: bool) -> int:
        body = canonical({"queue": entries, "dropped": dropped, "since": since, "played": played or []})
        k = self.store.keys(gid)
        return int(self._set([private_key(k), k.events],
                             [seat, "" if ver is None else ver, body, since if head else ""]))

    @reports_unavailable
    def muted(self, gid: str, seat: int) -> bool:
        return bool(self.store.r.hexists(self.key(gid), f"mute:{seat}"))

    @reports_unavailable
    def mute(self, gid: str, seat: int, muted: bool) -> None:
        if muted:
            self.store.r.hset(self.key(gid), f"mute:{seat}", "1")
        else:
            self.store.r.hdel(self.key(gid), f"mute:{seat}")
