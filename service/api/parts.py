"""The API's parts, as the handlers reach them: built by the composition root
(service/runtime/bootstrap.py), kept on the app's state."""

from __future__ import annotations

from dataclasses import dataclass

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
from service.stores.rematches import RematchStore
from service.stores.signingkeys import LiveKeys
from service.stores.tables import TableStore
from service.usecases.notifications.ports import Notifications
from service.usecases.vacations import Vacations


@dataclass(frozen=True)
class ApiParts:
    """What the API's handlers use: the settings and the sync event store, the event loop's own
    parts (reads, the command queue, the reply subscription) with the match cache of `legal`,
    the stores, and the ports and use cases the composition root built for the API."""

    settings: Settings
    store: EventStore
    reads: AsyncStore
    queue: CommandQueue
    replies: Replies
    cache: MatchCache
    players: PlayerStore
    limits: RateLimits
    tables: TableStore
    watchers: Watchers
    notifications: Notifications  # targets, and the sends the API makes itself (tests, its mails)
    vacations: Vacations  # on the sync clients: the handlers call it from the thread pool
    keys: LiveKeys | None = None  # the signing keys: exports' trailers, /v1/keys, the audit's trust
    rematches: RematchStore | None = None  # which game a finished game's "Play again" started


def keep(app: FastAPI, parts: ApiParts | None) -> None:
    app.state.parts = parts


def parts(request: Request) -> ApiParts:
    """The parts of the app serving `request` (set by its lifespan)."""
    got = request.app.state.parts
    if not isinstance(got, ApiParts):
        raise RuntimeError("the app's parts are not built (its lifespan has not run)")
    return got
