"""The store's own errors, so that no layer above it handles a Redis client's exceptions."""

from __future__ import annotations


class StoreUnavailable(Exception):
    """The event store is out of reach (restarting, loading, a dropped connection).

    Nothing is known to have been written: the caller may try again, and a command sent
    again with the same id applies at most once.
    """
