"""The API's parts, as the handlers reach them: built by the composition root
(service/runtime/bootstrap.py), kept on the app's state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request

from events.store.aiostore import AsyncStore
from events.store.cache import MatchCache
from events.store.queue import CommandQueue
from events.store.replies import Replies
from events.store.store import EventStore
from events.store.watchers import Watchers
from service.runtime.settings import Settings
from service.stores.players import PlayerStore
from service.stores.ratelimit import RateLimits
from service.stores.signingkeys import LiveKeys
from service.stores.tables import TableStore


@dataclass(frozen=True)
class ApiParts:
    """What the API's handlers use: the sync parts, and the event loop's own (reads, the
    command queue, the reply subscription) with the match cache of `legal`."""

    # The runtime's sync parts (service.runtime.bootstrap.Parts); only the vacation and mail
    # handlers still reach into them, to build their parts per request.
    core: Any
    reads: AsyncStore
    queue: CommandQueue
    replies: Replies
    cache: MatchCache
    players: PlayerStore
    limits: RateLimits
    tables: TableStore
    watchers: Watchers
    keys: LiveKeys | None = None  # the signing keys: exports' trailers, /v1/keys, the audit's trust

    @property
    def settings(self) -> Settings:
        settings: Settings = self.core.settings
        return settings

    @property
    def store(self) -> EventStore:
        store: EventStore = self.core.store
        return store


def keep(app: FastAPI, parts: ApiParts | None) -> None:
    app.state.parts = parts


def parts(request: Request) -> ApiParts:
    """The parts of the app serving `request` (set by its lifespan)."""
    got = request.app.state.parts
    if not isinstance(got, ApiParts):
        raise RuntimeError("the app's parts are not built (its lifespan has not run)")
    return got
