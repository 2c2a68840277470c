"""Read your own writes: `?min_seq=N` on a read of a read model waits until the projection has
reached seq N (bounded), so a client that was answered "accepted, seq N" never reads an older
board. The wait is woken by the projector's notice (events/redisstore/watchers.py), not polled."""

from __future__ import annotations

from events.redisstore.errors import reaching_redis
from events.redisstore.feed import URGENT
from service.bootstrap import ApiParts
from service.http.errors import ApiError

MIN_SEQ_DOC = ("wait (up to BOARDLOG_MIN_SEQ_WAIT_SECONDS, 2 s) until the read model has reached this seq, "
               "e.g. the last seq of your accepted command; 504 projection_behind if it does not")


async def checkpoint(p: ApiParts, gid: str) -> int:
    """The seq the game's read models are projected to (0: none yet)."""
    raw = await p.reads.read_model(gid, "checkpoint")
    return 0 if raw is None else int(raw)


async def at_least(p: ApiParts, gid: str, min_seq: int | None) -> None:
    """Return once the game's read models have reached `min_seq` (None: at once); 422 for a seq
    below 1, 504 `projection_behind` when the wait ends first."""
    if min_seq is None:
        return
    if min_seq < 1:
        raise ApiError(422, "bad_seq", "'min_seq' counts from 1")
    k = p.store.keys(gid)
    with reaching_redis():
        pipe = p.reads.aio.pipeline(transaction=False)
        pipe.hget(k.rm, "checkpoint")
        pipe.xlen(k.events)
        done, head = await pipe.execute()
    if done is not None and int(done) >= min_seq:
        return  # the common case: projected already, no subscription needed
    if head >= min_seq:
        # The events are there, the projection not yet: ask the projector for this game now,
        # rather than after its burst merge (an URGENT feed entry; reading it is idempotent).
        with reaching_redis():
            await p.reads.aio.xadd(k.feed, {"g": gid, URGENT.decode(): "1"})
    wait = p.settings.min_seq_wait_seconds
    if await p.watchers.reached(gid, min_seq, wait, lambda: checkpoint(p, gid)):
        return
    now = await checkpoint(p, gid)
    raise ApiError(504, "projection_behind",
                   f"the board of {gid} is projected to seq {now}, not yet {min_seq}, after {wait:g} s: "
                   "ask again (a seq beyond the game's last never comes)", {"Retry-After": "1"})
