"""The composition root: every client, the store, the broker and the API's parts are made here
from settings, and nowhere else (nothing is made at import time)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass

import dramatiq
import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff
from redis.cluster import RedisCluster

from events.redisstore.aiostore import AsyncStore
from events.redisstore.cache import MatchCache
from events.redisstore.errors import StoreUnavailable
from events.redisstore.players import PlayerStore
from events.redisstore.queue import ClusterQueue, CommandQueue, OneTripQueue, SeparateBrokerQueue
from events.redisstore.ratelimit import RateLimits
from events.redisstore.replies import Replies
from events.redisstore.store import EventStore
from events.redisstore.tables import TableStore
from events.redisstore.targets import TargetStore
from events.redisstore.wire import Batch
from rules import catalog
from service.settings import Settings
from workers.actors import declare
from workers.broker import WakingRedisBroker, make_broker
from workers.commands import CommandHandler
from workers.notify.channels import MailSettings
from workers.notify.jobs import NotifyActors, NotifyConfig, Sender, declare_notify
from workers.notify.play import ReplyPlayer


@dataclass(frozen=True)
class Parts:
    """One process's sync parts: the store, the broker and the command actor."""

    settings: Settings
    redis: redis.Redis
    store: EventStore
    broker: WakingRedisBroker
    actor: dramatiq.Actor


@dataclass(frozen=True)
class ApiParts:
    """What the API's handlers use: the sync parts, and the event loop's own (reads, the
    command queue, the reply subscription) with the match cache of `legal`."""

    core: Parts
    reads: AsyncStore
    queue: CommandQueue
    replies: Replies
    cache: MatchCache
    players: PlayerStore
    limits: RateLimits
    tables: TableStore

    @property
    def settings(self) -> Settings:
        return self.core.settings

    @property
    def store(self) -> EventStore:
        return self.core.store


CLUSTER_SCHEME = "redis+cluster://"


def is_cluster(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEME)


def redis_client(url: str) -> redis.Redis:
    """A client for `url`; `redis+cluster://host:port` names any node of a Redis Cluster."""
    if is_cluster(url):
        cluster: redis.Redis = RedisCluster.from_url("redis://" + url[len(CLUSTER_SCHEME):])  # type: ignore[assignment]
        return cluster
    return redis.Redis.from_url(url)


def async_redis_client(url: str) -> aioredis.Redis:
    if is_cluster(url):
        cluster: aioredis.Redis = AsyncRedisCluster.from_url("redis://" + url[len(CLUSTER_SCHEME):])  # type: ignore[assignment]
        return cluster
    # redis-py's asyncio client made from a URL has no retry: after Redis drops a connection
    # (a restart, an idle timeout) the next command on it would fail. The sync client retries.
    return aioredis.Redis.from_url(url, retry=AsyncRetry(ExponentialWithJitterBackoff(base=0.01, cap=1.0), 3))


def load_games(settings: Settings) -> None:
    catalog.load(settings.extra_games)


def build(settings: Settings, *, handle: bool = False) -> Parts:
    """Clients for one process; `handle=True` also makes it able to run commands (a worker)."""
    load_games(settings)
    if is_cluster(settings.broker):
        raise ValueError(
            "dramatiq's Redis broker does not run on Redis Cluster: set BROKER_URL to a plain Redis"
        )
    client = redis_client(settings.redis_url)
    store = EventStore(client, settings.namespace, settings.partitions)
    broker = make_broker(
        settings.broker,
        namespace=f"{settings.namespace}-dramatiq",
        heartbeat_timeout_ms=settings.heartbeat_timeout_ms,
        maintenance_chance=settings.maintenance_chance,
        max_retries=settings.max_retries,
        wake=settings.wake_consumer,
    )
    dramatiq.set_broker(broker)
    actor = declare(broker, CommandHandler(store) if handle else None, settings.store_wait_seconds)
    return Parts(settings, client, store, broker, actor)


def command_queue(
    core: Parts, aio: aioredis.Redis, broker_aio: aioredis.Redis, batch: Batch | None
) -> CommandQueue:
    """The command queue's adapter for where the events and the broker live."""
    keys, broker, message = core.store.keys, core.broker, core.actor.message
    if batch is None:  # a Redis Cluster (`build` refuses a broker on one)
        return ClusterQueue(aio, broker_aio, keys, broker, message)
    if broker_aio is aio:
        return OneTripQueue(batch, keys, broker, message)
    return SeparateBrokerQueue(batch, broker_aio, keys, broker, message)


async def _warm(broker: WakingRedisBroker) -> None:
    """dramatiq asks Redis for Lua's stack size on the first enqueue, a blocking call in the
    event loop: ask now, off the loop (if Redis is not up yet, the first enqueue asks)."""
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
        if settings.broker != settings.redis_url:
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
        await _warm(core.broker)
        yield ApiParts(core, AsyncStore(aio, core.store.keys, batch), command_queue(core, aio, broker_aio, batch),
                       replies, MatchCache(core.store, size=512),
                       PlayerStore(aio, settings.namespace), RateLimits(aio, settings.namespace),
                       TableStore(aio, settings.namespace))


@dataclass(frozen=True)
class NotifyParts:
    """Notifications' parts: the players' targets and the notifier's records, and the config."""

    targets: TargetStore
    config: NotifyConfig


def notify_config(settings: Settings) -> NotifyConfig:
    mail = MailSettings(settings.smtp_host, settings.smtp_port, settings.smtp_tls, settings.smtp_user,
                        settings.smtp_password, settings.mail_from, settings.notify_timeout_seconds)
    return NotifyConfig(settings.public_url, mail, settings.notify_timeout_seconds, settings.digest_seconds,
                        settings.notify_max_retries, settings.notify_backoff_ms, reply_domain=settings.reply_domain)


def notify_parts(core: Parts) -> NotifyParts:
    """On the process's sync client (the API calls it from its thread pool)."""
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
                    again=lambda notice, pid, tid, delay: actors[0].enqueue(notice, pid, tid, delay))
    actors.append(declare_notify(core.broker, sender, notify.config))
    return core, notify, actors[0]


def build_reply_player(settings: Settings) -> ReplyPlayer:
    """The inbound mail part's player of replies (reply to play): the store, the targets and
    the command actor it posts with."""
    core = build(settings)
    notify = notify_parts(core)
    return ReplyPlayer(core.store, notify.targets, core.actor.send, notify.config.mail, settings.reply_domain,
                       settings.public_url)
