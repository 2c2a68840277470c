"""Table talk over HTTP: post a message (a seat), read them (anyone), hide one (the admin), and a
seat's mute of the game's chat (a private preference, never an event)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.domain.platform.talk import HIDE, POST, talk_of, text_problem
from events.store.private import SeatPrivate
from rules.core import Command
from service.api.access import command_head, game_exists, principal
from service.api.body import json_body
from service.api.commands import own_command, platform_id, submit, within_talk_limit
from service.api.credentials import bearer_token, has_session_cookie
from service.api.errors import ApiError
from service.api.moves import kept_lists
from service.api.parts import parts
from service.api.responses import json_response

router = APIRouter()

MAX_LISTED = 500


def _wait(raw: str | None) -> bool:
    if raw in (None, "1"):
        return True
    if raw == "0":
        return False
    raise ApiError(422, "bad_request", "wait: 1 (the default: wait for the message to be posted) or 0")


@router.post("/v1/games/{gid}/messages", summary="Post a message to the game's table talk (a seat or the referee)")
async def post_message(gid: str, request: Request) -> Response:
    if bearer_token(request) is None and not has_session_cookie(request):
        raise ApiError(403, "seat_required", "spectators read the table talk; posting takes a seat token")
    wait = _wait(request.query_params.get("wait"))
    body = await json_body(request)
    extra = set(body) - {"text", "id"}
    if extra:
        raise ApiError(422, "bad_request", f"unknown fields: {sorted(extra)}; send {{\"text\": ...}}")
    problem = text_problem(body.get("text"))
    if problem is not None:
        raise ApiError(422, problem.code, problem.message)
    cid = body.get("id", f"msg-{uuid.uuid4().hex}")
    if not isinstance(cid, str) or not 1 <= len(cid) <= 64 or not cid.replace("-", "").replace("_", "").isalnum():
        raise ApiError(422, "bad_command_id", "'id' must be 1 to 64 letters, digits, '-' or '_' (a uuid)")
    p = parts(request)
    head, who, key = await own_command(p, request, gid, cid)
    if who.seat is None and not who.referee:
        raise ApiError(403, "seat_required", "only a seat or the referee posts to the table talk "
                                             "(the admin hides messages)")
    seat, text = who.seat, body["text"]
    if head.result is None:  # the same id again answers the first one: no new message
        await within_talk_limit(p, gid, "referee" if seat is None else seat)
    # the referee posts as the referee (talk.py): no seat, marked as the resolve command is
    args = {"text": text} if seat is not None else {"text": text, "referee": True}
    return await submit(p, gid, key, head, lambda _: Command(POST, args, seat), None, wait)


@router.get("/v1/games/{gid}/messages", summary="The game's table talk (public)")
async def messages(gid: str, request: Request) -> Response:
    """Every message, oldest first (the last 500; `?after=<seq>`: those after that seq). A hidden
    message shows as hidden by the admin, its text to the admin only. A message sent with a move
    has `on`, the seq of that command's acceptance, and `move`, its number in the move list."""
    p = parts(request)
    await game_exists(p, gid)
    who = await principal(p, request, gid)
    raw = request.query_params.get("after", "0")
    if not raw.isdigit() or len(raw) > 18:
        raise ApiError(422, "bad_seq", "'after' is a seq (a whole number from 0)")
    after = int(raw)
    lists = kept_lists(request)

    def listed() -> dict[str, Any]:
        match = p.cache.refresh(gid).match
        names = [s.name for s in match.seats]
        rows = [{"seq": m.seq, "seat": m.seat, "referee": m.seat is None, "who": _who(m.seat, names, match.referee),
                 "text": m.text if not m.hidden or who.admin else None, "at": m.at, "on": m.on, "move": None,
                 "hidden": "hidden by the admin" if m.hidden else None}
                for m in talk_of(match).messages if m.seq > after][-MAX_LISTED:]
        if any(r["on"] is not None for r in rows):
            # The move list's own number for the move a message came with, whatever its page:
            # the viewer's list is the one its board keeps, so this is one command's events.
            number = {e["seq_from"]: e["move"] for e in lists.current(p.store, gid, who).entries() if e.get("move")}
            for r in rows:
                r["move"] = number.get(r["on"])
        muted = None if who.seat is None else SeatPrivate(p.store, links=False).muted(gid, who.seat)
        return {"seq": match.seq, "messages": rows, "muted": muted}

    return json_response(await run_in_threadpool(listed))


def _who(seat: int | None, names: list[str], referee: str | None) -> str | None:
    """Who posted: the seat's name, or the referee's (a message without a seat is theirs)."""
    if seat is None:
        return f"The referee ({referee})" if referee else "The referee"
    return names[seat] if 0 <= seat < len(names) else None


@router.post("/v1/games/{gid}/messages/{seq}/hide", summary="Hide an abusive message (admin)")
async def hide(gid: str, seq: int, request: Request) -> Response:
    """The message stays in the record (the audit re-checks it); the views say it was hidden."""
    p = parts(request)
    # One hide per message: the platform's one id for it makes a repeated request answer the first.
    cid = await platform_id(p, gid, f"hide-{seq}")
    head, who = await command_head(p, request, gid, cid)
    if not who.admin:
        raise ApiError(403, "admin_only", "only the game's admin token may hide a message")
    body = await json_body(request) if request.headers.get("content-length", "0") != "0" else {}
    reason = body.get("reason", "")
    if set(body) - {"reason"} or not isinstance(reason, str) or len(reason) > 200:
        raise ApiError(422, "bad_request", "send {\"reason\": <at most 200 characters>} or nothing")
    return await submit(p, gid, cid, head, lambda _: Command(HIDE, {"seq": seq, "reason": reason}, None), None, True)


@router.put("/v1/games/{gid}/messages/mute", summary="Mute or unmute the game's table talk for the bearer's seat")
async def mute(gid: str, request: Request) -> Response:
    """A preference of the seat, kept beside the game (never an event): the board page then folds
    the chat away. Anyone may still read the messages."""
    p = parts(request)
    await game_exists(p, gid)
    who = await principal(p, request, gid, required=True)
    if who.seat is None:
        raise ApiError(403, "seat_required", "a seat mutes its own chat: send its token")
    body = await json_body(request)
    muted = body.get("muted")
    if set(body) != {"muted"} or not isinstance(muted, bool):
        raise ApiError(422, "bad_request", "send {\"muted\": true} or {\"muted\": false}")
    seat = who.seat
    await run_in_threadpool(lambda: SeatPrivate(p.store, links=False).mute(gid, seat, muted))
    return json_response({"muted": muted})
