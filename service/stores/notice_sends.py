"""The record of each notice's send, kept so notices go out in order and once, crash or not.

A send is recorded before it starts and after it ends. Before: the notice's lease (`sending:<key>`,
the same as TargetStore's), the lock of its lane (one game, player and target: one send at a time
there), the newest seq leased in that lane, and its count of tries (`tried:<key>`). After: the mark
(TargetStore.mark_sent), then the lock and the count go. So a send that finds its count already
above zero repeats one that began and was never marked: its process died mid-send, and the
receiver may have it (the message says it is a repeat). A notice older than one already leased in
its lane, or waiting for it, is superseded: it would arrive after newer news of the same game, so
it is dropped (a burst of moves is told by its newest notice, not one a second).

A lease or lock names its holder as `<process>|<message>`; each notify process keeps an `alive:`
key that lapses a few seconds after the process dies, and a lease of a dead process is free at
once, so nothing waits out a dead send's lease after a crash. The same process lists itself under
its dramatiq broker id (`notify-holders`): a live notify process puts back on the queue the
messages a dead one had fetched (its dramatiq ack sets), where dramatiq's own maintenance waits for
the heartbeat timeout and then only on a chance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from events.store.errors import reports_unavailable
from service.stores.notifications import MARK_SECONDS, TargetStore

ALIVE_MS = 5000  # a notify process silent this long is dead: its leases are free

_LEASE = """
local me = ARGV[1]
local function free(v)
  if (not v) or v == me then return true end
  local p = string.match(v, '^(.-)|')
  return p ~= nil and p ~= '' and redis.call('EXISTS', ARGV[5] .. p) == 0
end
if redis.call('EXISTS', KEYS[1]) == 1 then return {'sent', 0, 0} end
local seq = tonumber(ARGV[3])
local newest = tonumber(redis.call('GET', KEYS[4]) or '0')
if ARGV[4] == '1' and seq < newest then return {'superseded', newest, 0} end
local function busy(k)
  -- A notice waiting for its lane is the lane's newest news: the older ones waiting behind the
  -- send under way are superseded at their next look, so a burst goes out as its newest notice.
  if ARGV[4] == '1' and seq > newest then redis.call('SET', KEYS[4], seq, 'EX', ARGV[6]) end
  return {'busy', redis.call('PTTL', k), 0}
end
if not free(redis.call('GET', KEYS[2])) then return busy(KEYS[2]) end
if not free(redis.call('GET', KEYS[5])) then return busy(KEYS[5]) end
redis.call('SET', KEYS[2], me, 'PX', ARGV[2])
redis.call('SET', KEYS[5], me, 'PX', ARGV[2])
if seq > newest then redis.call('SET', KEYS[4], seq, 'EX', ARGV[6]) end
local tries = redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], ARGV[6])
return {'leased', newest, tries}
"""

# Free what this holder holds (a lock another took over is left alone); ARGV[2] '1' also
# forgets the tries (the send ended: marked, or refused by the receiver).
_RELEASE = """
for i = 1, 2 do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
if ARGV[2] == '1' then redis.call('DEL', KEYS[3]) end
return 1
"""

# Put a dead consumer's fetched messages (its ack set) back on their queue, and wake a consumer
# for each (workers/broker.py's wake list, at most 64 tokens).
_REQUEUE = """
local n = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('HEXISTS', KEYS[3], id) == 1 then
    redis.call('RPUSH', KEYS[2], id)
    n = n + 1
  end
end
redis.call('DEL', KEYS[1])
for i = 1, math.min(n, 64) do redis.call('LPUSH', KEYS[4], 1) end
redis.call('LTRIM', KEYS[4], 0, 63)
return n
"""


@dataclass(frozen=True, slots=True)
class Lease:
    state: str  # "leased" | "sent" | "superseded" | "busy"
    wait_ms: int = 0  # busy: how long the other holder's lease may last
    newest: int = 0  # superseded: the seq of the newer notice of the lane
    tries: int = 0  # leased: this send's number (above 1: a repeat of one never marked)

    @property
    def repeat(self) -> bool:
        return self.state == "leased" and self.tries > 1


class SendLedger:
    """The sends' records, on the targets' client and keys (all under the `{players}` tag)."""

    def __init__(self, targets: TargetStore) -> None:
        self.r: Any = targets.r
        self.base = targets.keys.base
        self.lease_key = targets.keys.lease
        self.mark_key = targets.keys.mark
        self._lease = self.r.register_script(_LEASE)
        self._release = self.r.register_script(_RELEASE)

    def _keys(self, key: str, lane: str) -> list[str]:
        return [self.mark_key(key), self.lease_key(key), f"{self.base}:tried:{key}",
                f"{self.base}:newest:{lane}", f"{self.base}:lane:{lane}"]

    @reports_unavailable
    def lease(self, key: str, lane: str, seq: int, holder: str, lease_ms: int, ordered: bool = True) -> Lease:
        """Record that `holder` begins sending notice `key` (seq `seq`) in `lane`, or say why not.
        `ordered` False: a notice that may follow newer ones (a dispute's delayed reminder)."""
        got = self._lease(keys=self._keys(key, lane),
                          args=[holder, lease_ms, seq, "1" if ordered else "0", f"{self.base}:alive:", MARK_SECONDS])
        state = got[0].decode() if isinstance(got[0], bytes) else str(got[0])
        if state == "busy":
            return Lease(state, wait_ms=max(0, int(got[1])))
        if state == "superseded":
            return Lease(state, newest=int(got[1]))
        return Lease(state, tries=int(got[2]))

    @reports_unavailable
    def release(self, key: str, lane: str, holder: str, ended: bool) -> None:
        """The send is over (marked sent, or refused: `ended`), or broke off (the count stays)."""
        k = self._keys(key, lane)
        self._release(keys=[k[1], k[4], k[2]], args=[holder, "1" if ended else "0"])

    # -- the notify processes' liveness ----------------------------------------------------

    @reports_unavailable
    def alive(self, process: str, broker_id: str | None, ms: int = ALIVE_MS) -> None:
        """`process` runs notify jobs (as dramatiq consumer `broker_id`, when it has one)."""
        pipe = self.r.pipeline(transaction=False)
        pipe.set(f"{self.base}:alive:{process}", 1, px=ms)
        if broker_id is not None:
            pipe.hset(f"{self.base}:notify-holders", broker_id, process)
        pipe.execute()

    @reports_unavailable
    def dead_holders(self, mine: str) -> list[str]:
        """The broker ids of notify processes that are gone (not `mine`)."""
        holders = {_text(k): _text(v) for k, v in self.r.hgetall(f"{self.base}:notify-holders").items()}
        ids = [b for b in holders if b != mine]
        if not ids:
            return []
        alive = self.r.exists  # one call per holder: a handful of processes
        return [b for b in ids if not alive(f"{self.base}:alive:{holders[b]}")]

    @reports_unavailable
    def forget_holder(self, broker_id: str) -> None:
        self.r.hdel(f"{self.base}:notify-holders", broker_id)


class DeadConsumers:
    """Takes back the messages a dead notify process had fetched, on the broker's own Redis."""

    def __init__(self, broker_client: Any, namespace: str) -> None:
        self.r: Any = broker_client
        self.ns = namespace
        self._requeue = self.r.register_script(_REQUEUE)

    @reports_unavailable
    def requeue(self, broker_id: str, queues: tuple[str, ...]) -> int:
        """How many of `broker_id`'s fetched messages of `queues` went back on them."""
        n = 0
        for q in queues:
            n += int(self._requeue(keys=[f"{self.ns}:__acks__.{broker_id}.{q}", f"{self.ns}:{q}",
                                         f"{self.ns}:{q}.msgs", f"{self.ns}:{q}.wake"]))
        return n


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)
