"""The composition root: every client, the store, the broker and the API's parts are made here
from settings, and nowhere else (nothing is made at import time)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

import dramatiq
import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff
from redis.cluster import RedisCluster

from events.domain.platform import clock
from events.store.aiostore import AsyncStore
from events.store.cache import MatchCache
from events.store.errors import StoreUnavailable
from events.store.groupcommit import GroupCommit
from events.store.queue import ClusterQueue, CommandQueue, OneTripQueue, SeparateBrokerQueue
from events.store.replies import Replies
from events.store.store import EventStore
from events.store.watchers import Watchers
from events.store.wire import Batch
from rules import catalog
from service.api.parts import ApiParts
from service.runtime.settings import Settings
from service.stores.notifications import TargetStore
from service.stores.players import PlayerStore
from service.stores.ratelimit import RateLimits
from service.stores.rematches import RematchStore
from service.stores.signingkeys import LiveKeys
from service.stores.tables import TableStore
from service.stores.vacations import VacationStore
from service.usecases.notifications.channels import MailSettings
from service.usecases.notifications.config import NotifyConfig
from service.usecases.notifications.egress import Egress, networks
from service.usecases.vacations import Vacations
from workers.actors import declare_both
from workers.broker import WakingRedisBroker, make_broker
from workers.commands import CommandHandler
from workers.conditional import QueuedAnswers
from workers.deadlines import Deadlines, declare_deadlines, submitter
from workers.encoding import OrjsonEncoder
from workers.notifications.direct import DirectNotifications
from workers.notifications.dropped import DropNotices, broker_enqueue
from workers.notifications.jobs import NotifyActors, Sender, declare_notify
from workers.notifications.play import ReplyPlayer, open_dispute_of
from workers.vacations import declare_vacation_over, vacation_over_message

if TYPE_CHECKING:
    from workers.rabbit import NamespacedRabbitmqBroker


@dataclass(frozen=True)
class Parts:
    """One process's sync parts: the store, the broker and the command actor."""

    settings: Settings
    redis: redis.Redis
    store: EventStore
    broker: WakingRedisBroker | NamespacedRabbitmqBroker
    actor: dramatiq.Actor  # one command a message (the platform's own senders, the sweep)
    batch: dramatiq.Actor  # a batch a message (the API's group commit)


CLUSTER_SCHEME = "redis+cluster://"


def is_cluster(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEME)


def redis_client(url: str) -> redis.Redis:
    """A client for `url`; `redis+cluster://host:port` names any node of a Redis Cluster."""
    if is_cluster(url):
        cluster: redis.Redis = RedisCluster.from_url("redis://" + url[len(CLUSTER_SCHEME):])  # type: ignore[assignment]
        return cluster
    return redis.Redis.from_url(url)


ASYNC_POOL_SIZE = 100
ASYNC_POOL_WAIT_SECONDS = 5.0


def async_redis_client(url: str) -> aioredis.Redis:
    if is_cluster(url):
        cluster: aioredis.Redis = AsyncRedisCluster.from_url("redis://" + url[len(CLUSTER_SCHEME):])  # type: ignore[assignment]
        return cluster
    # redis-py's asyncio client made from a URL has no retry: after Redis drops a connection
    # (a restart, an idle timeout) the next command on it would fail. The sync client retries.
    # A blocking pool: a burst of requests past its 100 connections (300 streams opening at
    # once) waits a moment for one, where redis-py's default pool fails ("Too many connections").
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=ASYNC_POOL_SIZE, timeout=ASYNC_POOL_WAIT_SECONDS,
        retry=AsyncRetry(ExponentialWithJitterBackoff(base=0.01, cap=1.0), 3))
    return aioredis.Redis.from_pool(pool)


def subscription_pool(aio: aioredis.Redis) -> Callable[[], aioredis.ConnectionPool]:
    """Where the API's shared subscriptions connect, asked at each (re)connection: the client's
    own pool, or on a Redis Cluster a pool to any node the client knows now (a PUBLISH reaches
    the subscribers of every node), so a dead node is left for a live one."""
    if isinstance(aio, AsyncRedisCluster):
        cluster = aio

        def any_node() -> aioredis.ConnectionPool:
            node = cluster.get_random_node()
            return aioredis.ConnectionPool(connection_class=node.connection_class, **node.connection_kwargs)

        return any_node
    pool = aio.connection_pool
    return lambda: pool


def load_games(settings: Settings) -> None:
    catalog.load(settings.extra_games)


def build(settings: Settings, *, handle: bool = False) -> Parts:
    """Clients for one process; `handle=True` also makes it able to run commands (a worker)."""
    load_games(settings)
    clock.allow_seconds(settings.clock_min_seconds)
    if is_cluster(settings.broker):
        raise ValueError(
            "dramatiq's Redis broker does not run on Redis Cluster: set BROKER_URL to a plain Redis"
        )
    client = redis_client(settings.redis_url)
    store = EventStore(client, settings.namespace, settings.partitions)
    broker: WakingRedisBroker | NamespacedRabbitmqBroker
    if settings.broker_is_amqp:
        from workers.rabbit import make_rabbit_broker  # here: pika only for a RabbitMQ broker

        broker = make_rabbit_broker(settings.broker, prefix=settings.namespace, max_retries=settings.max_retries)
    else:
        broker = make_broker(
            settings.broker,
            namespace=f"{settings.namespace}-dramatiq",
            heartbeat_timeout_ms=settings.heartbeat_timeout_ms,
            maintenance_chance=settings.maintenance_chance,
            max_retries=settings.max_retries,
            wake=settings.wake_consumer,
        )
    dramatiq.set_encoder(OrjsonEncoder())  # JSON either way: old messages still read
    dramatiq.set_broker(broker)
    handler = None
    if handle:
        # A seat whose queue of conditional moves the worker drops is told through the notify jobs.
        tell = DropNotices(TargetStore(client, settings.namespace), broker_enqueue(broker)).tell
        handler = CommandHandler(store, signer=LiveKeys(settings), queued=QueuedAnswers(store, tell=tell))
    actors = declare_both(broker, handler, settings.store_wait_seconds)
    return Parts(settings, client, store, broker, actors.one, actors.batch)


def command_queue(
    core: Parts, aio: aioredis.Redis, broker_aio: aioredis.Redis, batch: Batch | None
) -> CommandQueue:
    """The command queue: the group commit (events.store.groupcommit) in front of the adapter for
    where the events and the broker live."""
    adapter = queue_adapter(core, aio, broker_aio, batch)
    queue_name = core.batch.queue_name  # every game's commands go to one queue: one line
    return GroupCommit(adapter.submit_many, core.settings.command_batch, lambda _gid: queue_name)


def queue_adapter(
    core: Parts, aio: aioredis.Redis, broker_aio: aioredis.Redis, batch: Batch | None
) -> OneTripQueue | SeparateBrokerQueue | ClusterQueue:
    """The adapter that queues a batch for where the events and the broker live."""
    keys, broker = core.store.keys, core.broker
    actor = core.batch

    def message(commands: Sequence[tuple[str, str]]) -> dramatiq.Message:
        return actor.message([[gid, cid] for gid, cid in commands])

    if not isinstance(broker, WakingRedisBroker):  # RabbitMQ: the pending record first, then the message
        if batch is None:
            return ClusterQueue(aio, aio, keys, broker, message)
        return SeparateBrokerQueue(batch, aio, keys, broker, message)
    if batch is None:  # a Redis Cluster (`build` refuses a broker on one)
        return ClusterQueue(aio, broker_aio, keys, broker, message)
    if broker_aio is aio:
        return OneTripQueue(batch, keys, broker, message)
    return SeparateBrokerQueue(batch, broker_aio, keys, broker, message)


async def _warm(broker: WakingRedisBroker | NamespacedRabbitmqBroker) -> None:
    """dramatiq asks Redis for Lua's stack size on the first enqueue, a blocking call in the
    event loop: ask now, off the loop (if Redis is not up yet, the first enqueue asks)."""
    if not isinstance(broker, WakingRedisBroker):
        return
    with suppress(redis.ConnectionError, redis.TimeoutError, StoreUnavailable):
        await asyncio.to_thread(broker._max_unpack_size)


@asynccontextmanager
async def api_parts(settings: Settings, core: Parts | None = None) -> AsyncIterator[ApiParts]:
    """The API's parts for as long as the block runs (the app's lifespan); closed after, last
    made first closed."""
    core = core or build(settings)
    async with AsyncExitStack() as closing:
        aio = async_redis_client(settings.redis_url)
        closing.push_async_callback(aio.aclose)
        broker_aio = aio
        if settings.broker != settings.redis_url and not settings.broker_is_amqp:
            broker_aio = async_redis_client(settings.broker)
            closing.push_async_callback(broker_aio.aclose)
        cluster = isinstance(aio, AsyncRedisCluster)
        if cluster:
            # Pub/sub looks up the slot map without loading it: load it before the first stream.
            await aio.initialize()
        # The hot path's round trips skip redis-py's Pipeline on a plain Redis.
        batch = None if cluster else Batch(aio)
        if batch is not None:
            closing.push_async_callback(batch.close)
        replies = Replies(aio, settings.namespace)
        await replies.start()
        closing.push_async_callback(replies.stop)
        watchers = Watchers(subscription_pool(aio), core.store.keys, per_client=settings.watchers_per_client,
                            total=settings.watchers_total, name=f"{settings.namespace}-watchers")
        await watchers.start()
        closing.push_async_callback(watchers.stop)
        await _warm(core.broker)
        notify = notify_parts(core)
        yield ApiParts(
            settings=core.settings, store=core.store, reads=AsyncStore(aio, core.store.keys, batch),
            queue=command_queue(core, aio, broker_aio, batch), replies=replies, cache=MatchCache(core.store, size=512),
            players=PlayerStore(aio, settings.namespace), limits=RateLimits(aio, settings.namespace),
            tables=TableStore(aio, settings.namespace), watchers=watchers,
            notifications=DirectNotifications(notify.targets, notify.config), vacations=vacations(core),
            keys=LiveKeys(settings), rematches=RematchStore(aio, settings.namespace))


@dataclass(frozen=True)
class NotifyParts:
    """Notifications' parts: the players' targets and the notifier's records, and the config."""

    targets: TargetStore
    config: NotifyConfig


def notify_config(settings: Settings) -> NotifyConfig:
    mail = MailSettings(settings.smtp_host, settings.smtp_port, settings.smtp_tls, settings.smtp_user,
                        settings.smtp_password, settings.mail_from, settings.notify_timeout_seconds)
    return NotifyConfig(settings.public_url, mail, settings.notify_timeout_seconds, settings.digest_seconds,
                        settings.notify_max_retries, settings.notify_backoff_ms, reply_domain=settings.reply_domain,
                        egress=Egress(networks(settings.notify_allow)))


def notify_parts(core: Parts) -> NotifyParts:
    """On the process's sync client (the API calls its targets from its thread pool)."""
    return NotifyParts(TargetStore(core.redis, core.settings.namespace), notify_config(core.settings))


def build_notifier(settings: Settings) -> tuple[Parts, NotifyParts, NotifyActors]:
    """The notifier process's parts: the store, the targets, and the notify actors with their
    sender (the process follows the feeds and runs the notify jobs)."""
    core = build(settings)
    notify = notify_parts(core)
    actors: list[NotifyActors] = []

    def schedule_digest(pid: str, tid: str, delay_ms: int) -> None:
        actors[0].digest.send_with_options(args=(pid, tid), delay=delay_ms)

    sender = Sender(notify.targets, notify.config, schedule_digest,
                    again=lambda notice, pid, tid, delay: actors[0].enqueue(notice, pid, tid, delay),
                    open_dispute=open_dispute_of(core.store))
    actors.append(declare_notify(core.broker, sender, notify.config))
    return core, notify, actors[0]


def build_deadlines(settings: Settings) -> tuple[Parts, Deadlines]:
    """The deadlines process's parts: the store, the command actor it submits timeouts to, and
    the `deadline_due` actor on the broker's delay queue (events.domain.platform.clock)."""
    core = build(settings)
    actors: list[dramatiq.Actor] = []

    def schedule(gid: str, clock_seq: int, seat: int, kind: str, delay_ms: int) -> None:
        actors[0].send_with_options(args=(gid, clock_seq, seat, kind), delay=delay_ms)

    crash = None
    if os.environ.get("BOARDLOG_TEST_CRASH_ON_DEADLINE") == "1":
        # Fault injection, tests only: the first submit after a test arms the key kills this worker.
        armed = f"{settings.namespace}:test:crash-deadline"

        def crash() -> bool:
            return bool(core.redis.delete(armed))
    deadlines = Deadlines(core.store, submitter(core.store, core.actor.send, crash), schedule,
                          vacations=VacationStore(core.redis, settings.namespace),
                          idle_after_s=settings.idle_end_seconds)
    actors.append(declare_deadlines(core.broker, deadlines.fire, settings.store_wait_seconds))
    declare_vacation_over(core.broker, vacations(core))
    return core, deadlines


def vacations(core: Parts) -> Vacations:
    """Players' vacations on the process's sync client (the API calls it from its thread pool):
    their record, the commands that stop and restart their clocks, the message that ends one."""
    def schedule_end(pid: str, n: int, delay_ms: int) -> None:
        core.broker.enqueue(vacation_over_message(pid, n), delay=delay_ms)

    return Vacations(core.store, VacationStore(core.redis, core.settings.namespace),
                     submitter(core.store, core.actor.send), schedule_end, core.settings.vacation_days)


def build_reply_player(settings: Settings) -> ReplyPlayer:
    """The inbound mail part's player of replies (reply to play): the store, the targets and
    the command actor it posts with."""
    core = build(settings)
    notify = notify_parts(core)
    return ReplyPlayer(core.store, notify.targets, core.actor.send, notify.config.mail, settings.reply_domain,
                       settings.public_url, LiveKeys(settings))
