"""Reading a game: the board for a seat, its legal commands, the log, the record, its audit, the stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import PlainTextResponse, Response, StreamingResponse

from events.domain.platform.talk import hidden_in_log
from events.domain.positiontext import position_text
from events.domain.verdict import judge
from events.records.codec import canonical
from events.records.export import export_lines, read_record
from events.store.aiostore import BoardRead
from events.store.store import EventStore, Head
from events.store.watchers import TooManyWatchers, Watch, sse_frame
from projections.readmodels import view_field, view_of
from projections.replay import events_for, match_at
from projections.sight import redacted_lines, referee_view
from projections.textrecord import record_text
from rules.chains import chain_types, then
from rules.core import Command, get_game
from service.api.access import game_exists, our_gid, principal, sees_everything, unknown_game
from service.api.credentials import bearer_token, has_session_cookie
from service.api.errors import ApiError
from service.api.freshness import MIN_SEQ_DOC, at_least
from service.api.games import summary_frame
from service.api.parts import ApiParts, parts
from service.api.responses import NOSNIFF, json_response
from service.api.streams import WatchStream, refused
from service.usecases.matches import Principal, principal_of, token_digest

router = APIRouter()

MAX_EVENTS = 5000


@router.get("/v1/games/{gid}/view", summary="The board for the bearer's seat (public without a token)")
async def view(gid: str, request: Request,
               min_seq: Annotated[int | None, Query(description=MIN_SEQ_DOC)] = None) -> Response:
    served = await _served_view(parts(request), request, gid, min_seq)
    return Response(served, media_type="application/json") if isinstance(served, bytes) else json_response(served)


@router.get("/v1/games/{gid}/view.txt",
            summary="The board for the bearer's seat as plain text (public without a token)")
async def view_text(gid: str, request: Request,
                    min_seq: Annotated[int | None, Query(description=MIN_SEQ_DOC)] = None) -> Response:
    """The position as the viewer may see it, in words (whose turn, scores, each area or tile with
    its pieces, hands and reserves): the text the board page's "Board as text" shows and the turn
    mail holds, made from the very view GET …/view serves this caller (same access, `at`, `min_seq`)."""
    p = parts(request)
    served = await _served_view(p, request, gid, min_seq)
    seen: dict[str, Any] = orjson.loads(served) if isinstance(served, bytes) else served

    def text() -> str:
        # The words are the game's newest rules' (every rules version of a game shares them).
        rules = get_game(str(seen.get("game")))
        names = seen.get("names")
        if not isinstance(names, list):  # a view projected before views held the seats' names
            names = [s.name for s in p.cache.refresh(gid).match.seats]
        return position_text(rules, seen, [str(n) for n in names])

    return PlainTextResponse(await run_in_threadpool(text), headers=NOSNIFF)


async def _served_view(p: ApiParts, request: Request, gid: str, min_seq: int | None) -> bytes | dict[str, Any]:
    """The view GET …/view serves this caller: the stored read model's JSON, or the view made
    here (the referee's, a past seq's, a board not projected yet)."""
    who, board = await _board_reader(p, request, gid)
    seat = who.seat
    at = seq_param(request.query_params.get("at"))
    if who.referee:  # every seat's board: no read model holds it
        if at is not None:
            await within_limit(p, request, who, "replays")
        return await run_in_threadpool(lambda: referee_view(match_at(p.store, gid, within_log(p.store, gid, at))))
    if at is None:
        field = view_field(seat)
        if board is None:
            await at_least(p, gid, min_seq)
            raw = await p.reads.read_model(gid, field)
        else:
            waited = await at_least(p, gid, min_seq, (board.checkpoint, board.head))
            # The board read with the checkpoint is as new as it: good unless the wait was needed
            # (or the store's guess of the seat's field was not this seat's).
            raw = board.view if not waited and board.field == field else await p.reads.read_model(gid, field)
        if raw is not None:
            return bytes(raw)
    else:
        await within_limit(p, request, who, "replays")
    return await run_in_threadpool(lambda: view_of(match_at(p.store, gid, within_log(p.store, gid, at)), seat))


async def _board_reader(p: ApiParts, request: Request, gid: str) -> tuple[Principal, BoardRead | None]:
    """Who asks for the game's board (404 first for no such game, then 401/403, as `game_exists`
    then `principal`) and, read in the same round trip, the projection's progress and the board
    of the bearer's seat. That one trip serves a seat token or no credentials at all; a session
    cookie, a player key as Bearer, or a malformed Authorization header take the way of every
    other read (their board is None)."""
    if not our_gid(p, gid):
        raise unknown_game(gid)
    try:
        token = bearer_token(request)
    except ApiError:  # a malformed header: its 401 comes after the game's 404, from `principal`
        token, one_trip = None, False
    else:
        one_trip = token is not None or not has_session_cookie(request)
    if not one_trip:
        await game_exists(p, gid)
        return await principal(p, request, gid), None
    board = await p.reads.board(gid, "" if token is None else token_digest(token))
    if not board.exists:
        raise unknown_game(gid)
    who = Principal() if token is None else principal_of(board.role)
    if who is None:
        # A Bearer token that names no role here may be a player's key (their claimed seat).
        return await principal(p, request, gid), None
    return who, board


def seq_param(raw: str | None) -> int | None:
    """`?at=` as a seq (None when absent); a clear 422 for anything but a whole number from 1."""
    if raw is None:
        return None
    try:
        at = int(raw)
    except ValueError:
        raise ApiError(422, "bad_seq", f"'at' is a seq number (a whole number from 1), not {raw[:20]!r}") from None
    if at < 1:
        raise ApiError(422, "bad_seq", f"'at' counts from 1, not {at}")
    return at


def within_log(store: EventStore, gid: str, at: int | None) -> int | None:
    """`at`, if the log reaches it (422 bad_seq past its end, rather than the last position)."""
    head = store.head(gid)
    if at is not None and head is not None and at > head.seq:
        raise ApiError(422, "bad_seq", f"the game has {head.seq} events so far: 'at' is from 1 to {head.seq}, not {at}")
    return at


@router.get("/v1/games/{gid}/legal", summary="Every command the bearer's seat may issue now")
async def legal(gid: str, request: Request) -> Response:
    p = parts(request)
    await game_exists(p, gid)
    seat = (await principal(p, request, gid, required=True)).seat
    if seat is None:
        raise ApiError(403, "seat_required", "legal commands are listed for a seat token")

    def listed() -> Response:
        match = p.cache.refresh(gid).match
        rules = match.rules
        commands = [] if match.over else list(rules.legal_commands(match.state, seat))
        names = [s.name for s in match.seats]
        chained = chain_types(rules)

        def listing(c: Command) -> dict[str, Any]:
            out: dict[str, Any] = {"type": c.type, "args": dict(c.args), "text": rules.format_text(c),
                   "sentence": rules.describe_command(match.state, c, seat, names)}
            if c.type in chained:
                out["then"] = then(rules, match.state, seat, c)
            return out

        return json_response({"seq": match.seq, "commands": [listing(c) for c in commands]})

    return await run_in_threadpool(listed)


@router.get("/v1/games/{gid}/events", summary="The log, as the viewer may see it")
async def log_events(gid: str, request: Request, limit: int = 500) -> Response:
    """Events with from <= seq <= to, at most `limit` (500 by default, 5,000 at most)."""
    p = parts(request)
    await game_exists(p, gid)
    who = await principal(p, request, gid)
    q = request.query_params
    try:
        start = max(int(q.get("from", 1)), 1)
        end = int(q["to"]) if "to" in q else None
    except ValueError:
        raise ApiError(422, "bad_seq", "'from' and 'to' are seq numbers") from None
    limit = max(1, min(limit, MAX_EVENTS))
    last = start + limit - 1 if end is None else min(end, start + limit - 1)
    return await run_in_threadpool(lambda: _log_page(p.store, gid, who, start, last, end))


def _log_page(store: EventStore, gid: str, who: Principal, start: int, last: int, end: int | None) -> Response:
    if who.referee:  # the admin reads the spectator's log (projections/sight.py)
        rows = [e.to_json() for e in store.read(gid, start, last)]
    else:
        rows = hidden_in_log(events_for(store, gid, who.seat, start, last), lambda: match_at(store, gid))
    head = store.head(gid)
    more = head is not None and last < head.seq and (end is None or last < end)
    return json_response({"events": rows, "next": last + 1 if more else None})


async def _record_reader(request: Request, gid: str) -> tuple[ApiParts, Principal]:
    """The parts and the caller of a read of the game's record (export or audit), within the
    caller's share of record reads."""
    p = parts(request)
    if not our_gid(p, gid):
        raise unknown_game(gid)
    if _anonymous(request):
        # The anonymous share is counted before anything of the game is read: a flood of
        # record reads from one address costs a counter each, not a look at the game.
        await within_limit(p, request, Principal(), "records")
        await game_exists(p, gid)
        return p, Principal()
    await game_exists(p, gid)
    who = await principal(p, request, gid)
    await within_limit(p, request, who, "records")
    return p, who


def _anonymous(request: Request) -> bool:
    """No credentials at all: neither a Bearer token nor a session cookie."""
    return bearer_token(request) is None and not has_session_cookie(request)


def _whole_record_head(store: EventStore, gid: str, who: Principal) -> Head | None:
    """The game's head if `who` may read its whole record now (anyone after the end, before it
    the referee only), else None."""
    head = store.head(gid)
    assert head is not None
    return head if sees_everything(head.status, who) else None


@router.get("/v1/games/{gid}/export", summary="The JSON Lines record")
async def export(gid: str, request: Request) -> Response:
    p, who = await _record_reader(request, gid)

    def record() -> Response:
        head = _whole_record_head(p.store, gid, who)
        if head is None:
            if who.seat is None and not who.admin:
                raise ApiError(403, "game_not_over", "the record is exported after the end (or by the referee; "
                                                     "a seat or the admin exports the log it may see)")
            return Response(b"".join(redacted_lines(p.store, gid, who.seat)), media_type="application/x-ndjson",
                            headers={"Content-Disposition": f'attachment; filename="{gid}-redacted.jsonl"'})
        signer = None if p.keys is None else p.keys.signer
        return Response(b"".join(export_lines(p.store.read(gid), signer, head.status, p.store.origin(gid))),
                        media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{gid}.jsonl"'})

    return await run_in_threadpool(record)


@router.get("/v1/games/{gid}/export.txt", summary="The record as a text move list, with its signed trailer")
async def export_text(gid: str, request: Request) -> Response:
    """Before the end, the referee's, in full; after it, everyone's, in full."""
    p, who = await _record_reader(request, gid)

    def record() -> Response:
        head = _whole_record_head(p.store, gid, who)
        if head is None:
            raise ApiError(403, "game_not_over", "the record is exported after the end (or by the referee)")
        signer = None if p.keys is None else p.keys.signer
        body = "\n".join(record_text(p.store.read(gid), signer, head.status, p.store.origin(gid))) + "\n"
        return Response(body.encode(), media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{gid}.txt"', **NOSNIFF})

    return await run_in_threadpool(record)


@router.get("/v1/games/{gid}/audit", summary="The audit report of the record")
async def audit_report(gid: str, request: Request) -> Response:
    """A record's first `seq` events never change, so its report up to its head seq is computed
    once and kept (per head seq and rules code; a newer head replaces it), for every caller
    alike, and requests for it while it is computed wait for that one run. So an active game's
    audit costs one run per move whoever asks, not one per request."""
    p, _ = await _record_reader(request, gid)
    head = await p.reads.head(gid, "", "")
    if head.status is None:
        raise ApiError(404, "unknown_game", f"no game {gid!r} here")
    # The key signs the trailer the report names, so it names the report too; the status too, as
    # a game's end is an event of its own but its status is the trailer's.
    field = f"{head.seq}:{head.status}:{p.store.fingerprint().hex()[:16]}:{p.keys.signer.id if p.keys else '-'}"
    kept = await p.reads.cached_audit(gid, field)
    if kept is None:
        async with _AUDITING.setdefault(gid, asyncio.Lock()):
            kept = await p.reads.cached_audit(gid, field)
            if kept is None:
                kept = canonical(await run_in_threadpool(_audit, p, gid, head.seq))
                await p.reads.keep_audit(gid, field, kept)
        _AUDITING.pop(gid, None)
    return Response(kept, media_type="application/json")


# One audit run at a time per game in this process (the lock of the one computing it).
_AUDITING: dict[str, asyncio.Lock] = {}


def _audit(p: ApiParts, gid: str, upto: int | None = None) -> dict[str, Any]:
    """The record as exported up to `upto` (None: its head), signed (or, imported, with its
    origin's trailer and the countersignatures), judged with this service's own keys as the
    trusted ones: an imported record's origin key is trusted through this service's
    countersignature that verified it."""
    keys = p.keys
    lines = export_lines(p.store.read(gid, 1, upto), None if keys is None else keys.signer, None,
                         p.store.origin(gid))
    return judge(read_record(lines), None if keys is None else keys.trusted()).to_json()


async def within_limit(p: ApiParts, request: Request, who: Principal, reads: str) -> None:
    """429 with Retry-After once this client has made this minute's share of expensive reads:
    `reads` is "records" (audit, export) or "replays" (the board at a past seq). A caller with no
    token or session gets the anonymous share; seats, admins and players ten times it."""
    anonymous = who.seat is None and not who.admin and bearer_token(request) is None \
        and not has_session_cookie(request)
    share = p.settings.anon_records_per_minute if reads == "records" else p.settings.anon_replays_per_minute
    client = request.client.host if request.client else "unknown"
    wait = await p.limits.take(f"{reads}:{'anon' if anonymous else 'known'}", client,
                               share if anonymous else share * 10)
    if wait:
        raise ApiError(429, "rate_limited", f"too many {reads} read from this address; try again in {wait} s"
                       + (" (with a seat token or signed in, the limit is ten times higher)" if anonymous else ""),
                       {"Retry-After": str(wait)})


@router.get("/v1/games/{gid}/stream", summary="Server-sent events: new seq and prompt changes")
async def stream(gid: str, request: Request) -> StreamingResponse:
    """One Redis subscription per API process feeds every stream (events/store/watchers.py);
    past BOARDLOG_WATCHERS_PER_CLIENT streams from one address 429, past BOARDLOG_WATCHERS_TOTAL
    in this process 503, each with Retry-After."""
    p = parts(request)
    if not our_gid(p, gid):
        raise unknown_game(gid)
    client = request.client.host if request.client else "unknown"
    try:
        watch = p.watchers.open(gid, client)
    except TooManyWatchers as e:
        raise refused(e) from None
    try:
        # Subscribed before the summary is read, so no change falls between the two.
        await p.watchers.subscribed(watch, timeout=2.0)
        first = await summary_frame(p, gid)
    except BaseException:
        p.watchers.close(watch)
        raise
    return WatchStream(_summaries(first, watch), lambda: p.watchers.close(watch))


async def _summaries(first: bytes, watch: Watch) -> AsyncIterator[bytes]:
    """The summary read when the stream opened, then each one the projector publishes; a
    keep-alive every 15 s; the end when the process's subscription broke (notices were lost)."""
    yield sse_frame(first)
    # A client gone is seen when a write to it fails (a keep-alive at the latest), and Starlette
    # then ends this generator.
    while True:
        frame = await watch.next(timeout=15.0)
        if frame is None and watch.broken:
            return  # the subscription broke: the client reconnects and reads the summary again
        yield b": keep-alive\n\n" if frame is None else frame
