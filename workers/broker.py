"""The dramatiq Redis broker, with a wake-up list in place of the consumer's idle sleep.

dramatiq's Redis consumer sleeps with exponential backoff (5 ms doubling up to the
worker timeout) after every empty fetch, so a command arriving at an idle worker
waits up to that long. Here every enqueue also pushes a token on a short wake list
and an idle consumer blocks on that list (BLPOP) instead of sleeping: it wakes the
moment a message lands and costs nothing while idle.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import uuid4

import dramatiq
import redis
import redis.asyncio as aioredis
import structlog
from dramatiq import Message
from dramatiq.broker import MessageProxy
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.common import current_millis
from dramatiq.errors import ConnectionClosed
from dramatiq.middleware import Retries
from redis.exceptions import NoScriptError

from events.store.errors import StoreUnavailable
from events.store.store import Lua
from events.store.wire import Links, checked, no_script

log = structlog.get_logger("boardlog.worker")

WAKE_CAP = 64
# The script dramatiq's Redis broker runs for every queue operation, read from the installed
# dramatiq: the consumer below sends it raw (fetch and ack with other commands in one round
# trip) and reads the keys it keeps (the ack set). Its digest as installed and tested, with
# dramatiq's pin in pyproject.toml; tests/unit/test_dramatiq_canary.py checks the rest of what
# this module reads of dramatiq.
DISPATCH_LUA_SHA256 = "ba4d872e4fb204ebc3f73ca4719265a9946d70e847856c125314f01a8c90540c"
_DISPATCH_LUA = (Path(dramatiq.__file__).parent / "brokers" / "redis" / "dispatch.lua").read_text()
_DISPATCH_SHA = hashlib.sha1(_DISPATCH_LUA.encode()).hexdigest()


class DramatiqChanged(RuntimeError):
    """The installed dramatiq is not the one this broker was written against."""


def check_dispatch_lua(source: str) -> None:
    """Refuse a dispatch.lua other than the one tested: its commands, arguments and keys are
    spoken here directly, and a changed script would be called with the old ones."""
    digest = hashlib.sha256(source.encode()).hexdigest()
    if digest != DISPATCH_LUA_SHA256:
        raise DramatiqChanged(
            f"dramatiq {dramatiq.__version__}'s brokers/redis/dispatch.lua has sha256 {digest}, not the "
            f"{DISPATCH_LUA_SHA256} workers/broker.py was written against: read the new script, adapt "
            "WakeConsumer and dispatch_command, then update DISPATCH_LUA_SHA256 and dramatiq's pin"
        )


class _DramatiqLua(Lua):
    """A script dramatiq's own code calls (ack, nack, requeue, enqueue): it handles redis-py's
    ConnectionError, so the link's StoreUnavailable reaches it as one."""

    def __call__(self, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        try:
            return super().__call__(keys, args)
        except StoreUnavailable as e:
            raise redis.ConnectionError(str(e)) from e


class StoreUnreachable(Exception):
    """A handler gave up waiting for Redis. Its message is neither acked nor retried: dramatiq's
    retry is queued through Redis, and when that fails the message is acked anyway. It stays
    in this worker's ack set, and the next sweep (or dramatiq's maintenance, once this worker
    is gone) puts it back on the queue."""


class WakeConsumer(_RedisConsumer):
    """The Redis consumer with its empty-fetch backoff sleep replaced by a BLPOP on the wake list.

    It fetches first, taking as many wake-up tokens as it has room for in the same round trip,
    and waits on the list only after a fetch found nothing: a busy queue costs one round trip
    a fetch, a quiet one a BLPOP that returns the moment a message lands. A message with no
    token (requeued from a dead worker) is fetched when the wait times out.
    """

    idle = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Worker threads add (dramatiq acks from them); the consumer thread drains. A deque's
        # append and popleft are atomic, so no ack added during a round trip is dropped.
        self.acks: deque[str] = deque()
        # Messages handed to this process's workers and not yet acked, by redis message id:
        # kept on the broker, so they outlive a consumer that dramatiq replaces.
        self.handed: set[str] = self.broker.handed.setdefault(self.queue_name, set())
        # The connection count at the last sweep; None: sweep after the first fetch. dramatiq
        # makes a new consumer after a connection error, and a fetch whose reply was lost then
        # left its messages in this worker's ack set, where nobody would take them.
        self._swept_at: int | None = None

    def sweep(self) -> int:
        """Put back on the queue every message in this worker's ack set that no thread of it
        holds (fetched by a round trip whose reply was lost); how many."""
        key = f"{self.broker.namespace}:__acks__.{self.broker.broker_id}.{self.queue_name}"
        # Copied in this order: an ack enters `acks` before it leaves `handed` (both copies are
        # single C calls, atomic under the GIL), so no held message is missed in between.
        held = set(self.handed)
        held |= set(self.acks)
        held |= {Message.decode(d).options["redis_message_id"] for d in self.message_cache if d is not None}
        orphans = [m for m in (raw.decode() for raw in self.broker.run([("SMEMBERS", key)])[0]) if m not in held]
        if orphans:
            self.broker.run([self.broker.dispatch_command("requeue", self.queue_name, *orphans),
                             *self.broker.wake_commands(self.queue_name, len(orphans))])
            log.warning("broker.requeued_orphans", queue=self.queue_name, count=len(orphans))
        return len(orphans)

    def _kept(self, message: MessageProxy) -> bool:
        """Whether the message is left unacked (its handler raised StoreUnreachable); if so,
        it is released and the next fetch sweeps it back onto the queue."""
        if not isinstance(message._exception, StoreUnreachable):
            return False
        self.handed.discard(message.options["redis_message_id"])
        self.queued_message_ids.discard(message.message_id)
        self._swept_at = None
        return True

    def ack(self, message: MessageProxy) -> None:
        """Free the slot now; the ack itself rides with this consumer's next round trip (a fetch
        or a wait), which saves one round trip a message. An ack lost with a dead worker only
        means a redelivery, which the command handler answers from the stored result."""
        if self._kept(message):
            return
        mid = message.options["redis_message_id"]
        self.acks.append(mid)  # before it leaves `handed`, so a sweep always sees it held
        self.handed.discard(mid)
        self.queued_message_ids.discard(message.message_id)

    def nack(self, message: MessageProxy) -> None:
        if self._kept(message):
            return
        try:
            super().nack(message)
        finally:
            self.handed.discard(message.options["redis_message_id"])

    def close(self) -> None:
        try:
            if self.acks:
                self._with_acks(("PING",))
        except redis.ConnectionError as e:
            raise ConnectionClosed(e) from None
        finally:
            super().close()

    def _with_acks(self, *last: tuple[Any, ...]) -> Any:
        """The pending acks, then the commands `last`, in one round trip; the last one's reply."""
        broker = self.broker
        taken: list[str] = []
        while self.acks:
            taken.append(self.acks.popleft())
        try:
            return broker.run([*(broker.dispatch_command("ack", self.queue_name, mid) for mid in taken), *last])[-1]
        except BaseException:
            self.acks.extend(taken)  # sent again with the next round trip (an ack is idempotent)
            raise

    def __next__(self) -> Any:
        try:
            while True:
                if self.message_cache:
                    data = self.message_cache.pop(0)
                    if data is None:
                        continue
                    message = Message.decode(data)
                    self.queued_message_ids.add(message.message_id)
                    self.handed.add(message.options["redis_message_id"])
                    return MessageProxy(message)
                room = self.prefetch - self.outstanding_message_count
                if room <= 0:
                    # Every prefetch slot is busy: wait for an ack rather than spin.
                    time.sleep(0.001)
                    return None
                wake = self.broker.wake_key(self.queue_name)
                if self.idle:
                    self._with_acks(("BLPOP", wake, max(self.timeout / 1000, 0.01)))
                # Tokens are pushed after their messages, so every token taken here belongs to
                # a message this fetch (or another consumer's) sees: no wake-up is lost.
                self.message_cache = self._with_acks(
                    ("LPOP", wake, room), self.broker.dispatch_command("fetch", self.queue_name, room)
                )
                if self._swept_at != self.broker.reconnects():
                    # A new consumer, or a round trip sent again on a new connection: a fetch
                    # may have taken messages whose reply never came.
                    self._swept_at = self.broker.reconnects()
                    self.sweep()
                self.idle = not self.message_cache
                if self.idle:
                    return None
        except redis.ConnectionError as e:
            raise ConnectionClosed(e) from None


class WakingRedisBroker(RedisBroker):
    """RedisBroker whose enqueue also wakes one idle consumer."""

    wake = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        check_dispatch_lua(_DISPATCH_LUA)
        super().__init__(*args, **kwargs)
        self._async_dispatch_loaded = False
        # Fetch and ack run dramatiq's dispatch script once a message each: call it without
        # redis-py's Script wrapper (~15 us of client CPU a call), over a connection of the
        # consumer thread's own where the client allows it.
        self.links = Links.for_client(self.client)
        self.scripts["dispatch"] = _DramatiqLua(self.client, _DISPATCH_LUA, self.links)
        self.handed: dict[str, set[str]] = {}
        # Set when the worker process begins to stop: a handler waiting for Redis gives up.
        self.stopping = threading.Event()

    def reconnects(self) -> int:
        """How often this thread's own connection was made again (0 without one)."""
        return self.links.get().reconnects if self.links is not None else 0

    def run(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Raw commands (dispatch calls among them) in one round trip; their replies. A dispatch
        call the server had no script for is sent again after loading it; other error replies
        are raised."""
        replies = self._send(commands)
        missing = [i for i, r in enumerate(replies) if no_script(r)]
        if missing:
            again = self._send([self.load_dispatch(), *(commands[i] for i in missing)])
            for i, r in zip(missing, again[1:], strict=True):
                replies[i] = r
        return checked(replies)

    def _send(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        if self.links is not None:
            try:
                return self.links.run(commands)
            except StoreUnavailable as e:  # the consumer, like dramatiq's, handles redis-py's
                raise redis.ConnectionError(str(e)) from e
        pipe = self.client.pipeline(transaction=False)
        for c in commands:
            pipe.execute_command(*c)
        replies: list[Any] = pipe.execute(raise_on_error=False)
        return replies

    @property
    def consumer_class(self) -> type[_RedisConsumer]:
        return WakeConsumer if self.wake else _RedisConsumer

    def wake_key(self, queue_name: str) -> str:
        return f"{self.namespace}:{queue_name}.wake"

    def wake_commands(self, queue_name: str, n: int = 1) -> list[tuple[Any, ...]]:
        """Push `n` wake-up tokens (after the messages they announce), keeping the list short."""
        key = self.wake_key(queue_name)
        return [("LPUSH", key, *([1] * n)), ("LTRIM", key, 0, WAKE_CAP - 1)]

    def prepare_enqueue(self, message: dramatiq.Message) -> tuple[dramatiq.Message, list[tuple[Any, ...]]]:
        """The message as it will be queued, and the raw commands that queue it and wake a
        consumer (dramatiq's dispatch script by EVALSHA, then the wake-up push), for a
        caller that sends them in its own round trip; then `enqueued(message)`.

        A NOSCRIPT reply to the first command means the server has not got the script (it
        was restarted): send `load_dispatch()` and the commands again.
        """
        message = message.copy(options={"redis_message_id": str(uuid4())})
        self.emit_before("enqueue", message, None)
        commands: list[tuple[Any, ...]] = [self.dispatch_command(
            "enqueue", message.queue_name, message.options["redis_message_id"], message.encode(), maintenance=0
        )]
        if self.wake:
            commands += self.wake_commands(message.queue_name)
        return message, commands

    def dispatch_command(self, command: str, queue_name: str, *args: Any, maintenance: int | None = None) -> tuple[Any, ...]:
        """dramatiq's dispatch script as one raw EVALSHA, with the arguments its broker gives it
        (maintenance by the broker's own chance unless set)."""
        if maintenance is None:
            maintenance = self._should_do_maintenance(command)
        return (
            "EVALSHA", _DISPATCH_SHA, 1, self.namespace, command, current_millis(), queue_name, self.broker_id,
            self.heartbeat_timeout, self.dead_message_ttl, maintenance, self._max_unpack_size(), *args,
        )

    @staticmethod
    def load_dispatch() -> tuple[Any, ...]:
        return ("SCRIPT", "LOAD", _DISPATCH_LUA)

    def enqueued(self, message: dramatiq.Message) -> None:
        self.emit_after("enqueue", message, None)

    async def enqueue_async(
        self, aio: aioredis.Redis | aioredis.client.Pipeline, message: dramatiq.Message
    ) -> dramatiq.Message:
        """Enqueue from an event loop with the broker's own dispatch script and the wake-up.

        Given a pipeline, the caller's commands and the enqueue go in one round trip. The
        script is sent as a bare EVALSHA: redis-py's AsyncScript in a pipeline asks SCRIPT
        EXISTS first, a round trip more on every enqueue.
        """
        message, commands = self.prepare_enqueue(message)
        pipe = aio if isinstance(aio, aioredis.client.Pipeline) else aio.pipeline(transaction=False)
        if not self._async_dispatch_loaded:
            await pipe.immediate_execute_command(*self.load_dispatch())
            self._async_dispatch_loaded = True
        for c in commands:
            pipe.execute_command(*c)
        try:
            await pipe.execute()
        except NoScriptError:
            # The server lost its scripts (a restart): load it and enqueue again (the
            # caller's own commands in the pipeline have run).
            again = aioredis.Redis(connection_pool=pipe.connection_pool).pipeline(transaction=False)
            await again.immediate_execute_command(*self.load_dispatch())
            for c in commands:
                again.execute_command(*c)
            await again.execute()
        self.enqueued(message)
        return message

    def enqueue(self, message: dramatiq.Message, *, delay: int | None = None) -> dramatiq.Message:
        out = super().enqueue(message, delay=delay)
        if delay is None and self.wake:
            self.run(self.wake_commands(message.queue_name))
        return out


def make_broker(
    url: str,
    *,
    namespace: str = "dramatiq",
    heartbeat_timeout_ms: int = 15_000,
    maintenance_chance: int = 10_000,
    max_retries: int = 20,
    wake: bool = True,
) -> WakingRedisBroker:
    """A broker for `url`; the caller installs it (`dramatiq.set_broker`) and declares actors.

    The only middleware is Retries (a crashed or failing command is retried with backoff;
    the idempotent append makes a retry harmless). dramatiq's defaults (age and time limits
    with their timer thread, shutdown notifications, callbacks, pipelines) serve options
    this service never sets, and each runs hooks on every message.
    """
    middleware = [Retries(max_retries=max_retries, min_backoff=50, max_backoff=5_000)]
    broker = WakingRedisBroker(
        url=url,
        namespace=namespace,
        middleware=middleware,
        heartbeat_timeout=heartbeat_timeout_ms,
        maintenance_chance=maintenance_chance,
    )
    broker.wake = wake
    return broker
