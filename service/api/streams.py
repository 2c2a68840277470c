"""What every server-sent event stream of the API shares: a response that gives its watcher
back however it ends, and the answer when the watcher caps are reached."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi.responses import StreamingResponse

from events.store.watchers import TooManyWatchers
from service.api.errors import ApiError

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class WatchStream(StreamingResponse):
    """A stream that gives its watcher back however it ends (even before its body starts)."""

    def __init__(self, body: AsyncIterator[bytes], release: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(body, media_type="text/event-stream", headers=SSE_HEADERS, **kwargs)
        self.release = release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


def refused(e: TooManyWatchers) -> ApiError:
    """429 past this client address's cap, 503 past the process's, each with Retry-After."""
    if e.scope == "client":
        return ApiError(429, "too_many_streams", f"this address already holds {e.cap} streams here; "
                        "close one, or try again later", {"Retry-After": "5"})
    return ApiError(503, "streams_full", f"this server already holds {e.cap} streams; try again later",
                    {"Retry-After": "5"})
