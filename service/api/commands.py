"""Commands: submit one (the hot path), its result, and the platform's own (join, abort)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any

import structlog
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from events.domain.match import ABORT, ENTROPY_ADDED, JOIN, MAX_ENTROPY
from events.domain.platform import COMMANDS as PLATFORM_COMMANDS
from events.domain.platform.talk import text_problem
from events.records.codec import canonical, loads
from events.store.aiostore import CommandHead
from events.store.commandids import RESERVED, client_key, reserved, shown_id
from events.store.replies import Replies
from rules.core import Command, get_game
from service.api.access import command_head, game_exists, principal
from service.api.body import json_body
from service.api.credentials import token_or_session
from service.api.errors import ApiError, result_response
from service.api.metrics import command_metrics
from service.api.parts import ApiParts, parts
from service.api.receipts import as_sent, with_receipt
from service.api.responses import json_response
from service.usecases.matches import Principal

log = structlog.get_logger("boardlog.api")

router = APIRouter()

_CID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_FIELDS = {"id", "type", "args", "text", "expect", "comment"}
# Ids the platform gave its commands (for a seat too) before they were derived with a secret.
_OLD_PLATFORM = ("auto-", "vacation-", "mail-")


@router.post("/v1/games/{gid}/commands", summary="Queue a command (?wait=1 waits for its result)")
async def post_command(gid: str, request: Request, wait: int = 0) -> Response:
    started = time.perf_counter()
    if wait not in (0, 1):
        raise ApiError(422, "bad_request", "wait: 0 (answer at once, 202) or 1 (wait for the result)")
    token_or_session(request)
    body = await json_body(request)
    cid = body.get("id")
    if cid is None:
        raise ApiError(422, "bad_command_id", "a command needs an 'id' of your making, such as a uuid: "
                       "sent twice, it is played once, and GET .../commands/<id> answers what became of it")
    if not isinstance(cid, str) or not _CID.match(cid):
        raise ApiError(422, "bad_command_id", "'id' must be 1 to 64 letters, digits, '-' or '_' (a uuid)")
    shape_problem(body)
    p = parts(request)
    head, who, key = await own_command(p, request, gid, cid)
    expect = body.get("expect")
    if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool) or expect < 0):
        raise ApiError(422, "bad_expect", "'expect' must be a non-negative integer seq")
    comment = body.get("comment")
    if comment is not None:
        comment_problem(comment, who)
        if head.result is None and who.seat is not None:  # a command sent again is no new message
            await within_talk_limit(p, gid, who.seat)
    response = await submit(p, gid, key, head, lambda game: parse(game, body, who), expect, bool(wait), comment)
    command_metrics(request).observe(response.status_code, time.perf_counter() - started)  # /metrics
    return response


# Each field's JSON type (CommandIn's): checked before a stored answer is looked up, so that a
# body the document calls malformed is refused even under an id already answered.
_TYPES: dict[str, tuple[type, ...]] = {"type": (str,), "args": (dict,), "text": (str,), "comment": (str,)}


def shape_problem(body: dict[str, Any]) -> None:
    """422 for a body no command could be: a field the command has not, or one of the wrong type."""
    extra = set(body) - _FIELDS
    if extra:
        raise ApiError(422, "bad_request", f"unknown fields {sorted(extra)}: a command takes {', '.join(sorted(_FIELDS))}")
    for name, types in _TYPES.items():
        value = body.get(name)
        if value is not None and not isinstance(value, types):
            # the code the same mistake had before a stored answer was looked up first
            code = "bad_args" if name == "args" else "bad_request"
            raise ApiError(422, code, f"'{name}' must be {'an object' if name == 'args' else 'a string'} or null")


def reserved_problem(cid: str) -> None:
    """422 `reserved_id` for a client's id in the platform's namespace (events.store.commandids)."""
    if reserved(cid):
        raise ApiError(422, "reserved_id", f"ids beginning {RESERVED!r} are the platform's own (its clock, "
                       f"aborts, joins, hides): {cid[:16]!r} is refused; choose another id, such as a uuid")


def role_of(who: Principal) -> str:
    """The principal's role as the game's auth hash names it: the scope of its command ids."""
    if who.seat is not None:
        return f"seat:{who.seat}"
    return "referee" if who.referee else "admin" if who.admin else "nobody"


def legacy_answer(who: Principal, cid: str, raw: bytes | None) -> bytes | None:
    """An answer stored under the bare id, before keys named their principal: a seat's own only
    (never one of the platform's answers for that seat), so no principal reads another's."""
    if raw is None or who.seat is None or cid.startswith(_OLD_PLATFORM):
        return None
    return raw if loads(raw).get("seat") == who.seat else None


async def own_command(p: ApiParts, request: Request, gid: str, cid: str) -> tuple[CommandHead, Principal, str]:
    """The head, the bearer and the store's key of the bearer's command `cid`, whose answer the
    head holds if it has one: keyed by (game, principal, id), so one principal's id never
    answers with another's result or receipt. 422 `reserved_id` for the platform's ids."""
    reserved_problem(cid)
    head, who = await command_head(p, request, gid, cid, scoped=True)
    key = client_key(role_of(who), cid)
    if head.role is None:  # a seat claimed by a player (a session or key): read under its key now
        head = head._replace(result=await p.reads.result(gid, key))
    if head.result is None:
        head = head._replace(result=legacy_answer(who, cid, head.legacy))
    return head, who, key


async def platform_id(p: ApiParts, gid: str, base: str) -> str:
    """The id of the platform's own command `base` (a join, an abort, a hide) in `gid`: derived
    with the deployment's secret, read from the store once per process."""
    ids = p.store.ids
    if not ids.ready:
        await run_in_threadpool(ids.secret)
    return ids.id(gid, base)


async def submit(
    p: ApiParts, gid: str, cid: str, head: CommandHead, make: Callable[[str], Command], expect: int | None,
    wait: bool, comment: str | None = None,
) -> Response:
    """Queue a command once per key (`cid`: events.store.commandids); answer its result at once
    when it already has one. A `comment` goes with it: the worker posts it as the seat's message
    right after the command."""
    if head.result is not None:
        return result_response(await with_receipt(p, gid, loads(head.result)))
    if head.status != "active":
        # Only a platform command that may follow the end (table talk, say) goes on.
        try:
            command = make(head.game)
        except ApiError:
            command = None
        spec = None if command is None else PLATFORM_COMMANDS.get(command.type)
        if command is None or spec is None or not spec.after_end:
            raise ApiError(409, "game_over", f"the game is {head.status}")
    else:
        command = make(head.game)
    payload = {**command.to_json(), "expect": expect}
    if comment is not None:
        payload["comment"] = comment
    replies = p.replies
    if wait:
        payload["reply"] = replies.channel
    try:
        body = canonical(payload)  # encoded once: this is the pending record the worker reads
    except TypeError:
        # orjson's refusal of an integer past 64 bits (a game's notation reads any digits).
        raise ApiError(422, "bad_args", "a number in the command is out of range (at most 64 bits)") from None
    if not wait:
        await queue(p, gid, cid, body, command, head.seq)
        return json_response({"id": shown_id(cid), "status": "queued"}, 202)
    # Listen before queueing, so the answer cannot come before the waiter.
    fut = replies.expect(gid, cid)
    try:
        await queue(p, gid, cid, body, command, head.seq)
        result = await wait_result(p, gid, cid, fut)
    finally:
        replies.forget(gid, cid, fut)
    if result is None:
        return json_response({"id": shown_id(cid), "status": "queued"}, 202)
    return result_response(await with_receipt(p, gid, result))


async def queue(p: ApiParts, gid: str, cid: str, body: bytes, command: Command, seq: int) -> None:
    # When it was queued: a sweep queues it again if its message is lost (a broker Redis
    # restarted without its data) and it is still unanswered a while later.
    if await p.queue.submit(gid, cid, body, int(time.time() * 1000)):
        log.debug("command.queued", game=gid, command=cid, type=command.type, seq=seq)


def parse(game_name: str, body: dict[str, Any], who: Principal) -> Command:
    """The command a request's body names, for the bearer."""
    extra = set(body) - _FIELDS
    if extra:
        raise ApiError(422, "bad_request", f"unknown fields {sorted(extra)}: a command takes {', '.join(sorted(_FIELDS))}")
    game = get_game(game_name)
    ctype = body.get("type")
    if ctype == ABORT:
        if not who.admin:
            raise ApiError(403, "admin_only", "only the game's admin token may abort it")
        reason = body.get("args", {}).get("reason", "admin") if isinstance(body.get("args"), dict) else "admin"
        return Command(ABORT, {"reason": str(reason)[:200]}, None)
    platform = PLATFORM_COMMANDS.get(ctype) if isinstance(ctype, str) else None
    if platform is not None and isinstance(ctype, str):
        return platform_command(ctype, body.get("args") or {}, who, platform.who)
    if who.seat is None:
        raise ApiError(403, "seat_required", "commands are issued with a seat token")
    # A null field is one not sent (CommandIn's defaults).
    if body.get("text") is not None:
        if body.get("type") is not None or body.get("args") is not None or not isinstance(body["text"], str):
            raise ApiError(422, "bad_request", "send either 'text' or 'type' with 'args'")
        return game.parse_text(body["text"], who.seat)
    if not isinstance(ctype, str):
        raise ApiError(422, "bad_request", "'type' must be a command type such as 'rite.move'")
    if ctype not in game.command_types:
        raise ApiError(422, "unknown_command", f"{game_name} has no command {ctype!r}")
    args = body.get("args") or {}
    if not isinstance(args, dict):
        raise ApiError(422, "bad_args", "'args' must be an object")
    return game.parse_command(ctype, args, who.seat)


async def within_talk_limit(p: ApiParts, gid: str, seat: int | str) -> None:
    """429 with Retry-After past BOARDLOG_MESSAGES_PER_MINUTE messages (and comments) of one seat
    in one game: each stays in the log (and the folded match) for good, so a flood is refused."""
    wait = await p.limits.take("messages", f"{gid}:{seat}", p.settings.messages_per_minute)
    if wait:
        who = f"seat {seat}" if isinstance(seat, int) else f"the {seat}"
        raise ApiError(429, "rate_limited", f"{who} has posted this minute's share of messages "
                       f"({p.settings.messages_per_minute}); try again in {wait} s", {"Retry-After": str(wait)})


def comment_problem(comment: Any, who: Principal) -> None:
    """A command's `comment` is a message of its seat (events.domain.platform.talk's rules)."""
    if who.seat is None:
        raise ApiError(403, "seat_required", "a comment is a seat's message: send it with a seat token")
    problem = text_problem(comment)
    if problem is not None:
        raise ApiError(422, problem.code, f"comment: {problem.message}")


def platform_command(ctype: str, args: Any, who: Principal, allowed: str) -> Command:
    """A `boardlog.*` command for the bearer: the args are checked by its capability's decide
    (a refusal there is a 422 that changes nothing); here only who may send it."""
    if not isinstance(args, dict):
        raise ApiError(422, "bad_args", "'args' must be an object")
    if allowed == "platform":
        raise ApiError(403, "platform_only", f"{ctype} is sent by the platform itself, not over HTTP")
    if allowed == "admin" and not who.admin:
        raise ApiError(403, "admin_only", f"only the game's admin token may send {ctype}")
    if allowed == "seat" and who.seat is None:
        raise ApiError(403, "seat_required", f"{ctype} is sent with a seat token")
    if allowed == "seat_or_admin" and who.seat is None and not who.admin:
        raise ApiError(403, "seat_required", f"{ctype} is sent with a seat or the admin token")
    if allowed == "seat_or_referee":
        if who.seat is None and not who.referee:
            raise ApiError(403, "seat_required", f"{ctype} is sent with a seat or the referee's token")
        args = {k: v for k, v in args.items() if k != "referee"}
        if who.referee and who.seat is None:
            args["referee"] = True  # only this layer says so: the decide trusts it
    return Command(ctype, args, who.seat)


async def wait_result(
    p: ApiParts, gid: str, cid: str, fut: asyncio.Future[dict[str, Any] | None]
) -> dict[str, Any] | None:
    """The command's result once published (or stored), None after the command wait."""
    replies = p.replies
    loop = asyncio.get_running_loop()
    deadline = loop.time() + p.settings.command_wait_seconds
    try:
        while True:
            left = deadline - loop.time()
            if left <= 0:
                return None
            timer = loop.call_later(min(left, 1.0), Replies.time_up, fut)
            got = await fut
            timer.cancel()
            if got is not None:
                return got
            # No wake-up heard (another process queued this id first, or a reconnect):
            # the stored result is the truth.
            stored = await p.reads.result(gid, cid)
            if stored is not None:
                found: dict[str, Any] = loads(stored)
                return found
            replies.forget(gid, cid, fut)
            fut = replies.expect(gid, cid)
    finally:
        replies.forget(gid, cid, fut)


@router.get("/v1/games/{gid}/commands/{cid}", summary="A command's result (a seat sees its own commands)")
async def command_result(gid: str, cid: str, request: Request) -> Response:
    p = parts(request)
    await game_exists(p, gid)
    who = await principal(p, request, gid, required=True)
    # Another principal's id (the platform's included) is the same 404 as one nobody used, so
    # nobody learns which ids the others used, nor reads their answers.
    unknown = ApiError(404, "unknown_command_id", f"no command {cid!r} of yours in this game")
    if reserved(cid) or not _CID.match(cid):
        raise unknown
    key = client_key(role_of(who), cid)
    result = await p.reads.result(gid, key)
    if result is None:
        result = legacy_answer(who, cid, await p.reads.result(gid, cid))
    if result is not None:
        return result_response(await with_receipt(p, gid, loads(result)))
    if await p.reads.pending(gid, key) is not None:
        return json_response({"id": cid, "status": "queued"}, 202)
    raise unknown


@router.post("/v1/games/{gid}/join", summary="Add the bearer seat's entropy to every later draw (once)")
async def join(gid: str, request: Request) -> Response:
    p = parts(request)
    body = await json_body(request)
    head, who = await command_head(p, request, gid)
    if who.seat is None:
        raise ApiError(403, "seat_required", "a seat joins with its own token")
    entropy = body.get("entropy")
    if not isinstance(entropy, str) or not 1 <= len(entropy) <= MAX_ENTROPY or set(body) != {"entropy"}:
        raise ApiError(422, "bad_entropy", f"send {{\"entropy\": <1 to {MAX_ENTROPY} characters>}}")
    seat = who.seat
    cid = await platform_id(p, gid, f"join-{seat}")
    if not await p.reads.answered(gid, cid):
        queued = await submit(p, gid, cid, head, lambda _: Command(JOIN, {"entropy": entropy}, seat), None, True)
        if queued.status_code != 200:
            return queued
    # Requests racing with other entropy share the one command id and its one answer: only the
    # request whose entropy was recorded (or the same one sent again) gets the 200.
    stored = await p.reads.result(gid, cid)
    answer = loads(stored) if stored is not None else {}
    if answer.get("status") != "accepted":
        return result_response(as_sent(answer))
    first, last = (int(x) for x in answer["seq"])
    counted = await run_in_threadpool(
        lambda: [e.data["entropy"] for e in p.store.read(gid, first, last) if e.type == ENTROPY_ADDED])
    if counted != [entropy]:
        return json_response({"error": {"code": "already_joined", "message": f"seat {seat} has already added "
                                        "its entropy; 'entropy' is the one that counts"},
                              "entropy": counted[0] if counted else None}, 409)
    return result_response(await with_receipt(p, gid, answer))


@router.post("/v1/games/{gid}/abort", summary="End a game now (admin)")
async def abort(gid: str, request: Request) -> Response:
    p = parts(request)
    # One abort per game: the platform's one id for it makes a repeated request answer the first.
    cid = await platform_id(p, gid, "abort")
    head, who = await command_head(p, request, gid, cid)
    if not who.admin:
        raise ApiError(403, "admin_only", "only the game's admin token may abort it")
    return await submit(p, gid, cid, head, lambda _: Command(ABORT, {"reason": "admin"}, None), None, True)
