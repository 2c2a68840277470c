"""The store's own errors, and the one place redis-py's "out of reach" becomes one of them, so
that no layer above the store handles a Redis client's exceptions."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

import redis

_P = ParamSpec("_P")
_R = TypeVar("_R")

# Refused, dropped or timed out; BusyLoadingError (a server still loading its data) is a
# ConnectionError too.
UNREACHABLE = (redis.ConnectionError, redis.TimeoutError)


class StoreUnavailable(Exception):
    """The event store is out of reach (restarting, loading, a dropped connection).

    Nothing is known to have been written: the caller may try again, and a command sent
    again with the same id applies at most once.
    """


@contextmanager
def reaching_redis() -> Iterator[None]:
    """Raise StoreUnavailable where the block finds Redis out of reach (sync or async code)."""
    try:
        yield
    except UNREACHABLE as e:
        raise StoreUnavailable(str(e)) from e


def reports_unavailable(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """`method`, raising StoreUnavailable where redis-py says Redis is out of reach."""

    @functools.wraps(method)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with reaching_redis():
            return method(*args, **kwargs)

    return call
