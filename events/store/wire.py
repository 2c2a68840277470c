"""The Redis protocol spoken directly, for the hot paths: commands packed by hiredis, written at
once, replies parsed by a hiredis Reader. `Link` (sync, a thread's own connection for the worker
and the store) and `AsyncLink` with `Batch` (the API's one-round-trip command path and its raw
reply subscription) share everything but the socket calls.

redis-py spends ~40 us of client CPU a round trip on top of the I/O (pool checkout with a
readiness poll, a Pipeline object, argument checks and observability hooks); a command costs
the worker four such round trips and the API two. Here redis-py only opens the connection (URL,
auth, db, TLS, client name); from then on a batch is one write and its replies are parsed from
the stream: ~30 us of client CPU a round trip of two commands instead of ~70 (measured beside a
redis-py pipeline on one machine). Only for a plain Redis client: a cluster client (it picks
the node) and fakeredis keep redis-py.

Every error that means "Redis is out of reach" (a refused or dropped connection, a timeout, a
server still loading its data) leaves this module as `StoreUnavailable`; an error reply to one
command is returned in its place as a `ResponseError`, for `checked` to raise or `no_script`
to recognise.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

import hiredis
import redis
import redis.asyncio as aioredis
from redis import exceptions as rx

from events.store.errors import StoreUnavailable

MAX_IDLE = 64  # a Batch's idle connections kept for the next request
_CHUNK = 65536


class _Dropped(Exception):
    """The connection broke mid-batch (closed, reset, or a server still loading): inside this
    module only, where a batch is sent once more on a new connection before giving up."""


# -- shared: packing, replies, connection set-up -----------------------------------------------

def pack(commands: Sequence[Sequence[Any]]) -> bytes:
    """The commands as one write."""
    return b"".join([hiredis.pack_command(tuple(c)) for c in commands])


def reply_reader() -> Any:
    """A parser for one connection's replies; an error reply comes out as its ResponseError."""
    return hiredis.Reader(replyError=rx.ResponseError)


def loading(replies: list[Any]) -> None:
    """Raise StoreUnavailable when the server answered that it is still loading its data after a
    restart (the caller waits and tries again, as for a dropped connection)."""
    for r in replies:
        if isinstance(r, rx.ResponseError) and str(r).startswith("LOADING"):
            raise StoreUnavailable(str(r))


def checked(replies: list[Any]) -> list[Any]:
    """The replies, raising the first error reply."""
    for r in replies:
        if isinstance(r, rx.ResponseError):
            raise r
    return replies


def no_script(reply: Any) -> bool:
    """Whether a reply says the server has not got the script (it was restarted or flushed)."""
    return isinstance(reply, rx.ResponseError) and str(reply).startswith("NOSCRIPT")


def _loading_or(out: list[Any]) -> list[Any]:
    """`out`, or _Dropped when the server is still loading: a batch it refused is sent again."""
    try:
        loading(out)
    except StoreUnavailable as e:
        raise _Dropped(str(e)) from None
    return out


def _unavailable(e: BaseException | str) -> StoreUnavailable:
    return StoreUnavailable(f"Redis out of reach: {e}")


def _opened(pool: redis.ConnectionPool) -> tuple[Any, socket.socket]:
    """A new connection of `pool`, with redis-py's handshake (AUTH, SELECT, client name) done,
    and its socket (plain or TLS), driven directly from here."""
    conn: Any = pool.make_connection()
    try:
        conn.connect()
    except (rx.ConnectionError, rx.TimeoutError) as e:
        raise _Dropped(str(e)) from None
    sock = conn._sock
    if not isinstance(sock, socket.socket):
        conn.disconnect()
        raise TypeError(f"{type(conn).__name__} has no socket to drive")
    return conn, sock


async def _opened_async(pool: aioredis.ConnectionPool) -> Any:
    conn = pool.make_connection()
    try:
        await conn.connect()
    except (rx.ConnectionError, rx.TimeoutError, OSError) as e:
        raise _Dropped(str(e)) from None
    return conn


def _kernel_timeout(sock: socket.socket) -> None:
    """Keep a plain socket's timeout (redis-py's `socket_timeout`, 5 s by default) in the kernel
    (SO_RCVTIMEO, SO_SNDTIMEO) and make the socket blocking. Python keeps a socket's own timeout
    with a poll() before every send and every recv: two syscalls more a round trip, each letting
    go of the GIL and taking it again, which costs the threads of a worker more than the poll.
    A send or recv past the timeout then fails with EAGAIN (BlockingIOError), which `_run` takes
    as the timeout it was. A TLS socket keeps Python's timeout (its reads are not plain recvs)."""
    timeout = sock.gettimeout()
    if type(sock) is not socket.socket or not timeout:
        return
    tv = struct.pack("ll", int(timeout), int(timeout % 1 * 1_000_000))
    sock.settimeout(None)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)


# -- sync: a thread's own connection ----------------------------------------------------------

class Link:
    """One connection, used by one thread at a time; made by redis-py (URL, auth, db), then driven raw."""

    def __init__(self, pool: redis.ConnectionPool) -> None:
        self.pool = pool
        self._conn: Any = None
        self._sock: socket.socket | None = None
        self._reader: Any = None
        self._buf = bytearray(_CHUNK)
        self.reconnects = 0  # batches sent again on a new connection
        self._owed = 0  # replies to commands sent by `send`, read (and dropped) before the next batch's
        # Replies to commands sent by `send_kept`: with the `send` ones, in the order sent (True:
        # kept for `collect`), read before the next batch's; `_stash` the kept ones read so far.
        self._due: deque[bool] = deque()
        self._stash: list[Any] = []
        self._lost = False  # the connection broke with kept replies due: `collect` raises

    def _connect(self) -> socket.socket:
        self._conn, sock = _opened(self.pool)
        _kernel_timeout(sock)
        self._sock, self._reader = sock, reply_reader()
        return sock

    def close(self) -> None:
        if self._conn is not None:
            self._conn.disconnect()
        self._conn = self._sock = self._reader = None
        self._owed = 0
        if any(self._due):
            self._lost = True
        self._due.clear()

    def send(self, commands: Sequence[Sequence[Any]]) -> None:
        """Send commands without waiting for their replies: they are read, and dropped, with
        the next batch's. For writes whose outcome nobody waits on; an error reply among them
        is lost, and so are the commands themselves if the connection breaks before Redis
        reads them."""
        try:
            sock = self._sock or self._connect()
            sock.sendall(pack(commands))
        except (OSError, _Dropped) as e:
            self.close()
            raise _unavailable(e) from None
        self._owed += len(commands)
        self._due.extend([False] * len(commands))

    def send_kept(self, commands: Sequence[Sequence[Any]]) -> None:
        """Send commands without waiting for their replies, which `collect` returns: Redis runs
        them while this thread goes on (a batch's writes, sent as each is ready)."""
        try:
            sock = self._sock or self._connect()
            sock.sendall(pack(commands))
        except (OSError, _Dropped) as e:
            self.close()
            self._lost = True
            raise _unavailable(e) from None
        self._owed += len(commands)
        self._due.extend([True] * len(commands))

    def collect(self) -> list[Any]:
        """The replies to the commands `send_kept` sent since the last `collect` (or
        `forget_kept`), in order; an error reply is returned as its ResponseError. StoreUnavailable
        when the connection broke before they were all read: whether those ran is unknown."""
        if any(self._due):
            self.run([])  # reads every reply due
        out, self._stash = self._stash, []
        if self._lost:
            self._lost = False
            raise _unavailable("the connection broke with replies due")
        try:
            return _loading_or(out)
        except _Dropped as e:  # still loading: those commands did not run
            raise _unavailable(e) from None

    def forget_kept(self) -> None:
        """Drop the replies of `send_kept` commands not collected (a batch given up halfway)."""
        self._due = deque(False for _ in self._due)
        self._stash, self._lost = [], False

    def run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """The replies in order; an error reply is returned as its ResponseError, not raised.

        A broken connection is made again and the batch sent once more, as redis-py's own
        retry does: every batch sent here is safe to repeat. StoreUnavailable when the second
        try fails too.
        """
        try:
            return self._run(commands)
        except _Dropped:
            self.reconnects += 1
        try:
            return self._run(commands)
        except _Dropped as e:
            raise _unavailable(e) from None

    def _run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        try:
            sock = self._sock or self._connect()
            reader = self._reader
            sock.sendall(pack(commands))
            owed = self._owed
            out: list[Any] = []
            buf = self._buf
            while len(out) < owed + len(commands):
                got = reader.gets()
                if got is False:
                    n = sock.recv_into(buf)
                    if n == 0:
                        raise _Dropped("Redis closed the connection")
                    reader.feed(buf, 0, n)
                else:
                    if len(out) < owed:
                        self._owed -= 1
                        if self._due.popleft():
                            self._stash.append(got)
                    out.append(got)
            return _loading_or(out[owed:])
        except (TimeoutError, BlockingIOError) as e:  # the socket's timeout (_kernel_timeout): not sent
            self.close()                              # again, the server may be busy
            raise _unavailable(f"timeout talking to Redis: {e}") from None
        except OSError as e:
            self.close()
            raise _Dropped(f"error talking to Redis: {e}") from None
        except BaseException:
            self.close()  # cancelled or broken halfway: the connection's state is unknown
            raise


class Links:
    """One `Link` a thread over a plain redis-py client's pool; `None` from `for_client` where
    the client is not plain (a cluster client, fakeredis): callers keep redis-py there."""

    def __init__(self, pool: redis.ConnectionPool) -> None:
        self.pool = pool
        self._local = threading.local()

    @classmethod
    def for_client(cls, client: Any) -> Links | None:
        if not isinstance(client, redis.Redis) or type(client).__module__.startswith("fakeredis"):
            return None
        pool = client.connection_pool
        if not issubclass(pool.connection_class, redis.connection.AbstractConnection):
            return None
        if pool.connection_class.__module__.startswith("fakeredis"):
            return None
        return cls(pool)

    def get(self) -> Link:
        link: Link | None = getattr(self._local, "link", None)
        if link is None:
            link = self._local.link = Link(self.pool)
        return link

    def run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        return self.get().run(commands)

    def send(self, commands: Sequence[Sequence[Any]]) -> None:
        self.get().send(commands)

    def send_kept(self, commands: Sequence[Sequence[Any]]) -> None:
        self.get().send_kept(commands)

    def collect(self) -> list[Any]:
        return self.get().collect()

    def forget_kept(self) -> None:
        self.get().forget_kept()


# -- async: the API's connections -------------------------------------------------------------

class AsyncLink:
    """One connection opened by redis-py (URL, auth, db, TLS), then driven directly from the
    event loop over redis-py's own streams."""

    __slots__ = ("conn", "parser", "reader", "writer")

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.reader: asyncio.StreamReader = conn._reader
        self.writer: asyncio.StreamWriter = conn._writer
        self.parser = reply_reader()

    @classmethod
    async def open(cls, pool: aioredis.ConnectionPool) -> AsyncLink:
        try:
            return cls(await _opened_async(pool))
        except _Dropped as e:
            raise _unavailable(e) from None

    def send(self, commands: Sequence[Sequence[Any]]) -> None:
        self.writer.write(pack(commands))

    async def reply(self) -> Any:
        """The next reply (an error reply as its ResponseError, not raised); StoreUnavailable
        when the connection is gone."""
        try:
            return await self._reply()
        except (_Dropped, OSError) as e:
            raise _unavailable(e) from None

    async def _reply(self) -> Any:
        parser = self.parser
        while True:
            got = parser.gets()
            if got is not False:
                return got
            data = await self.reader.read(_CHUNK)
            if not data:
                raise _Dropped("Redis closed the connection")
            parser.feed(data)

    async def _run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        self.send(commands)
        return _loading_or([await self._reply() for _ in commands])

    async def close(self) -> None:
        await self.conn.disconnect()


async def subscribe(pool: aioredis.ConnectionPool, channel: str) -> AsyncLink:
    """A connection of its own subscribed to `channel`, for `AsyncLink.reply` to read its
    messages: redis-py's PubSub costs ~15 us of CPU a message (a timeout, a retry wrapper,
    push-message handling)."""
    sub = await AsyncLink.open(pool)
    sub.send([("SUBSCRIBE", channel)])
    try:
        first = await sub.reply()
    except BaseException:
        await sub.close()
        raise
    if not isinstance(first, list) or first[0] != b"subscribe":
        await sub.close()
        raise StoreUnavailable(f"SUBSCRIBE answered {first!r}")
    return sub


def message_data(reply: Any) -> bytes | None:
    """The payload of a subscription's `message` push (None for any other push)."""
    return reply[2] if isinstance(reply, list) and reply[0] == b"message" else None


class Batch:
    """Several commands in one round trip on the API's own idle connections, without redis-py's
    Pipeline (its asyncio Pipeline and pool health check cost ~60-80 us of CPU a batch).

    Calls made in one pass of the event loop share their round trip: their commands are written
    together on one connection and the replies read back in order, one write and one read for
    the API and for Redis instead of one each a call. Under load a pass holds many requests
    (at 64 games in play, each command's head and the group commit's enqueue); alone, a call
    waits only for the end of the pass it was made in."""

    def __init__(self, aio: aioredis.Redis) -> None:
        self.pool = aio.connection_pool
        self._idle: list[AsyncLink] = []
        self._waiting: list[tuple[Sequence[Sequence[Any]], asyncio.Future[list[Any]]]] = []
        self._trips: set[asyncio.Task[None]] = set()  # held: the loop keeps only weak references

    async def run(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """The replies in order; an error reply is returned as its ResponseError, not raised.

        A connection found broken (Redis restarted, or it closed an idle client) is replaced
        and the round trip sent once more on a new one, as redis-py's own retry does: the API's
        batches are reads, HSETNX and an enqueue, which the command handler makes harmless
        when it runs twice. StoreUnavailable when the second try fails too.
        """
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[list[Any]] = loop.create_future()
        self._waiting.append((commands, fut))
        if len(self._waiting) == 1:
            loop.call_soon(self._go)
        return await fut

    def _go(self) -> None:
        group, self._waiting = self._waiting, []
        trip = asyncio.get_running_loop().create_task(self._trip(group))
        self._trips.add(trip)
        trip.add_done_callback(self._trips.discard)

        def gone(_: asyncio.Future[list[Any]]) -> None:
            # Every caller of the trip has stopped waiting (cancelled, its client gone): the
            # trip stops too, and its connection, a reply still owed, is closed (`_run`).
            if all(f.done() for _, f in group) and any(f.cancelled() for _, f in group) and not trip.done():
                trip.cancel()

        for _, f in group:
            f.add_done_callback(gone)

    async def _trip(self, group: list[tuple[Sequence[Sequence[Any]], asyncio.Future[list[Any]]]]) -> None:
        commands = [c for cmds, _ in group for c in cmds]
        try:
            try:
                out = await self._run(commands, self._idle.pop() if self._idle else None)
            except _Dropped:
                out = await self._run(commands, None)
        except asyncio.CancelledError:
            for _, f in group:
                f.cancel()
            raise
        except Exception as e:
            error = _unavailable(e) if isinstance(e, _Dropped) else e
            for _, f in group:
                if not f.done():
                    f.set_exception(error)
            return
        at = 0
        for cmds, f in group:
            if not f.done():
                f.set_result(out[at:at + len(cmds)])
            at += len(cmds)

    async def _run(self, commands: Sequence[Sequence[Any]], c: AsyncLink | None) -> list[Any]:
        if c is None:
            c = AsyncLink(await _opened_async(self.pool))
        try:
            out = await c._run(commands)
        except OSError as e:
            await c.close()
            raise _Dropped(f"error talking to Redis: {e}") from None
        except BaseException:
            # Cancelled or broken halfway: the connection's state is unknown.
            await c.close()
            raise
        if len(self._idle) < MAX_IDLE:
            self._idle.append(c)
        else:
            await c.close()
        return out

    async def close(self) -> None:
        while self._idle:
            await self._idle.pop().close()
