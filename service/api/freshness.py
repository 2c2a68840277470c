"""Read your own writes: `?min_seq=N` on a read of a read model waits until the projection has
reached seq N (bounded), so a client that was answered "accepted, seq N" never reads an older
board. The wait is woken by the projector's notice (events/store/watchers.py), not polled."""

from __future__ import annotations

from events.store.errors import reaching_redis
from events.store.feed import URGENT
from service.api.access import game_exists, our_gid, unknown_game
from service.api.errors import ApiError
from service.api.parts import ApiParts

MIN_SEQ_DOC = ("wait (up to BOARDLOG_MIN_SEQ_WAIT_SECONDS, 2 s) until the read model has reached this seq, "
               "e.g. the last seq of your accepted command; 504 projection_behind if it does not")


async def checkpoint(p: ApiParts, gid: str) -> int:
    """The seq the game's read models are projected to (0: none yet)."""
    raw = await p.reads.read_model(gid, "checkpoint")
    return 0 if raw is None else int(raw)


async def at_least(p: ApiParts, gid: str, min_seq: int | None) -> None:
    """Return once the game's read models have reached `min_seq` (None: at once); 422 for a seq
    below 1. When the wait ends first: 422 `seq_not_reached` if the game's log has not reached
    `min_seq` either (the client asked for a move nobody made), else 504 `projection_behind`
    (the events are there and the projection is late: the server's fault)."""
    if min_seq is None:
        return
    if not our_gid(p, gid):
        raise unknown_game(gid)
    if min_seq < 1:
        raise ApiError(422, "bad_seq", "'min_seq' counts from 1")
    done, head = await _progress(p, gid)
    if done == 0 and head == 0:
        await game_exists(p, gid)  # 404, or a game not projected yet
    if done >= min_seq:
        return  # the common case: projected already, no subscription needed
    if head >= min_seq:
        # The events are there, the projection not yet: ask the projector for this game now,
        # rather than after its burst merge (an URGENT feed entry; reading it is idempotent).
        with reaching_redis():
            await p.reads.aio.xadd(p.store.keys(gid).feed, {"g": gid, URGENT.decode(): "1"})
    wait = p.settings.min_seq_wait_seconds
    if await p.watchers.reached(gid, min_seq, wait, lambda: checkpoint(p, gid)):
        return
    done, head = await _progress(p, gid)
    if head < min_seq:
        raise ApiError(422, "seq_not_reached",
                       f"the game {gid} is at seq {head}, not yet {min_seq}, after a {wait:g} s wait: "
                       "min_seq is a seq the game has reached (your accepted command's last)")
    raise ApiError(504, "projection_behind",
                   f"the board of {gid} is projected to seq {done}, not yet {min_seq}, after {wait:g} s: "
                   "ask again", {"Retry-After": "1"})


async def _progress(p: ApiParts, gid: str) -> tuple[int, int]:
    """The seq the read models are projected to, and the game's log's last seq (one round trip)."""
    k = p.store.keys(gid)
    with reaching_redis():
        pipe = p.reads.aio.pipeline(transaction=False)
        pipe.hget(k.rm, "checkpoint")
        pipe.xlen(k.events)
        done, head = await pipe.execute()
    return (0 if done is None else int(done)), int(head)
