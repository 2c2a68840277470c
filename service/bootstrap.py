"""Builds the clients, store and broker from settings: the one place they are made."""

from __future__ import annotations

from dataclasses import dataclass

import dramatiq
import redis

from events.store import EventStore
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


def load_games(settings: Settings) -> None:
    catalog.load(settings.extra_games)


def build(settings: Settings, *, handle: bool = False) -> Parts:
    """Clients for one process; `handle=True` also makes it able to run commands (a worker)."""
    load_games(settings)
    client = redis.Redis.from_url(settings.redis_url)
    store = EventStore(client, settings.namespace, settings.partitions)
    broker = make_broker(
        settings.broker,
        namespace=f"{settings.namespace}-dramatiq",
        heartbeat_timeout_ms=settings.heartbeat_timeout_ms,
        maintenance_chance=settings.maintenance_chance,
        wake=settings.wake_consumer,
    )
    dramatiq.set_broker(broker)
    actor = declare(broker, CommandHandler(store) if handle else None)
    return Parts(settings, client, store, broker, actor)
