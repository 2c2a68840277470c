"""One server-sent event stream of several games' summaries: what a browser's board and replay
tabs share.

A browser opens at most six HTTP/1.1 connections to a host, across all its tabs. With a stream
a tab, six open boards held them all and every other request of the browser (a move, a page)
waited for one to close. The pages' one tab that holds a Web Lock reads this stream for every
game the browser's tabs show, and passes each summary on (service/pages/live.js).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from events.store.watchers import GamesWatch, TooManyWatchers, sse_frame
from service.api.access import our_gid, unknown_game
from service.api.errors import ApiError
from service.api.games import summary_frame
from service.api.parts import parts
from service.api.streams import WatchStream, refused

router = APIRouter()

MAX_GAMES = 32
KEEP_ALIVE_SECONDS = 15.0


@router.get("/v1/streams/games", summary="Server-sent events: the summaries of several games on one connection")
async def games_stream(request: Request, ids: Annotated[str, Query(max_length=1024, description=(
        f"the game ids, comma-separated (1 to {MAX_GAMES})"))] = "") -> StreamingResponse:
    """`event: summary` with each game's summary when the stream opens, then each one the
    projector publishes (the newest of a game, when several came at once); a keep-alive every
    15 s. One watcher against the caps, however many games; the same public summaries as each
    game's own stream."""
    gids = list(dict.fromkeys(i for i in ids.split(",") if i))
    if not 1 <= len(gids) <= MAX_GAMES:
        raise ApiError(422, "bad_games", f"ids: 1 to {MAX_GAMES} game ids, comma-separated")
    p = parts(request)
    for gid in gids:
        if not our_gid(p, gid):
            raise unknown_game(gid)
    client = request.client.host if request.client else "unknown"
    try:
        watch = p.watchers.open_games(gids, client)
    except TooManyWatchers as e:
        raise refused(e) from None
    try:
        # Subscribed before the summaries are read, so no change falls between the two.
        await p.watchers.games_subscribed(watch, timeout=2.0)
        firsts = [await summary_frame(p, gid) for gid in gids]
    except BaseException:
        p.watchers.close_games(watch)
        raise
    return WatchStream(_frames(firsts, watch), lambda: p.watchers.close_games(watch))


async def _frames(firsts: list[bytes], watch: GamesWatch) -> AsyncIterator[bytes]:
    for first in firsts:
        yield sse_frame(first)
    while True:
        changed = await watch.next(timeout=KEEP_ALIVE_SECONDS)
        if watch.broken:
            return  # the subscription broke (notices lost): the client reconnects and reads afresh
        if not changed:
            yield b": keep-alive\n\n"  # a client gone is seen when a write to it fails
        for summary in changed.values():
            yield sse_frame(summary)
