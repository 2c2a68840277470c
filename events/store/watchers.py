"""The projector's notices, heard once per API process and fanned out to everyone watching.

The projector publishes each game's new summary on that game's channel (project.lua), in the
same script that writes its read models and checkpoint. One connection per API process holds
the subscriptions: a channel is subscribed while anyone in this process watches its game (an
SSE stream, or a read waiting for `min_seq`) and unsubscribed when the last one leaves, so
1,000 watchers cost one connection, not 1,000 from the pool the other reads need.

Pub/sub is only the wake-up: a read waiting for a seq checks the stored checkpoint once the
subscription is confirmed, and once more when its wait ends, so a notice lost with a dropped
connection makes a wait longer, never a wrong answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
import structlog

from events.records.codec import loads
from events.store.layout import GameKeys
from events.store.wire import AsyncLink

log = structlog.get_logger("boardlog.api")

# A watcher slower than this many notices loses the oldest: each notice is a whole summary,
# so the newest one is all a watcher needs.
QUEUE_SIZE = 8


class TooManyWatchers(Exception):
    """A cap on watchers is reached: `scope` is "client" (this client address's) or "total"."""

    def __init__(self, scope: str, cap: int) -> None:
        super().__init__(f"{scope} cap of {cap} watchers reached")
        self.scope = scope
        self.cap = cap


def sse_frame(summary: bytes) -> bytes:
    """A summary as one server-sent event."""
    return b"event: summary\ndata: " + summary + b"\n\n"


class _Woken:
    """What a watcher waits on: one future, set by a notice or by the end of its watch."""

    def __init__(self) -> None:
        self.closed = False
        # The hub lost its subscription: notices may have been missed, so the stream ends and
        # the client reconnects (reading the summary afresh), rather than stay "live" and stale.
        self.broken = False
        self._waiter: asyncio.Future[None] | None = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def end(self) -> None:
        self.broken = True
        self._wake()

    async def _wait(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = loop.call_later(timeout, _time_up, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None


class Watch(_Woken):
    """One watcher's notices, each as its server-sent event (built once for every watcher of
    the game), the newest QUEUE_SIZE kept when it falls behind.

    A deque and one future, not an asyncio.Queue with wait_for: a notice reaches every watcher
    of its game at once, and wait_for makes a task per call (Python 3.11)."""

    def __init__(self, gid: str, client: str) -> None:
        super().__init__()
        self.gid = gid
        self.client = client
        self._frames: deque[bytes] = deque(maxlen=QUEUE_SIZE)

    def put(self, frame: bytes) -> None:
        self._frames.append(frame)
        self._wake()

    async def next(self, timeout: float) -> bytes | None:
        """The next notice's event; None when none came within `timeout` seconds, or at once
        once the watch is broken."""
        if not self._frames and not self.broken:
            await self._wait(timeout)
        return self._frames.popleft() if self._frames else None


class GamesWatch(_Woken):
    """One watcher of several games' notices (a player's stream of the games waiting on them):
    the newest summary of each game that changed since the last `next`, so a burst of moves in
    one game is one change, however slow the reader. Counted as one watcher against the caps."""

    def __init__(self, client: str) -> None:
        super().__init__()
        self.client = client
        self.gids: set[str] = set()
        self._changed: dict[str, bytes] = {}

    def put(self, gid: str, summary: bytes) -> None:
        self._changed[gid] = summary
        self._wake()

    async def next(self, timeout: float) -> dict[str, bytes]:
        """The games changed since the last call, each with its newest summary; empty when none
        changed within `timeout` seconds, or at once once the watch is broken."""
        if not self._changed and not self.broken:
            await self._wait(timeout)
        out, self._changed = self._changed, {}
        return out


def _time_up(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


@dataclass
class _Channel:
    users: int = 0  # watchers and seq waiters of this process on the channel
    outstanding: int = 0  # SUBSCRIBE / UNSUBSCRIBE sent and not yet confirmed
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # subscribed and confirmed
    watches: set[Watch] = field(default_factory=set)
    games_watches: set[GamesWatch] = field(default_factory=set)
    gid: str = ""
    waiters: list[tuple[int, asyncio.Future[None]]] = field(default_factory=list)


class Watchers:
    """The hub: one subscription connection (from the pool `pool()` gives at each connection: on a
    Redis Cluster, any node's, since a PUBLISH reaches every node's subscribers), channels
    counted by their users.

    `per_client` and `total` cap the SSE watchers (0: no cap); seq waiters are not counted
    (each lasts at most its bounded wait)."""

    def __init__(self, pool: Callable[[], aioredis.ConnectionPool], keys: Callable[[str], GameKeys], *,
                 per_client: int = 0, total: int = 0, name: str = "") -> None:
        self.pool = pool
        self.name = name  # the connection's CLIENT SETNAME, so CLIENT LIST tells it apart
        self.keys = keys
        self.per_client = per_client
        self.total = total
        self._channels: dict[bytes, _Channel] = {}
        self._clients: dict[str, int] = {}
        self._count = 0
        self._link: AsyncLink | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._drop_link()

    # -- watchers (SSE) ------------------------------------------------------------------------

    def open(self, gid: str, client: str) -> Watch:
        """A watcher of the game's notices until `close`; TooManyWatchers past a cap (the
        total first: it says the process is full, whoever asks)."""
        self._count_in(client)
        w = Watch(gid, client)
        self._join(gid).watches.add(w)
        return w

    def open_games(self, gids: Iterable[str], client: str) -> GamesWatch:
        """One watcher of these games' notices until `close_games` (caps as `open`)."""
        self._count_in(client)
        w = GamesWatch(client)
        self.watch_games(w, gids)
        return w

    def watch_games(self, w: GamesWatch, gids: Iterable[str]) -> None:
        """The games `w` watches from now: those new to it joined, those no longer left."""
        wanted = set(gids)
        for gid in wanted - w.gids:
            self._join(gid).games_watches.add(w)
        for gid in w.gids - wanted:
            self._channels[self.keys(gid).notify.encode()].games_watches.discard(w)
            self._leave(gid)
        w.gids = wanted

    async def games_subscribed(self, w: GamesWatch, timeout: float) -> bool:
        """As `subscribed`, for every game `w` watches."""
        events = [ch.ready for gid in w.gids if (ch := self._channels.get(self.keys(gid).notify.encode()))]
        try:
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in events)), timeout)
        except TimeoutError:
            return False
        return True

    def close_games(self, w: GamesWatch) -> None:
        if w.closed:
            return
        w.closed = True
        self.watch_games(w, ())
        self._count_out(w.client)

    def _count_in(self, client: str) -> None:
        if self.total and self._count >= self.total:
            raise TooManyWatchers("total", self.total)
        if self.per_client and self._clients.get(client, 0) >= self.per_client:
            raise TooManyWatchers("client", self.per_client)
        self._count += 1
        self._clients[client] = self._clients.get(client, 0) + 1

    def _count_out(self, client: str) -> None:
        self._count -= 1
        left = self._clients[client] - 1
        if left:
            self._clients[client] = left
        else:
            del self._clients[client]

    async def subscribed(self, w: Watch, timeout: float) -> bool:
        """Wait (up to `timeout` s) until the watcher's channel is subscribed: a notice published
        after that reaches it. False when the wait ran out (Redis away: the stream goes on)."""
        ch = self._channels.get(self.keys(w.gid).notify.encode())
        if ch is None:
            return False
        try:
            await asyncio.wait_for(ch.ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def close(self, w: Watch) -> None:
        if w.closed:
            return
        w.closed = True
        self._channels[self.keys(w.gid).notify.encode()].watches.discard(w)
        self._leave(w.gid)
        self._count_out(w.client)

    # -- seq waiters (min_seq) -----------------------------------------------------------------

    async def reached(self, gid: str, seq: int, timeout: float, checkpoint: Callable[[], Awaitable[int]]) -> bool:
        """Whether the game's projection reaches `seq` within `timeout` seconds: `checkpoint`
        reads the stored one. Read once the subscription is confirmed (a notice published
        after that read wakes this waiter), and once more at the end of the wait."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        ch = self._join(gid)
        fut: asyncio.Future[None] = loop.create_future()
        entry = (seq, fut)
        ch.waiters.append(entry)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ch.ready.wait(), max(0.0, deadline - loop.time()))
            if await checkpoint() >= seq:
                return True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(fut, max(0.0, deadline - loop.time()))
                return True
            return await checkpoint() >= seq
        finally:
            with contextlib.suppress(ValueError):
                ch.waiters.remove(entry)
            self._leave(gid)

    # -- the channels ---------------------------------------------------------------------------

    def _join(self, gid: str) -> _Channel:
        name = self.keys(gid).notify.encode()
        ch = self._channels.get(name)
        if ch is None:
            ch = self._channels[name] = _Channel(gid=gid)
        ch.users += 1
        if ch.users == 1:
            self._send(b"SUBSCRIBE", name, ch)
        return ch

    def _leave(self, gid: str) -> None:
        name = self.keys(gid).notify.encode()
        ch = self._channels[name]
        ch.users -= 1
        if ch.users == 0:
            self._send(b"UNSUBSCRIBE", name, ch)
            if self._link is None and ch.outstanding == 0:
                del self._channels[name]

    def _send(self, command: bytes, name: bytes, ch: _Channel) -> None:
        ch.ready.clear()
        if self._link is None:
            return  # subscribed (or not) when the link is made again
        ch.outstanding += 1
        try:
            self._link.send([(command, name)])
        except Exception as e:  # the link broke: _run makes it again and subscribes anew
            log.warning("watchers.send_failed", error=str(e))

    def _confirmed(self, name: bytes) -> None:
        ch = self._channels.get(name)
        if ch is None:
            return
        ch.outstanding = max(0, ch.outstanding - 1)
        if ch.outstanding:
            return
        if ch.users:
            ch.ready.set()
        else:
            del self._channels[name]

    def _deliver(self, name: bytes, data: bytes) -> None:
        ch = self._channels.get(name)
        if ch is None:
            return
        try:
            notice = loads(data)
            seq = int(notice["seq"])
            summary = notice["summary"].encode()
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("watchers.bad_notice", channel=name.decode(errors="replace"))
            return  # not the projector's: never worth dropping the subscription for
        if ch.watches:
            frame = sse_frame(summary)
            for w in ch.watches:
                w.put(frame)
        for g in ch.games_watches:
            g.put(ch.gid, summary)
        if ch.waiters:
            for wanted, fut in ch.waiters:
                if wanted <= seq and not fut.done():
                    fut.set_result(None)

    async def _connect(self) -> None:
        link = await AsyncLink.open(self.pool())
        if self.name:
            link.send([("CLIENT", "SETNAME", self.name)])
            await link.reply()
        self._link = link
        # Every channel someone uses, again: their notices since the drop are lost, and the
        # seq waiters' last read of the checkpoint covers that.
        for name, ch in list(self._channels.items()):
            ch.outstanding = 0
            if ch.users:
                self._send(b"SUBSCRIBE", name, ch)
            else:
                del self._channels[name]

    async def _drop_link(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            with contextlib.suppress(Exception):
                await link.close()

    async def _run(self) -> None:
        pause = 0.0
        while True:
            try:
                if self._link is None:
                    await self._connect()
                assert self._link is not None
                reply: Any = await self._link.reply()
                pause = 0.0
                if not isinstance(reply, list) or len(reply) < 3:
                    continue
                kind = reply[0]
                if kind == b"message":
                    self._deliver(reply[1], reply[2])
                elif kind in (b"subscribe", b"unsubscribe"):
                    self._confirmed(reply[1])
            except asyncio.CancelledError:
                raise
            except Exception as e:  # dropped: waiters fall back on the checkpoint, SSE on keep-alives
                pause = min(1.0, max(0.1, pause * 2))
                log.warning("watchers.listen_failed", error=str(e), retry_in=pause)
                await self._drop_link()
                for ch in self._channels.values():
                    for w in ch.watches:
                        w.end()
                    for g in ch.games_watches:
                        g.end()
                await asyncio.sleep(pause)
