"""The open dispute as its referee rules on it: `GET /v1/games/{gid}/dispute`.

What the ruling view shows before Uphold or Void: the disputed move in the move list's words
and number (a disputed timeout as "bob's turn timed out at ... (their deadline)"), the seqs the replay shows it before and after, the note, and which draws a void
would undo (events.domain.platform.disputes.redraws), so that a re-roll is the referee's informed
decision. For the referee (their token, or the player the game names) and the seats, each told
in their own words: a seat reads no secret through it that its move list does not hold.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.domain.describe import timed_out_words
from events.domain.matchstate import Match
from events.domain.platform.clock import TURN_TIMED_OUT
from events.domain.platform.conduct import Dispute
from events.domain.platform.disputes import TIMEOUT_STEP, open_dispute, redraws
from events.store.store import EventStore
from projections.moves import MoveList
from projections.replay import match_at
from rules.core import EVERYTHING_SHOWN
from service.api.access import game_exists, principal
from service.api.errors import ApiError
from service.api.moves import kept_lists
from service.api.parts import parts
from service.api.responses import json_response
from service.usecases.matches import Principal

router = APIRouter()


@router.get("/v1/games/{gid}/dispute", summary="The open dispute, as its referee rules on it")
async def dispute(gid: str, request: Request) -> Response:
    """404 `no_dispute` when none is open. The referee and the seats only: a spectator reads the
    dispute in the summary's `conduct` and the move list."""
    p = parts(request)
    await game_exists(p, gid)
    who = await principal(p, request, gid)
    if who.seat is None and not who.referee:
        raise ApiError(403, "referee_or_seat", "the dispute's ruling view is the referee's and the seats': "
                       "send the referee's or a seat's token, or sign in as one")
    lists = kept_lists(request)

    def read() -> dict[str, Any]:
        match = p.cache.refresh(gid).match
        d = open_dispute(match)
        if d is None:
            raise ApiError(404, "no_dispute", f"no dispute is open in game {gid} now")
        return _view(p.store, gid, who, d, match, lists.current(p.store, gid, who))

    return json_response(await run_in_threadpool(read))


def _view(store: EventStore, gid: str, who: Principal, d: Dispute, now: Match, moves: MoveList) -> dict[str, Any]:
    envelopes = store.read(gid, d.on)
    # The command's own events carry its id: the move ends where they do.
    cid = envelopes[0].command if envelopes else None
    after = d.on
    for env in envelopes[1:]:
        if env.command != cid:
            break
        after = env.seq
    entry = next((e for e in moves.entries() if e["seq_from"] == d.on), None)
    names = [s.name for s in now.seats]
    text = str(entry["text"]) if entry else "a move"
    if d.step == TIMEOUT_STEP:
        # The move list says "The deadline passes.": the view says whose turn, when and what followed.
        timed = next((e for e in envelopes if e.type == TURN_TIMED_OUT), None)
        text = timed_out_words(timed.data if timed is not None else {"seat": d.of}, names)
    viewer = EVERYTHING_SHOWN if who.referee else who.seat
    said = redraws(match_at(store, gid, d.on - 1), now, [e.event for e in envelopes], viewer)
    return {
        "dispute": d.seq, "on": d.on, "move": moves.move_of(d.on),
        "by": names[d.by] if 0 <= d.by < len(names) else None, "note": d.note,
        "text": text, "before_seq": d.on - 1, "after_seq": after,
        "redraws": said, "opened_seq": d.seq,
    }

