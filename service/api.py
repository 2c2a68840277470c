"""The HTTP API (v1) and the web pages, as one FastAPI app built from settings."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import orjson
import redis.asyncio as aioredis
import structlog
from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Receive, Scope, Send

from events.domain.audit import audit
from events.domain.match import ABORT, JOIN, MAX_ENTROPY
from events.mapping.codec import canonical, loads
from events.mapping.export import export_lines, read_record
from events.redisstore.cache import MatchCache
from events.redisstore.keys import is_game_id, partition_of
from events.redisstore.replies import Replies
from events.redisstore.store import queued_member
from events.redisstore.wire import Batch, checked, no_script
from projections.lobby import Cursor, lobby_rows
from projections.readmodels import summary_of, view_field, view_of
from projections.replay import events_for, match_at
from rules.core import Command, InvalidCommand, games
from service.bootstrap import Parts, async_redis_client, build
from service.logs import configure
from service.matches import Principal, create_match, principal_of, token_digest, who
from service.settings import Settings

log = structlog.get_logger("boardlog.api")

MAX_BODY = 64 * 1024
_CID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PAGES = Path(__file__).parent / "pages"


_POST_COMMANDS = re.compile(r"^/v1/games/([^/]+)/commands$")
_FAST_QUERIES = {b"": 0, b"wait=0": 0, b"wait=1": 1}


class BoardlogApp(FastAPI):
    """FastAPI, with `POST /v1/games/{gid}/commands` (the hot path) answered before its routing.

    FastAPI's middleware stack, router and parameter validation cost about as much CPU as
    the command's own work; the fast path calls the same endpoint function with a plain
    Request and the same error answers. Any other query string takes the normal route.
    """

    fast_post: Callable[[str, Request, int], Awaitable[Response]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and self.fast_post is not None:
            m = _POST_COMMANDS.match(scope["path"])
            wait = _FAST_QUERIES.get(scope["query_string"])
            if m is not None and wait is not None:
                scope["app"] = self
                try:
                    response = await self.fast_post(m.group(1), Request(scope, receive), wait)
                except ApiError as exc:
                    response = error_response(exc.status, exc.code, exc.message)
                except InvalidCommand as exc:
                    response = invalid_response(exc)
                except (RedisConnectionError, RedisTimeoutError) as exc:
                    response = unavailable_response(exc)
                except Exception:
                    log.exception("api.failed", path=scope["path"])
                    response = crash_response(scope["path"])
                await response(scope, receive, send)
                return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            # Starlette has answered the standard JSON 500 (the Exception handler) and raises it
            # again for the server, which would log it and drop the connection: log it here.
            log.exception("api.failed", path=scope["path"])


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(canonical(body), status_code=status, media_type="application/json", headers=headers)


def error_response(status: int, code: str, message: str) -> Response:
    return json_response({"error": {"code": code, "message": message}}, status)


def crash_response(path: str) -> Response:
    return error_response(500, "internal_error", f"the server failed on {path} (a bug, logged)")


def invalid_response(exc: InvalidCommand) -> Response:
    return error_response(404 if exc.code == "unknown_game" else 422, exc.code, exc.message)


def unavailable_response(exc: Exception) -> Response:
    """Redis is out of reach (restarting). A command may or may not have been queued: sending
    the same command id again is safe, it is applied at most once."""
    log.warning("api.redis_unavailable", error=str(exc))
    return json_response({"error": {"code": "store_unavailable", "message": "the event store is out of reach; "
                                     "try again (a command sent again with the same id applies at most once)"}},
                         503, headers={"Retry-After": "1"})


def result_response(result: dict[str, Any]) -> Response:
    """A command's result; a rejection or conflict also carries the standard error object."""
    status = int(result.get("http", 200))
    if result.get("status") in ("rejected", "conflict", "failed"):
        result = {**result, "error": {"code": result["code"], "message": result["message"]}}
    return json_response(result, status)


def create_app(settings: Settings | None = None, parts: Parts | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    if not structlog.is_configured():  # a process uvicorn started for itself (--processes)
        configure(settings.log_format)
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        p = parts or build(settings)
        state["parts"] = p
        state["aio"] = async_redis_client(settings.redis_url)
        state["broker_aio"] = (
            state["aio"] if settings.broker == settings.redis_url else async_redis_client(settings.broker)
        )
        state["cache"] = MatchCache(p.store, size=512)
        if isinstance(state["aio"], AsyncRedisCluster):
            # Pub/sub looks up the slot map without loading it: load it before the first stream.
            await state["aio"].initialize()
        replies = state["replies"] = Replies(state["aio"], settings.namespace)
        await replies.start()
        # The hot path's two round trips skip redis-py's Pipeline on a plain Redis.
        batch = state["batch"] = None if isinstance(state["aio"], AsyncRedisCluster) else Batch(state["aio"])
        # dramatiq asks Redis for Lua's stack size on the first enqueue, a blocking call in the
        # event loop: ask now, off the loop (if Redis is not up yet, the first enqueue asks).
        with suppress(RedisConnectionError):
            await run_in_threadpool(p.broker._max_unpack_size)
        yield
        if batch is not None:
            await batch.close()
        await replies.stop()
        if state["broker_aio"] is not state["aio"]:
            await state["broker_aio"].aclose()
        await state["aio"].aclose()

    app = BoardlogApp(
        title="boardlog",
        version="1",
        lifespan=lifespan,
        description="Event-sourced board game matches: create, command, replay, export, audit.",
    )

    def P() -> Parts:
        parts_: Parts = state["parts"]
        return parts_

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> Response:
        return error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(InvalidCommand)
    async def _invalid(_: Request, exc: InvalidCommand) -> Response:
        return invalid_response(exc)

    @app.exception_handler(RedisConnectionError)
    @app.exception_handler(RedisTimeoutError)
    async def _unavailable(_: Request, exc: Exception) -> Response:
        return unavailable_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()))
        return error_response(422, "bad_request", f"{where}: {first.get('msg', 'invalid')}")

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> Response:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        # A bug (in the API or a game's view): the standard JSON error, not Starlette's text
        # page; BoardlogApp logs the traceback.
        return crash_response(request.url.path)

    # -- helpers ------------------------------------------------------------------------

    async def body_json(request: Request) -> dict[str, Any]:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
            raise ApiError(413, "body_too_large", f"the body is over {MAX_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise ApiError(413, "body_too_large", f"the body is over {MAX_BODY} bytes")
        try:
            body = loads(raw)
        except orjson.JSONDecodeError as e:
            raise ApiError(400, "bad_json", f"the body is not valid JSON: {e}") from None
        if not isinstance(body, dict):
            raise ApiError(400, "bad_json", "the body must be a JSON object")
        return body

    def our_gid(gid: str) -> bool:
        """A well-formed game id whose partition this deployment has (it may still not exist)."""
        return is_game_id(gid) and partition_of(gid) < P().store.partitions

    def game_exists(gid: str) -> None:
        if not our_gid(gid) or not P().store.exists(gid):
            raise ApiError(404, "unknown_game", f"no game {gid!r}")

    def bearer_token(request: Request, required: bool = False) -> str | None:
        auth = request.headers.get("authorization")
        token = None
        if auth is not None:
            scheme, _, value = auth.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise ApiError(401, "bad_token", "use 'Authorization: Bearer <token>'")
            token = value.strip()
        if token is None and required:
            raise ApiError(401, "token_required", "this needs a seat token: 'Authorization: Bearer <token>'")
        return token

    def principal(request: Request, gid: str, required: bool = False) -> Principal:
        who_ = who(P().store, gid, bearer_token(request, required))
        if who_ is None:
            raise ApiError(401, "bad_token", "that token is not valid for this game")
        return who_

    async def lookup(gid: str, request: Request, cid: str | None = None) -> tuple[list[Any], Principal]:
        """One round trip: the game's head, the bearer's role and (optionally) a command's result."""
        if not our_gid(gid):
            raise ApiError(404, "unknown_game", f"no game {gid!r}")
        k = P().store.keys(gid)
        token = bearer_token(request, required=True)
        batch: Batch | None = state["batch"]
        if batch is not None:
            seq, head, role, result = checked(await batch.run([
                ("XLEN", k.events),  # seq counts from 1 and an event stream is never trimmed
                ("HMGET", k.meta, "status", "game"),
                ("HGET", k.auth, token_digest(token or "")),
                ("HGET", k.results, cid or ""),
            ]))
        else:
            aio: aioredis.Redis = state["aio"]
            pipe = aio.pipeline(transaction=False)
            pipe.xlen(k.events)
            pipe.hmget(k.meta, ["status", "game"])
            pipe.hget(k.auth, token_digest(token or ""))
            pipe.hget(k.results, cid or "")
            seq, head, role, result = await pipe.execute()
        if head[0] is None:
            raise ApiError(404, "unknown_game", f"no game {gid!r}")
        who_ = principal_of(role)
        if who_ is None:
            raise ApiError(401, "bad_token", "that token is not valid for this game")
        return [int(seq), head[0].decode(), head[1].decode(), result], who_

    def summary(gid: str) -> dict[str, Any]:
        raw = P().store.read_model(gid, "summary")
        if raw is not None:
            out: dict[str, Any] = loads(raw)
            return out
        # Not projected yet (the projector is a moment behind): fold it live.
        match = match_at(P().store, gid)
        first = P().store.read(gid, 1, 1)[0].at
        last = P().store.read(gid, match.seq, match.seq)[0].at
        return summary_of(match, first, last)

    @app.get("/v1/health", summary="Liveness, and which deployment namespace this API serves")
    async def health() -> Response:
        return json_response({"ok": True, "namespace": settings.namespace})

    # -- games --------------------------------------------------------------------------

    @app.post("/v1/games", status_code=201, summary="Create a game")
    async def create(request: Request) -> Response:
        body = await body_json(request)
        out = await run_in_threadpool(lambda: create_match(P().store, body))
        log.info("game.created", game=out["id"], type=out["game"], seats=len(out["seats"]))
        return json_response(out, 201, {"Location": f"/v1/games/{out['id']}"})

    @app.get("/v1/games", summary="The lobby: games by last activity, a page at a time")
    def lobby(
        limit: int = 50, status: str | None = None, game: str | None = None, cursor: str | None = None
    ) -> Response:
        limit = max(1, min(limit, 500))
        try:
            after = None if cursor is None else Cursor.decode(cursor)
        except ValueError:
            raise ApiError(422, "bad_cursor", "'cursor' is the 'next' of a previous page") from None
        rows, nxt = lobby_rows(P().store, limit, status, game, after)
        return json_response({"games": rows, "types": sorted(games()),
                              "next": None if nxt is None else nxt.encode()})

    @app.get("/v1/games/{gid}", summary="A game's summary")
    async def get_summary(gid: str) -> Response:
        if our_gid(gid):
            raw = await state["aio"].hget(P().store.keys(gid).rm, "summary")
            if raw is not None:
                return Response(raw, media_type="application/json")
        return await run_in_threadpool(lambda: live_summary(gid))

    def live_summary(gid: str) -> Response:
        game_exists(gid)
        return json_response(summary(gid))

    @app.post("/v1/games/{gid}/commands", summary="Queue a command (?wait=1 waits for its result)")
    async def post_command(gid: str, request: Request, wait: int = 0) -> Response:
        bearer_token(request, required=True)
        body = await body_json(request)
        cid = body.get("id")
        if not isinstance(cid, str) or not _CID.match(cid):
            raise ApiError(422, "bad_command_id", "'id' must be 1 to 64 letters, digits, '-' or '_' (a uuid)")
        head, who_ = await lookup(gid, request, cid)
        expect = body.get("expect")
        if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool) or expect < 0):
            raise ApiError(422, "bad_expect", "'expect' must be a non-negative integer seq")
        return await submit(gid, cid, head, lambda game: parse(game, body, who_), expect, bool(wait))

    app.fast_post = post_command

    async def submit(
        gid: str, cid: str, head: list[Any], make: Callable[[str], Command], expect: int | None, wait: bool
    ) -> Response:
        """Queue a command once per id; answer its result at once when it already has one."""
        seq, status, game, prior = head
        if prior is not None:
            return result_response(loads(prior))
        if status != "active":
            raise ApiError(409, "game_over", f"the game is {status}")
        command = make(game)
        payload = {**command.to_json(), "expect": expect}
        replies: Replies = state["replies"]
        if wait:
            payload["reply"] = replies.channel
            # Listen before queueing, so the answer cannot come before the waiter.
            fut = replies.expect(gid, cid)
        try:
            aio: aioredis.Redis = state["aio"]
            keys = P().store.keys(gid)
            pending_key = keys.pending
            # When it was queued: a sweep queues it again if its message is lost (a broker
            # Redis restarted without its data) and it is still unanswered a while later.
            queued = ("ZADD", keys.queued, int(time.time() * 1000), queued_member(gid, cid))
            batch: Batch | None = state["batch"]
            if batch is not None and state["broker_aio"] is aio:
                # One round trip. A repeated id may enqueue twice; the handler makes that a no-op.
                broker = P().broker
                message, enqueue = broker.prepare_enqueue(P().actor.message(gid, cid))
                out = await batch.run([("HSETNX", pending_key, cid, canonical(payload)), *enqueue, queued])
                if no_script(out[1]):
                    checked(await batch.run([broker.load_dispatch(), *enqueue]))
                else:
                    checked(out)
                broker.enqueued(message)
                log.debug("command.queued", game=gid, command=cid, type=command.type, seq=seq)
            elif state["broker_aio"] is aio:
                pipe = aio.pipeline(transaction=False)
                pipe.hsetnx(pending_key, cid, canonical(payload))
                pipe.execute_command(*queued)
                await P().broker.enqueue_async(pipe, P().actor.message(gid, cid))
                log.debug("command.queued", game=gid, command=cid, type=command.type, seq=seq)
            elif await aio.hsetnx(pending_key, cid, canonical(payload)):
                await aio.execute_command(*queued)
                await P().broker.enqueue_async(state["broker_aio"], P().actor.message(gid, cid))
                log.debug("command.queued", game=gid, command=cid, type=command.type, seq=seq)
            if not wait:
                return json_response({"id": cid, "status": "queued"}, 202)
            result = await wait_result(gid, cid, fut)
        finally:
            if wait:
                replies.forget(gid, cid, fut)
        if result is None:
            return json_response({"id": cid, "status": "queued"}, 202)
        return result_response(result)

    def parse(game_name: str, body: dict[str, Any], who_: Principal) -> Command:
        extra = set(body) - {"id", "type", "args", "text", "expect"}
        if extra:
            raise ApiError(422, "bad_request", f"unknown fields: {sorted(extra)}")
        game = games()[game_name]
        ctype = body.get("type")
        if ctype == ABORT:
            if not who_.admin:
                raise ApiError(403, "admin_only", "only the game's admin token may abort it")
            reason = body.get("args", {}).get("reason", "admin") if isinstance(body.get("args"), dict) else "admin"
            return Command(ABORT, {"reason": str(reason)[:200]}, None)
        if who_.seat is None:
            raise ApiError(403, "seat_required", "commands are issued with a seat token")
        if "text" in body:
            if "type" in body or "args" in body or not isinstance(body["text"], str):
                raise ApiError(422, "bad_request", "send either 'text' or 'type' with 'args'")
            return game.parse_text(body["text"], who_.seat)
        if not isinstance(ctype, str):
            raise ApiError(422, "bad_request", "'type' must be a command type such as 'rite.move'")
        if ctype not in game.command_types:
            raise ApiError(422, "unknown_command", f"{game_name} has no command {ctype!r}")
        args = body.get("args", {})
        if not isinstance(args, dict):
            raise ApiError(422, "bad_args", "'args' must be an object")
        return game.parse_command(ctype, args, who_.seat)

    async def wait_result(
        gid: str, cid: str, fut: asyncio.Future[dict[str, Any] | None]
    ) -> dict[str, Any] | None:
        aio: aioredis.Redis = state["aio"]
        replies: Replies = state["replies"]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settings.command_wait_seconds
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
                stored = await aio.hget(P().store.keys(gid).results, cid)
                if stored is not None:
                    found: dict[str, Any] = loads(stored)
                    return found
                replies.forget(gid, cid, fut)
                fut = replies.expect(gid, cid)
        finally:
            replies.forget(gid, cid, fut)

    @app.get("/v1/games/{gid}/commands/{cid}", summary="A command's result")
    def command_result(gid: str, cid: str) -> Response:
        game_exists(gid)
        result = P().store.result(gid, cid)
        if result is not None:
            return result_response(result)
        if P().store.pending(gid, cid) is not None:
            return json_response({"id": cid, "status": "queued"}, 202)
        raise ApiError(404, "unknown_command_id", f"no command {cid!r} in this game")

    @app.post("/v1/games/{gid}/join", summary="Add the bearer seat's entropy to every later draw (once)")
    async def join(gid: str, request: Request) -> Response:
        body = await body_json(request)
        head, who_ = await lookup(gid, request)
        if who_.seat is None:
            raise ApiError(403, "seat_required", "a seat joins with its own token")
        entropy = body.get("entropy")
        if not isinstance(entropy, str) or not 1 <= len(entropy) <= MAX_ENTROPY or set(body) != {"entropy"}:
            raise ApiError(422, "bad_entropy", f"send {{\"entropy\": <1 to {MAX_ENTROPY} characters>}}")
        cid = f"join-{who_.seat}"
        if await state["aio"].hexists(P().store.keys(gid).results, cid):
            raise ApiError(409, "already_joined", f"seat {who_.seat} has already added its entropy")
        seat = who_.seat
        return await submit(gid, cid, head, lambda _: Command(JOIN, {"entropy": entropy}, seat), None, True)

    @app.post("/v1/games/{gid}/abort", summary="End a game now (admin)")
    async def abort(gid: str, request: Request) -> Response:
        # One abort per game: the fixed id makes a repeated request answer the first one.
        cid = f"abort-{gid}"
        head, who_ = await lookup(gid, request, cid)
        if not who_.admin:
            raise ApiError(403, "admin_only", "only the game's admin token may abort it")
        return await submit(gid, cid, head, lambda _: Command(ABORT, {"reason": "admin"}, None), None, True)

    # -- reading ------------------------------------------------------------------------

    @app.get("/v1/games/{gid}/view", summary="The board for the bearer's seat (public without a token)")
    def view(gid: str, request: Request, at: int | None = None) -> Response:
        game_exists(gid)
        who_ = principal(request, gid)
        seat = who_.seat
        if at is None:
            raw = P().store.read_model(gid, view_field(seat))
            if raw is not None:
                return Response(raw, media_type="application/json")
            return json_response(view_of(match_at(P().store, gid), seat))
        if at < 1:
            raise ApiError(422, "bad_seq", "'at' counts from 1")
        return json_response(view_of(match_at(P().store, gid, at), seat))

    @app.get("/v1/games/{gid}/legal", summary="Every command the bearer's seat may issue now")
    def legal(gid: str, request: Request) -> Response:
        game_exists(gid)
        who_ = principal(request, gid, required=True)
        if who_.seat is None:
            raise ApiError(403, "seat_required", "legal commands are listed for a seat token")
        cache: MatchCache = state["cache"]
        match = cache.refresh(gid).match
        rules = match.rules
        commands = [] if match.over else list(rules.legal_commands(match.state, who_.seat))
        return json_response({
            "seq": match.seq,
            "commands": [{"type": c.type, "args": dict(c.args), "text": rules.format_text(c)} for c in commands],
        })

    @app.get("/v1/games/{gid}/events", summary="The log, as the viewer may see it")
    def log_events(gid: str, request: Request, limit: int = 500) -> Response:
        """Events with from <= seq <= to, at most `limit` (500 by default, 5,000 at most)."""
        game_exists(gid)
        who_ = principal(request, gid)
        q = request.query_params
        try:
            start = max(int(q.get("from", 1)), 1)
            end = int(q["to"]) if "to" in q else None
        except ValueError:
            raise ApiError(422, "bad_seq", "'from' and 'to' are seq numbers") from None
        limit = max(1, min(limit, 5000))
        last = start + limit - 1 if end is None else min(end, start + limit - 1)
        if who_.admin:
            rows = [e.to_json() for e in P().store.read(gid, start, last)]
        else:
            rows = events_for(P().store, gid, who_.seat, start, last)
        head = P().store.head(gid)
        more = head is not None and last < head.seq and (end is None or last < end)
        return json_response({"events": rows, "next": last + 1 if more else None})

    def export_allowed(gid: str, request: Request) -> None:
        who_ = principal(request, gid)
        head = P().store.head(gid)
        assert head is not None
        if head.status == "active" and not who_.admin:
            raise ApiError(403, "game_not_over", "the record is exported after the end (or by the admin)")

    @app.get("/v1/games/{gid}/export", summary="The JSON Lines record")
    def export(gid: str, request: Request) -> Response:
        game_exists(gid)
        export_allowed(gid, request)
        body = b"".join(export_lines(P().store.read(gid)))
        return Response(body, media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{gid}.jsonl"'})

    @app.get("/v1/games/{gid}/audit", summary="The audit report of the record")
    def audit_report(gid: str) -> Response:
        game_exists(gid)
        record = read_record(export_lines(P().store.read(gid)))
        return json_response(audit(record).to_json())

    @app.get("/v1/games/{gid}/stream", summary="Server-sent events: new seq and prompt changes")
    async def stream(gid: str, request: Request) -> StreamingResponse:
        game_exists(gid)
        aio: aioredis.Redis = state["aio"]
        channel = P().store.keys(gid).notify

        async def gen() -> AsyncIterator[bytes]:
            pubsub = aio.pubsub()
            await pubsub.subscribe(channel)
            try:
                first = await run_in_threadpool(lambda: summary(gid))
                yield b"event: summary\ndata: " + canonical(first) + b"\n\n"
                while not await request.is_disconnected():
                    msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=15.0)
                    if msg is None:
                        yield b": keep-alive\n\n"
                        continue
                    notice = loads(msg["data"])
                    yield b"event: summary\ndata: " + notice["summary"].encode() + b"\n\n"
            finally:
                await pubsub.unsubscribe(channel)
                await pubsub.aclose()

        return StreamingResponse(gen(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    # -- pages --------------------------------------------------------------------------

    def page(name: str) -> HTMLResponse:
        return HTMLResponse((PAGES / name).read_text())

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> HTMLResponse:
        return page("lobby.html")

    def game_page(gid: str, name: str) -> HTMLResponse:
        try:
            game_exists(gid)
        except ApiError:
            body = ("<!doctype html><html lang=en><meta charset=utf-8><title>No such game</title>"
                    "<link rel=stylesheet href=/static/style.css><main><h1>No such game</h1>"
                    "<p>There is no game with that id here. <a href=/>Back to the lobby</a>.</p></main></html>")
            return HTMLResponse(body, status_code=404)
        return page(name)

    @app.get("/games/{gid}", include_in_schema=False)
    async def board_page(gid: str) -> HTMLResponse:
        return game_page(gid, "board.html")

    @app.get("/games/{gid}/replay", include_in_schema=False)
    async def replay_page(gid: str) -> HTMLResponse:
        return game_page(gid, "replay.html")

    @app.get("/static/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        path = PAGES / name
        if not re.match(r"^[a-z0-9_-]+\.(js|css)$", name) or not path.is_file():
            raise ApiError(404, "not_found", "no such file")
        media = "text/javascript" if name.endswith(".js") else "text/css"
        return Response(path.read_bytes(), media_type=media)

    return app
