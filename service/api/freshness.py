"""Read your own writes: `?min_seq=N` on a read of a read model waits until the projection has
reached seq N (bounded), so a client that was answered "accepted, seq N" never reads an older
board. The wait is woken by the projector's notice (events/store/watchers.py), not polled."""

from __future__ import annotations

from service.api.access import game_exists, our_gid, unknown_game
from service.api.errors import ApiError
from service.api.parts import ApiParts

MIN_SEQ_DOC = ("wait (up to BOARDLOG_MIN_SEQ_WAIT_SECONDS, 2 s) until the read model has reached this seq, "
               "e.g. the last seq of your accepted command; 504 projection_behind if it does not")


async def checkpoint(p: ApiParts, gid: str) -> int:
    """The seq the game's read models are projected to (0: none yet)."""
    raw = await p.reads.read_model(gid, "checkpoint")
    return 0 if raw is None else int(raw)


async def at_least(p: ApiParts, gid: str, min_seq: int | None,
                   progress: tuple[int, int] | None = None) -> bool:
    """Return once the game's read models have reached `min_seq` (None: at once); 422 for a seq
    below 1. When the wait ends first: 422 `seq_not_reached` if the game's log has not reached
    `min_seq` either (the client asked for a move nobody made), else 504 `projection_behind`
    (the events are there and the projection is late: the server's fault).

    `progress` is the projection's checkpoint and the log's length when the caller read them
    already, in the same round trip that found the game (so it exists); else they are read here.
    True when it waited: what the caller read with `progress` is then older than `min_seq`."""
    if min_seq is None:
        return False
    if not our_gid(p, gid):
        raise unknown_game(gid)
    if min_seq < 1:
        raise ApiError(422, "bad_seq", "'min_seq' counts from 1")
    if progress is None:
        progress = await p.reads.progress(gid)
        if progress == (0, 0):
            await game_exists(p, gid)  # 404, or a game not projected yet
    done, head = progress
    if done >= min_seq:
        return False  # the common case: projected already, no subscription needed
    if head >= min_seq:
        # The events are there, the projection not yet: ask the projector for this game now,
        # rather than after its burst merge.
        await p.reads.urge_projection(gid)
    wait = p.settings.min_seq_wait_seconds
    if await p.watchers.reached(gid, min_seq, wait, lambda: checkpoint(p, gid)):
        return True
    done, head = await p.reads.progress(gid)
    if head < min_seq:
        raise ApiError(422, "seq_not_reached",
                       f"the game {gid} is at seq {head}, not yet {min_seq}, after a {wait:g} s wait: "
                       "min_seq is a seq the game has reached (your accepted command's last)")
    raise ApiError(504, "projection_behind",
                   f"the board of {gid} is projected to seq {done}, not yet {min_seq}, after {wait:g} s: "
                   "ask again", {"Retry-After": "1"})
