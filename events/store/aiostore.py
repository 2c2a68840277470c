"""The API's reads of the store from its event loop, behind one small facade.

Every Redis call the API makes from its event loop for a read (a game's head with the bearer's
role and a command's answer, a board with the bearer's role and the projection's progress, a
stored result, a read model, a game's notices for its stream) goes through `AsyncStore`, and so
does the one write a read may make: asking the projector for a game now. Like the sync store,
it raises `StoreUnavailable` wherever Redis is out of reach (refused, dropped, timed out, still
loading its data), so the API handles no Redis client's exceptions.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, NamedTuple, Protocol

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

from events.records import archived
from events.records.compact import result_json
from events.store.archive import ARCHIVED, archived_head, plain
from events.store.commandids import SCOPE, client_key
from events.store.errors import UNREACHABLE, StoreUnavailable, reaching_redis
from events.store.feed import URGENT
from events.store.layout import GameKeys
from events.store.wire import checked, no_script


class RoundTrip(Protocol):
    """Several commands in one round trip, the replies in order, an error reply in its place
    (the wire's `Batch`); raises StoreUnavailable when Redis is out of reach."""

    async def run(self, commands: Sequence[Sequence[Any]]) -> list[Any]: ...


class CommandHead(NamedTuple):
    """What the command path reads in one round trip before it queues a command (a tuple:
    made on every command, and the cheapest typed record to make)."""

    seq: int  # seq counts from 1 and an event stream is never trimmed: its length
    status: str | None  # None: there is no such game
    game: str
    role: bytes | None  # what the bearer's token names ("seat:N", "admin"); None: not valid here
    result: bytes | None  # the command's stored answer under the bearer's key, if it has one
    # A scoped read's answer under the bare id, as keys were before they named their principal
    # (events.store.commandids): the caller shows it only to the seat it names.
    legacy: bytes | None = None


class BoardRead(NamedTuple):
    """What a read of a board needs, read in one round trip at one moment (a tuple, as
    `CommandHead`: made on every board read)."""

    exists: bool  # False: there is no such game (and the rest is empty)
    role: bytes | None  # what the bearer's token names; None: no token, or not valid here
    checkpoint: int  # the seq the game's read models are projected to (0: none yet)
    head: int  # the length of the game's event stream (0 once archived, as `progress` says)
    field: str  # the read model field read: the view of the role's seat, else the public one
    view: bytes | None  # that field's JSON, as `read_model` gives it


# The board's read is a script rather than a batch because which view to read depends on the
# token's role, read in the same trip. The role-to-field rule here ("seat:N" -> "view:N", any
# other role or none -> "view:public") is only a guess: the caller checks `field` against its
# own rule (projections.readmodels.view_field) and reads again when they differ. Nothing is
# written, so it is safe to send twice after a dropped connection.
_BOARD_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
local role = false
if ARGV[1] ~= '' then role = redis.call('HGET', KEYS[2], ARGV[1]) end
local field = 'view:public'
if role and string.sub(role, 1, 5) == 'seat:' then field = 'view:' .. string.sub(role, 6) end
local rm = redis.call('HMGET', KEYS[3], 'checkpoint', field)
return {1, role, rm[1], redis.call('XLEN', KEYS[4]), field, rm[2]}
"""
_BOARD_SHA = hashlib.sha1(_BOARD_LUA.encode()).hexdigest()


# The command path's read is a script, as the board's, because the key of the answer to read
# depends on the token's role, read in the same trip: a client's id is kept under `<role>/<id>`
# (events.store.commandids). ARGV[3] '1' scopes the id so; '0' reads it as given (the platform's
# own ids, derived by the caller). Nothing is written.
_HEAD_LUA = """
local meta = redis.call('HMGET', KEYS[2], 'status', 'game', ARGV[4])
local role = false
if ARGV[1] ~= '' then role = redis.call('HGET', KEYS[3], ARGV[1]) end
local result, legacy = false, false
if ARGV[2] ~= '' then
  if ARGV[3] == '1' then
    if role then result = redis.call('HGET', KEYS[4], role .. ARGV[5] .. ARGV[2]) end
    legacy = redis.call('HGET', KEYS[4], ARGV[2])
  else
    result = redis.call('HGET', KEYS[4], ARGV[2])
  end
end
return {redis.call('XLEN', KEYS[1]), meta[1], meta[2], meta[3], role, result, legacy}
"""
_HEAD_SHA = hashlib.sha1(_HEAD_LUA.encode()).hexdigest()


class Notices:
    """One game's notices (the projector publishes each new summary), as they come."""

    def __init__(self, pubsub: Any) -> None:
        self._pubsub = pubsub

    async def next(self, timeout: float) -> bytes | None:
        """The next notice's payload; None when none came within `timeout` seconds."""
        with reaching_redis():
            msg = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=timeout)
        return None if msg is None else bytes(msg["data"])


# A game's referee is one player: the first to claim the role with the referee token keeps it.
_NAME_REFEREE = """
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if all[i + 1] == 'referee' and string.sub(all[i], 1, 7) == 'player:' then
    if all[i] == ARGV[1] then return 'same' end
    return 'taken'
  end
end
redis.call('HSET', KEYS[1], ARGV[1], 'referee')
return 'named'
"""


class AsyncStore:
    """Reads one deployment's games from an event loop; takes its clients, never makes one.

    `trip` (the wire's raw batches, for a plain Redis) carries the command path's read; without
    it (a Redis Cluster client, which picks the node) redis-py's pipeline does.
    """

    def __init__(self, aio: aioredis.Redis, keys: Callable[[str], GameKeys], trip: RoundTrip | None) -> None:
        self.aio = aio
        self.keys = keys
        self.trip = trip
        self._archived: dict[tuple[str, bytes], dict[str, bytes]] = {}  # answers of archived games

    async def head(self, gid: str, token_digest: str, cid: str, scoped: bool = False) -> CommandHead:
        """The game's seq, status and type, the role of a token's digest and the answer of
        command `cid` ("" for none), in one round trip; with `scoped`, `cid` is a client's id,
        read under the role's key (and under the bare id, as `legacy`)."""
        k = self.keys(gid)
        seq, status, game, archived, role, result, legacy = await self._eval(
            _HEAD_LUA, _HEAD_SHA, (k.events, k.meta, k.auth, k.results),
            (token_digest, cid, "1" if scoped else "0", ARCHIVED, SCOPE))
        if status is None:
            return CommandHead(0, None, "", None, None)
        if archived is not None and not seq:  # its stream is in its archive record
            seq = archived_head(archived)[0]
            if cid and scoped:
                if role is not None:
                    result = await self._archived_result(gid, client_key(bytes(role).decode(), cid))
                legacy = await self._archived_result(gid, cid)
            elif cid:
                result = await self._archived_result(gid, cid)
        return CommandHead(int(seq), bytes(status).decode(), bytes(game).decode(), None if role is None else bytes(role),
                           None if result is None else result_json(result),
                           None if legacy is None else result_json(legacy))

    async def board(self, gid: str, token_digest: str) -> BoardRead:
        """The game's existence, the role of a token's digest ("" for no token), the progress of
        its projection and the board the role's seat sees, in one round trip."""
        k = self.keys(gid)
        got = await self._eval(_BOARD_LUA, _BOARD_SHA, (k.meta, k.auth, k.rm, k.events), (token_digest,))
        if not got[0]:
            return BoardRead(False, None, 0, 0, "", None)
        _, role, done, head, field, view = got
        if view is not None and view[:1] != b"{":
            view = plain(view)  # compressed once archived, as `read_model` reads it
        return BoardRead(True, role, 0 if done is None else int(done), int(head), bytes(field).decode(), view)

    async def _eval(self, source: str, sha: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """A script's reply, by EVALSHA, loading the script where the server has not got it
        (restarted or flushed); an error reply raised."""
        call = ("EVALSHA", sha, len(keys), *keys, *args)
        with reaching_redis():
            if self.trip is not None:
                (reply,) = await self.trip.run([call])
                if no_script(reply):
                    reply = (await self.trip.run([("SCRIPT", "LOAD", source), call]))[1]
                return checked([reply])[0]
            try:
                return await self.aio.execute_command(*call)
            except NoScriptError:
                await self.aio.script_load(source)  # on a cluster, on every primary
                return await self.aio.execute_command(*call)

    async def progress(self, gid: str) -> tuple[int, int]:
        """The seq the game's read models are projected to (0: none yet), and the length of its
        event stream, in one round trip."""
        k = self.keys(gid)
        with reaching_redis():
            if self.trip is not None:
                done, head = checked(await self.trip.run([("HGET", k.rm, "checkpoint"), ("XLEN", k.events)]))
            else:
                pipe = self.aio.pipeline(transaction=False)
                pipe.hget(k.rm, "checkpoint")
                pipe.xlen(k.events)
                done, head = await pipe.execute()
        return (0 if done is None else int(done)), int(head)

    async def urge_projection(self, gid: str) -> None:
        """Ask the projector for this game at its next read of the feed, ahead of its burst
        merge (an URGENT feed entry; projecting a game twice is harmless)."""
        await self._call("XADD", self.keys(gid).feed, "*", "g", gid, URGENT, "1")

    async def _archived_result(self, gid: str, cid: str) -> bytes | None:
        """A command's answer from the game's archive record (None: not archived, or no such
        answer); the record's answers are kept for the next ask."""
        k = self.keys(gid)
        with reaching_redis():
            value: Any = await self.aio.hget(k.meta, ARCHIVED)
            blob: Any = await self.aio.get(k.archive)
        if value is None or blob is None:
            return None
        key = (gid, bytes(value))
        results = self._archived.get(key)
        if results is None:
            results = self._archived[key] = archived.unpack(bytes(blob)).results
            while len(self._archived) > 16:
                self._archived.pop(next(iter(self._archived)))
        return results.get(cid)

    async def _call(self, *command: Any) -> Any:
        with reaching_redis():
            return await self.aio.execute_command(*command)

    async def exists(self, gid: str) -> bool:
        return bool(await self._call("EXISTS", self.keys(gid).meta))

    async def role(self, gid: str, token_digest: str) -> bytes | None:
        """What a token's digest names in this game ("seat:N", "admin"); None: not valid here."""
        role: bytes | None = await self._call("HGET", self.keys(gid).auth, token_digest)
        return role

    async def name_referee(self, gid: str, field: str) -> str:
        """Gives the game's referee role to the player whose auth field is `field` (service/
        usecases/matches.py referee_field): "named", "same" (theirs already) or "taken" (another
        player holds it). One script, so two claims at once cannot both win."""
        got = await self._call("EVAL", _NAME_REFEREE, 1, self.keys(gid).auth, field)
        return got.decode() if isinstance(got, bytes) else str(got)

    async def read_model(self, gid: str, field: str) -> bytes | None:
        raw: bytes | None = await self._call("HGET", self.keys(gid).rm, field)
        return raw if raw is None or raw[:1] == b"{" else plain(raw)  # compressed once archived

    async def result(self, gid: str, cid: str) -> bytes | None:
        """A command's stored answer (JSON), if it has one."""
        raw: bytes | None = await self._call("HGET", self.keys(gid).results, cid)
        if raw is None:
            raw = await self._archived_result(gid, cid)
        return None if raw is None else result_json(raw)

    async def answered(self, gid: str, cid: str) -> bool:
        if await self._call("HEXISTS", self.keys(gid).results, cid):
            return True
        return await self._archived_result(gid, cid) is not None

    async def cached_audit(self, gid: str, field: str) -> bytes | None:
        """The audit answer kept for a finished game's record (`field` names the head seq and
        the code that audited it), if one is kept."""
        raw: bytes | None = await self._call("HGET", self.keys(gid).base + ":audit", field)
        return raw

    async def keep_audit(self, gid: str, field: str, answer: bytes) -> None:
        # One field: a game ends once, and a rules change makes a new field (the old one is dropped).
        key = self.keys(gid).base + ":audit"
        with reaching_redis():
            pipe = self.aio.pipeline(transaction=True)
            pipe.delete(key)
            pipe.hset(key, field, answer)
            await pipe.execute()

    async def pending(self, gid: str, cid: str) -> bytes | None:
        """A queued, unsettled command's pending record (JSON), if it is still there."""
        raw: bytes | None = await self._call("HGET", self.keys(gid).pending, cid)
        return raw

    async def queued(self, gid: str, cid: str) -> bool:
        """Whether a command is queued and not yet settled (its pending record is there)."""
        return bool(await self._call("HEXISTS", self.keys(gid).pending, cid))

    @asynccontextmanager
    async def notices(self, gid: str) -> AsyncIterator[Notices]:
        """Subscribed to the game's notices for as long as the block runs."""
        channel = self.keys(gid).notify
        pubsub = self.aio.pubsub()
        try:
            await pubsub.subscribe(channel)
        except UNREACHABLE as e:
            await pubsub.aclose()
            raise StoreUnavailable(str(e)) from e
        try:
            yield Notices(pubsub)
        finally:
            with suppress(*UNREACHABLE):  # the connection is gone, and the subscription with it
                await pubsub.unsubscribe(channel)
            await pubsub.aclose()
