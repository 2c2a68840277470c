"""Builds the clients, store and broker from settings: the one place they are made."""

from __future__ import annotations

from dataclasses import dataclass

import dramatiq
import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff
from redis.cluster import RedisCluster

from events.redisstore.store import EventStore
from rules import catalog
from service.settings import Settings
from workers.actors import declare
from workers.broker import WakingRedisBroker, make_broker
from workers.commands import CommandHandler


@dataclass
class Parts:
    settings: Settings
    redis: redis.Redis
    store: EventStore
    broker: WakingRedisBroker
    actor: dramatiq.Actor


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
