"""EventStore on Redis Streams: one stream per game, atomic appends by Lua, snapshots as a cache."""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import redis
import zstandard
from redis.exceptions import NoScriptError

import rules
from events.domain.match import Match
from events.records.codec import canonical, loads
from events.records.compact import result_json, result_value
from events.records.envelope import Envelope
from events.records.snapshot import SnapshotError, decode, encode
from events.store.archive import ARCHIVED, ZSTD_MAGIC, Archives, archived_head, plain
from events.store.commandids import PlatformIds
from events.store.entries import (
    FIELD,
    StampMissing,
    envelopes,
    first_id,
    hash_of,
    seq_of,
    stamp_before,
    stored_all,
)
from events.store.errors import reports_unavailable
from events.store.layout import (
    DEFAULT_PARTITIONS,
    GameKeys,
    ended_key,
    feed_key,
    lobby_key,
    partition_of,
    queued_key,
    refused_key,
)
from events.store.wire import Links, checked, no_script
from rules.core import of_the_rules

IMPORTED = "imported"  # the meta field of a game loaded by `boardlog import`
ORIGIN = "origin"  # an imported game's: the trailer and countersignatures its record ends with
SNAPSHOT_EVERY = 500

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _script(name: str) -> str:
    return resources.files("events.store").joinpath("lua", name).read_text()


APPEND_LUA = _script("append.lua")
APPEND_BATCH_LUA = _script("append_batch.lua")
REJECT_LUA = _script("reject.lua")
PROJECT_LUA = _script("project.lua")
PROJECT_FAILED_LUA = _script("project_failed.lua")


@functools.lru_cache(maxsize=4096)
def _game_keys(gid: str, ns: str) -> GameKeys:
    """Key names are fixed per game: build them once (a regex and thirteen strings)."""
    return GameKeys(gid, ns)


@functools.lru_cache(maxsize=4096)
def _refused_of(gid: str, ns: str) -> str:
    """The game's partition's refused set (a regex to find the partition: once per game)."""
    return refused_key(partition_of(gid), ns)


class Lua:
    """A Lua script run by EVALSHA, loaded on first miss: over the thread's `Link` when there is
    one, else through the client's own `execute_command`.

    redis-py's `Script` wrapper costs ~15 us of client CPU a call on top of the command itself;
    this is one function call and the same round trip.
    """

    def __init__(self, client: Any, source: str, links: Links | None = None) -> None:
        self.client = client
        self.links = links
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    def __call__(self, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        if self.links is not None:
            return self.over(self.links, ("EVALSHA", self.sha, len(keys), *keys, *args))
        try:
            return self.client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            self.client.script_load(self.source)
            return self.client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)

    def over(self, links: Links, call: tuple[Any, ...]) -> Any:
        """This script's EVALSHA `call` over the thread's link, loading the script if missing."""
        reply = links.run([call])[0]
        if no_script(reply):
            reply = links.run([("SCRIPT", "LOAD", self.source), call])[1]
        return checked([reply])[0]


def _rules_fingerprint() -> bytes:
    """A digest of the rules' source: a snapshot taken under other rules is never reused."""
    h = hashlib.blake2b(digest_size=16)
    root = Path(rules.__file__).parent
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in {".py", ".toml", ".json"}:
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.digest()


def snapshot_classes(module: str) -> bool:
    """Whether a snapshot may make classes of `module`: the rules', the platform's Match and, for
    a game registered from outside rules/ (an extra game, the test game), its own package's."""
    # The capabilities' state (events.domain.platform) is part of a Match too.
    return module == Match.__module__ or module.startswith("events.domain.platform.") or of_the_rules(module)


FINISHED = frozenset({"over", "aborted"})


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Head:
    seq: int
    hash: str
    status: str
    game: str


@dataclass(frozen=True, slots=True)
class AppendResult:
    status: str  # "ok" | "conflict" | "dup"
    seq: int = 0
    prior: dict[str, Any] | None = None
    # "ok" only: whether the game's private hash (events.store.private) existed right after
    # the append, so whether any seat may have a queued answer to look for.
    private: bool = True


@dataclass(frozen=True, slots=True)
class Answered:
    """One command's part in its game's batch write (`append_games`): its events (none for a
    refusal), its answer, the waiter's channel ('' for none), and whether it is a refusal."""

    cid: str
    result: dict[str, Any]
    reply: str = ""
    envelopes: Sequence[Envelope] = ()
    refused: bool = False


@dataclass(frozen=True, slots=True)
class GameWrite:
    """One game's commands of a batch, decided on the game at seq `base`; `status` the game's
    status after them when they changed it (None: unchanged)."""

    gid: str
    base: int
    answers: Sequence[Answered]
    status: str | None = None


@dataclass(frozen=True, slots=True)
class Heads:
    """What a batch of commands reads before deciding (`batch_heads`): each command's queued body
    and answer, and each game's events after the seq asked for."""

    pending: list[dict[str, Any] | None]
    answers: list[dict[str, Any] | None]
    tails: dict[str, list[Envelope]]


def private_key(k: GameKeys) -> str:
    """The game's hash of what its seats keep to themselves (events.store.private)."""
    return f"{k.base}:private"


def queued_member(gid: str, command_id: str) -> str:
    return f"{gid} {command_id}"


def queued_command(member: str) -> tuple[str, str]:
    """The game id and command id of a `queued_member`."""
    gid, _, command_id = member.partition(" ")
    return gid, command_id


class EventStore:
    """Reads and writes one deployment's games; takes a redis-py client, never makes one."""

    def __init__(self, client: redis.Redis, namespace: str = "bl", partitions: int = DEFAULT_PARTITIONS) -> None:
        # redis-py's response types depend on decode_responses; this store reads bytes.
        self.r: Any = client
        self.ns = namespace
        self.partitions = partitions
        # The command path (pending and tail, append, reject) runs over one connection a
        # thread where the client allows it; everything else goes through redis-py.
        self._links = Links.for_client(client)
        self._append = Lua(client, APPEND_LUA, self._links)
        self._append_batch = Lua(client, APPEND_BATCH_LUA, self._links)
        self._reject = Lua(client, REJECT_LUA, self._links)
        self._project = Lua(client, PROJECT_LUA)
        self._project_failed = Lua(client, PROJECT_FAILED_LUA)
        self._fingerprint: bytes | None = None
        self.archives = Archives(self, snapshot_classes)
        self.ids = PlatformIds(client, namespace)  # the platform's own command ids

    @reports_unavailable
    def platform_id(self, gid: str, base: str) -> str:
        """The id of the platform's own command `base` in `gid` (events.store.commandids); the
        first call of a process reads (or makes) the secret in Redis."""
        return self.ids.id(gid, base)

    def lua(self, source: str) -> Lua:
        return Lua(self.r, source)

    def keys(self, gid: str) -> GameKeys:
        return _game_keys(gid, self.ns)

    def feed(self, partition: int) -> str:
        return feed_key(partition, self.ns)

    def lobby(self, partition: int) -> str:
        return lobby_key(partition, self.ns)

    def queued(self, partition: int) -> str:
        return queued_key(partition, self.ns)

    def ended(self, partition: int) -> str:
        return ended_key(partition, self.ns)

    @reports_unavailable
    def archived(self, gid: str) -> bool:
        """Whether the game's events are in its archive record (its stream is gone)."""
        return bool(self.r.hexists(self.keys(gid).meta, ARCHIVED))

    # -- writes ---------------------------------------------------------------------------

    @reports_unavailable
    def create(
        self, gid: str, envelopes: Sequence[Envelope], status: str, seed: bytes,
        tokens: dict[str, str], created_at: str, imported: dict[str, Any] | None = None,
        origin: bytes | None = None,
    ) -> AppendResult:
        """Store a new game: its opening events, secret seed and hashed tokens; `imported` marks
        a record loaded from another deployment (kept beside the log, which stays byte for byte),
        `origin` the lines its record ended with (events/records/origin.py), exported as they are."""
        k = self.keys(gid)
        pipe = self.r.pipeline(transaction=True)
        meta: dict[str, str | bytes] = {"game": envelopes[0].data["game"], "created": created_at, "status": status}
        if imported is not None:
            meta[IMPORTED] = canonical(imported).decode()
        if origin is not None:
            meta[ORIGIN] = origin
        pipe.hset(k.meta, mapping=meta)
        pipe.set(k.secret, seed.hex())
        if tokens:
            pipe.hset(k.auth, mapping=tokens)
        pipe.execute()
        return self.append(gid, 0, envelopes, None, None)

    @reports_unavailable
    def append(
        self,
        gid: str,
        expected_seq: int,
        envelopes: Sequence[Envelope],
        command_id: str | None,
        result: dict[str, Any] | None,
        reply: str | None = None,
    ) -> AppendResult:
        """Append one command's events at `expected_seq`, storing its result; then `settle`. With
        `reply` (the waiter's channel, '' for none) the same script settles it too (drops the
        queued body, tells the waiter), for a caller with nothing to do in between (no comment
        to post, no new status): with `appendfsync always` the waiter then waits on one fsync,
        not two."""
        k = self.keys(gid)
        try:
            out = self._append_call(k, expected_seq, envelopes, command_id, result, reply)
        except redis.ResponseError as e:
            if not str(e).startswith("ARCHIVED"):
                raise
            # Something is appended to an archived game (a dispute after the end): its stream
            # comes back, and the game is archived again once the archiver's wait has passed.
            self.archives.restore(gid)
            self.r.zadd(k.ended, {gid: _now_ms()})
            out = self._append_call(k, expected_seq, envelopes, command_id, result, reply)
        if isinstance(out, bytes):
            return AppendResult("dup", prior=loads(result_json(out)))
        if isinstance(out, list):
            return AppendResult("ok", seq=int(out[0]), private=bool(out[1]))
        if out < 0:
            return AppendResult("conflict", seq=-1 - out)
        return AppendResult("ok", seq=out)

    def _append_call(
        self, k: GameKeys, expected_seq: int, envelopes: Sequence[Envelope], command_id: str | None,
        result: dict[str, Any] | None, reply: str | None,
    ) -> Any:
        gid = k.gid
        keys = [k.events, k.results, k.feed, k.archive, private_key(k)]
        args = [
            expected_seq,
            command_id or "",
            result_value(result) if result is not None else b"",
            gid,
            *stored_all(envelopes),
        ]
        if reply is not None:
            keys.append(k.pending)
            args += [reply, canonical(result)]
        return self._append(keys=keys, args=args)

    @reports_unavailable
    def append_games(self, writes: Sequence[GameWrite]) -> list[AppendResult]:
        """Each game's part of a batch (append_batch.lua), one Lua call a game, all in one round
        trip (one by one on a cluster): all or nothing per game. For each: "ok" with the new seq
        and whether the private hash exists; "conflict" (the stream is at another seq, given) or
        "dup" (a command of it already has an answer) when that game's call wrote nothing."""
        return self._outcomes(writes, *self._append_calls(writes))

    def _append_calls(self, writes: Sequence[GameWrite]) -> tuple[list[tuple[list[Any], list[Any]]], list[Any]]:
        """Each game's append_batch.lua call and its reply (an error reply as its exception)."""
        calls = [self._batch_call(w) for w in writes]
        if isinstance(self.r, redis.RedisCluster) or len(calls) == 1:
            replies: list[Any] = []
            for keys, args in calls:
                try:
                    replies.append(self._append_batch(keys=keys, args=args))
                except redis.ResponseError as e:
                    replies.append(e)
        else:
            sha = self._append_batch.sha
            replies = self._round_trip([("EVALSHA", sha, len(keys), *keys, *args) for keys, args in calls],
                                       check=False)
        return calls, replies

    def _outcomes(
        self, writes: Sequence[GameWrite], calls: Sequence[tuple[list[Any], list[Any]]], replies: Sequence[Any]
    ) -> list[AppendResult]:
        """`append_games`'s answer from its calls' replies (a script the server had not got, or an
        archived game's stream, is seen to here and that game's call made again)."""
        out: list[AppendResult] = []
        for w, (keys, args), res in zip(writes, calls, replies, strict=True):
            if isinstance(res, NoScriptError) or no_script(res):
                res = self._append_batch(keys=keys, args=args)  # loads the script, then runs it
            if isinstance(res, Exception):
                if not str(res).startswith("ARCHIVED"):
                    raise res
                # Appended to an archived game (a dispute after the end): its stream comes back
                # and the game is archived again once the archiver's wait has passed.
                self.archives.restore(w.gid)
                self.r.zadd(self.keys(w.gid).ended, {w.gid: _now_ms()})
                res = self._append_batch(keys=keys, args=args)
            code = int(res[0])
            if code == 1:
                out.append(AppendResult("ok", seq=int(res[1]), private=bool(res[2])))
            elif code == 0:
                out.append(AppendResult("conflict", seq=int(res[1])))
            else:
                out.append(AppendResult("dup", seq=int(res[1])))
        return out

    def game_writes(self) -> GameWrites:
        """A batch's game writes sent as each game is decided (`GameWrites`)."""
        return GameWrites(self)

    @reports_unavailable
    def _send_game(self, links: Links, w: GameWrite) -> tuple[list[Any], list[Any]]:
        keys, args = call = self._batch_call(w)
        links.send_kept([("EVALSHA", self._append_batch.sha, len(keys), *keys, *args)])
        return call

    @reports_unavailable
    def _sent_outcomes(
        self, links: Links, writes: Sequence[GameWrite], calls: Sequence[tuple[list[Any], list[Any]]]
    ) -> list[AppendResult]:
        return self._outcomes(writes, calls, links.collect())

    def _batch_call(self, w: GameWrite) -> tuple[list[Any], list[Any]]:
        k = self.keys(w.gid)
        keys = [k.events, k.results, k.feed, k.archive, private_key(k), k.pending, _refused_of(w.gid, self.ns),
                k.meta, k.ended]
        args: list[Any] = [w.base, w.gid, _now_ms(), w.status or "", "1" if w.status in FINISHED else ""]
        for a in w.answers:
            values = stored_all(a.envelopes)
            args += [a.cid, "r" if a.refused else "a", result_value(a.result), a.reply,
                     canonical(a.result) if a.reply else b"", len(values), *values]
        return keys, args

    @reports_unavailable
    def batch_heads(self, commands: Sequence[tuple[str, str]], after: dict[str, int | None]) -> Heads:
        """Each queued command's body and answer, and the events of each game in `after` past
        the seq given (None: none read), in one round trip (the commands path's first)."""
        calls: list[tuple[Any, ...]] = []
        for gid, cid in commands:
            k = self.keys(gid)
            calls += [("HGET", k.pending, cid), ("HGET", k.results, cid)]
        tailed = [(gid, seq) for gid, seq in after.items() if seq is not None]
        for gid, seq in tailed:
            k = self.keys(gid)
            # An archived game's stream is gone: its meta says so, read here, not asked after.
            calls += [("XRANGE", k.events, first_id(seq + 1), "+"), ("HEXISTS", k.meta, ARCHIVED)]
        got = self._round_trip(calls)
        n = len(commands)
        pending = [None if raw is None else loads(raw) for raw in got[0:2 * n:2]]
        answers = [None if raw is None else loads(result_json(raw)) for raw in got[1:2 * n:2]]
        tails: dict[str, list[Envelope]] = {}
        for i, (gid, seq) in enumerate(tailed):
            rows, archived = got[2 * n + 2 * i], got[2 * n + 2 * i + 1]
            if rows or not archived:
                tails[gid] = self._envelopes(gid, rows, seq + 1)
            else:
                tails[gid] = self.archives.read(gid, seq + 1)
        return Heads(pending, answers, tails)

    @reports_unavailable
    def settle(
        self, gid: str, command_id: str, result: dict[str, Any], reply: str = "", status: str | None = None
    ) -> None:
        """After an append: wake the waiter on `reply` (if any), drop the queued body and, when
        the command changed the game's status (it ended), record that."""
        k = self.keys(gid)
        calls: list[tuple[Any, ...]] = [("HDEL", k.pending, command_id)]
        if status is not None:
            calls.append(("HSET", k.meta, "status", status))
            if status in FINISHED:  # the archiver's list
                calls.append(("ZADD", k.ended, _now_ms(), gid))
        if reply:
            calls.append(("PUBLISH", reply, f"{gid} ".encode() + canonical(result)))
        if self._links is not None:
            # Not waited for: the worker goes on to its next message, and the replies are read
            # with its next round trip. If they are lost with the connection, the waiter finds
            # the stored result within a second and the queued-command sweep drops the body.
            self._links.send(calls)
            return
        pipe = self.r.pipeline(transaction=False)
        for c in calls:
            pipe.execute_command(*c)
        pipe.execute()

    def _round_trip(self, calls: Sequence[tuple[Any, ...]], check: bool = True) -> list[Any]:
        """`calls` in one round trip: over the thread's raw link where the client allows one,
        else a redis-py pipeline. With `check`, an error reply raises; without, it is returned."""
        if self._links is not None:
            replies = self._links.run(calls)
            return checked(replies) if check else replies
        pipe = self.r.pipeline(transaction=False)
        for c in calls:
            pipe.execute_command(*c)
        return list(pipe.execute(raise_on_error=check))

    @reports_unavailable
    def reject(self, gid: str, command_id: str, result: dict[str, Any], reply: str = "") -> dict[str, Any]:
        """Store a rejection (first answer wins); returns the answer that stands."""
        k = self.keys(gid)
        # Listed by when, so that the sweep drops it later (events/store/sweeps.py): an accepted
        # command's answer stays with the log, a refusal is kept only for a while.
        raw = self._reject(keys=[k.results, k.pending, refused_key(partition_of(gid), self.ns)],
                           args=[command_id, canonical(result), gid, reply, result_value(result), _now_ms()])
        answer: dict[str, Any] = loads(result_json(raw))
        return answer

    @reports_unavailable
    def put_pending(self, gid: str, command_id: str, command: dict[str, Any], queued_ms: int | None = None) -> bool:
        """Record a queued command by id (and when, for the lost-message sweep); False when
        that id was queued before."""
        k = self.keys(gid)
        if queued_ms is not None:
            self.r.zadd(k.queued, {queued_member(gid, command_id): queued_ms})
        return bool(self.r.hsetnx(k.pending, command_id, canonical(command)))

    @reports_unavailable
    def pending(self, gid: str, command_id: str) -> dict[str, Any] | None:
        raw = self.r.hget(self.keys(gid).pending, command_id)
        return None if raw is None else loads(raw)

    @reports_unavailable
    def pending_and_tail(
        self, gid: str, command_id: str, after_seq: int | None
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None, list[Envelope]]:
        """A queued command's body, its answer if it has one, and the game's events after
        `after_seq` (None: no events), in one round trip. A body with an answer was applied by
        a worker that stopped before it settled the command."""
        k = self.keys(gid)
        calls: list[tuple[Any, ...]] = [("HGET", k.pending, command_id), ("HGET", k.results, command_id)]
        if after_seq is not None:
            calls.append(("XRANGE", k.events, first_id(after_seq + 1), "+"))
        got = self._round_trip(calls)
        raw, answer = got[0], got[1]
        if after_seq is None:
            tail = []
        elif got[2] or not self.archived(gid):
            tail = self._envelopes(gid, got[2], after_seq + 1)
        else:
            tail = self.archives.read(gid, after_seq + 1)
        return ((None if raw is None else loads(raw)), (None if answer is None else loads(result_json(answer))), tail)

    # -- reads ----------------------------------------------------------------------------

    @reports_unavailable
    def exists(self, gid: str) -> bool:
        return bool(self.r.exists(self.keys(gid).meta))

    @reports_unavailable
    def imported(self, gid: str) -> dict[str, Any] | None:
        """How the game came here by `boardlog import` ({at, verdict, key}); None for one made here."""
        raw = self.r.hget(self.keys(gid).meta, IMPORTED)
        if raw is None:
            return None
        got = loads(raw)
        return got if isinstance(got, dict) else None

    @reports_unavailable
    def origin(self, gid: str) -> bytes | None:
        """An imported game's record's last lines as it came (its trailer, countersignatures);
        None for a game made here, whose export is signed here."""
        raw = self.r.hget(self.keys(gid).meta, ORIGIN)
        return None if raw is None else bytes(raw)

    @reports_unavailable
    def head(self, gid: str) -> Head | None:
        k = self.keys(gid)
        pipe = self.r.pipeline(transaction=False)
        pipe.xrevrange(k.events, "+", "-", count=1)
        pipe.hmget(k.meta, ["status", "game", ARCHIVED])
        last, (status, game, archived) = pipe.execute()
        if status is None:
            return None
        if not last:
            if archived is None:
                return None
            seq, digest = archived_head(archived)
            return Head(seq, digest, status.decode(), game.decode())
        return Head(seq_of(last[0][0]), hash_of(last[0][1][FIELD]), status.decode(), game.decode())

    @reports_unavailable
    def read(self, gid: str, start: int = 1, end: int | None = None) -> list[Envelope]:
        """Envelopes with start <= seq <= end (end None: to the head)."""
        if end is not None and end < start:
            return []
        hi = "+" if end is None else f"{end}-0"
        rows = self.r.xrange(self.keys(gid).events, first_id(start), hi)
        if not rows and self.archived(gid):
            return self.archives.read(gid, start, end)
        return self._envelopes(gid, rows, start)

    def _envelopes(self, gid: str, rows: Sequence[Any], start: int) -> list[Envelope]:
        """`entries.envelopes`, looking further back for the command id and time of a read that
        starts inside one command's events (a second round trip, only then)."""
        try:
            return envelopes(gid, rows, start)
        except StampMissing:
            back = self.r.xrevrange(self.keys(gid).events, f"{start - 1}-0", "-", count=256)
            return envelopes(gid, rows, start, stamp_before(back))

    @reports_unavailable
    def result(self, gid: str, command_id: str) -> dict[str, Any] | None:
        raw = self.r.hget(self.keys(gid).results, command_id)
        if raw is None:
            raw = self.archives.result(gid, command_id)
        return None if raw is None else loads(result_json(raw))

    @reports_unavailable
    def seed(self, gid: str) -> bytes:
        raw = self.r.get(self.keys(gid).secret)
        if raw is None:
            raise KeyError(f"no seed stored for {gid}")
        return bytes.fromhex(raw.decode())

    # -- snapshots (a cache, never the truth) ---------------------------------------------

    def fingerprint(self) -> bytes:
        if self._fingerprint is None:
            self._fingerprint = _rules_fingerprint()
        return self._fingerprint

    @reports_unavailable
    def save_snapshot(self, gid: str, seq: int, value: Any) -> None:
        """Store `value` (the folded match) as data; SnapshotError, storing nothing, for a value
        the snapshot codec cannot write."""
        k = self.keys(gid)
        # zstd: a folded state is repetitive JSON, a fifth of it compressed (its first bytes, zstd's
        # magic number, tell it from the plain JSON snapshots of before).
        blob = self.fingerprint() + zstandard.ZstdCompressor(level=3).compress(encode(value))
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(k.snap, str(seq), blob)
        pipe.zadd(k.snap + "idx", {str(seq): seq})
        pipe.execute()

    @reports_unavailable
    def load_snapshot(self, gid: str, at: int) -> tuple[int, Any] | None:
        """The latest snapshot taken at or before seq `at`, if any still matches these rules."""
        k = self.keys(gid)
        seqs = self.r.zrevrangebyscore(k.snap + "idx", at, "-inf", start=0, num=1)
        if not seqs:
            return self.archives.snapshot(gid, at) if self.archived(gid) else None
        blob = self.r.hget(k.snap, seqs[0])
        fp = self.fingerprint()
        if blob is None or not blob.startswith(fp):
            return None
        raw = bytes(blob[len(fp):])
        try:
            if raw.startswith(ZSTD_MAGIC):
                raw = zstandard.ZstdDecompressor().decompress(raw)
            return int(seqs[0]), decode(raw, snapshot_classes)
        except (SnapshotError, zstandard.ZstdError):
            return None  # written by other code (its classes changed): fold from the events

    # -- read models ----------------------------------------------------------------------

    @reports_unavailable
    def project(
        self, gid: str, seq: int, score_ms: int, fields: dict[str, bytes], notice: bytes
    ) -> bool:
        """Write read models with their checkpoint; False when `seq` is not newer (a no-op)."""
        keys, args = self.project_call(gid, seq, score_ms, fields, notice)
        return bool(self._project(keys=keys, args=args))

    def project_call(
        self, gid: str, seq: int, score_ms: int, fields: dict[str, bytes], notice: bytes
    ) -> tuple[list[Any], list[Any]]:
        """The keys and arguments of project.lua for `project` (or a caller's pipeline)."""
        k = self.keys(gid)
        flat: list[Any] = []
        for name, value in fields.items():
            flat += [name, value]
        return [k.rm, k.lobby], [gid, seq, score_ms, k.notify, notice, len(fields), *flat]

    @reports_unavailable
    def read_model(self, gid: str, field: str) -> bytes | None:
        val = self.r.hget(self.keys(gid).rm, field)
        return None if val is None else plain(bytes(val))

    @reports_unavailable
    def checkpoint(self, gid: str) -> int:
        raw = self.r.hget(self.keys(gid).rm, "checkpoint")
        return 0 if raw is None else int(raw)

    @reports_unavailable
    def read_after(self, after: Sequence[tuple[str, int]]) -> list[list[Envelope]]:
        """Each (game id, seq)'s envelopes after that seq, in one round trip (one by one on a
        cluster, as `project_many`)."""
        if len(after) <= 1 or isinstance(self.r, redis.RedisCluster):
            return [self.read(gid, seq + 1) for gid, seq in after]
        # `_envelopes` reads the rows' flat field lists as the raw link gives them, or redis-py's pairs
        replies = self._round_trip([("XRANGE", self.keys(gid).events, first_id(seq + 1), "+") for gid, seq in after])
        return [self._envelopes(gid, rows, seq + 1) if rows or not self.archived(gid) else self.archives.read(gid, seq + 1)
                for (gid, seq), rows in zip(after, replies, strict=True)]

    @reports_unavailable
    def project_many(self, projections: Sequence[tuple[str, int, int, dict[str, bytes], bytes]]) -> list[bool]:
        """`project` for several games (each a tuple of its arguments) in one round trip; on a
        cluster one by one, as the projector always did there."""
        if len(projections) <= 1 or isinstance(self.r, redis.RedisCluster):
            return [self.project(*p) for p in projections]
        script = self._project
        calls = [self.project_call(*p) for p in projections]
        # errors come back as replies: a NOSCRIPT is answered by loading the script
        replies = self._round_trip([("EVALSHA", script.sha, len(keys), *keys, *args) for keys, args in calls],
                                   check=False)
        out = []
        for (keys, args), res in zip(calls, replies, strict=True):
            if isinstance(res, NoScriptError) or no_script(res):
                res = script(keys=keys, args=args)  # loads the script, then runs it
            elif isinstance(res, Exception):
                raise res
            out.append(bool(res))
        return out

    @reports_unavailable
    def stored_summary(self, gid: str) -> tuple[int, bytes | None]:
        """The checkpoint and the summary stored with it (0 and None: never projected)."""
        checkpoint, summary = self.r.hmget(self.keys(gid).rm, ["checkpoint", "summary"])
        return (0 if checkpoint is None else int(checkpoint)), (None if summary is None else bytes(summary))

    @reports_unavailable
    def project_failed(self, gid: str, checkpoint: int, summary: bytes, score_ms: int, notice: bytes) -> bool:
        """Replace the summary of a game its rules failed to project (the last good one, marked),
        keeping its views and checkpoint; False when a projection past `checkpoint` was written
        since that summary was read."""
        k = self.keys(gid)
        return bool(self._project_failed(keys=[k.rm, k.lobby], args=[gid, checkpoint, score_ms, k.notify, notice, summary]))

    @reports_unavailable
    def summaries(self, gids: Sequence[str]) -> list[bytes | None]:
        """The stored summaries of these games (None: not projected), in one round trip."""
        pipe = self.r.pipeline(transaction=False)
        for gid in gids:
            pipe.hget(self.keys(gid).rm, "summary")
        return [None if raw is None else bytes(raw) for raw in pipe.execute()]

    @reports_unavailable
    def lobby_below(
        self, score: int | None, count: int
    ) -> list[tuple[list[tuple[str, int]], list[tuple[str, int]]]]:
        """Each partition's lobby entries as (game id, last activity in ms): those at exactly
        `score`, and up to `count` below it, highest first (score None: no ties, and the top
        `count`). One round trip."""
        pipe = self.r.pipeline(transaction=False)
        for p in range(self.partitions):
            key = self.lobby(p)
            if score is None:
                pipe.zrevrangebyscore(key, "+inf", "-inf", start=0, num=count, withscores=True)
            else:
                pipe.zrangebyscore(key, score, score, withscores=True)
                pipe.zrevrangebyscore(key, f"({score}", "-inf", start=0, num=count, withscores=True)
        replies = [[(gid.decode(), int(s)) for gid, s in rows] for rows in pipe.execute()]
        if score is None:
            return [([], rows) for rows in replies]
        return list(zip(replies[::2], replies[1::2], strict=True))

    # -- queued commands: the sweep that queues a lost message's command again ------------

    @reports_unavailable
    def queued_before(self, partitions: Sequence[int], before_ms: int, count: int) -> dict[int, list[tuple[str, str]]]:
        """Up to `count` (game id, command id) of each partition queued at or before `before_ms`,
        oldest first, in one round trip; partitions with none are left out."""
        pipe = self.r.pipeline(transaction=False)
        for p in partitions:
            pipe.zrangebyscore(self.queued(p), "-inf", before_ms, start=0, num=count)
        return {p: [queued_command(m.decode()) for m in rows]
                for p, rows in zip(partitions, pipe.execute(), strict=True) if rows}

    @reports_unavailable
    def queued_states(self, commands: Sequence[tuple[str, str]]) -> list[tuple[bool, bool]]:
        """For each queued (game id, command id): whether it has an answer, and whether its body
        is still stored."""
        pipe = self.r.pipeline(transaction=False)
        for gid, cid in commands:
            k = self.keys(gid)
            pipe.hexists(k.results, cid)
            pipe.hexists(k.pending, cid)
        flags = pipe.execute()
        return [(bool(a), bool(w)) for a, w in zip(flags[::2], flags[1::2], strict=True)]

    @reports_unavailable
    def sweep_queued(
        self, again: Sequence[tuple[str, str]], forget: Sequence[tuple[str, str, bool]], at_ms: int
    ) -> None:
        """The sweep's writes in one round trip: the commands queued `again` count as queued at
        `at_ms` (and are queued again after another wait while unanswered); the ones to
        `forget` (game id, command id, drop its body) leave the queued set, and with the flag set
        their body too (answered, the body left behind because the settling was lost)."""
        pipe = self.r.pipeline(transaction=False)
        for gid, cid in again:
            pipe.zadd(self.keys(gid).queued, {queued_member(gid, cid): at_ms})
        done: dict[str, list[str]] = {}
        for gid, cid, drop_body in forget:
            k = self.keys(gid)
            done.setdefault(k.queued, []).append(queued_member(gid, cid))
            if drop_body:
                pipe.hdel(k.pending, cid)
        for key, members in done.items():
            pipe.zrem(key, *members)
        pipe.execute()

    # -- the deadlines worker's mark ----------------------------------------------------------

    def _deadline_key(self, gid: str) -> str:
        # The clock seq whose deadlines are scheduled, beside the game's own keys.
        return f"{self.keys(gid).base}:deadline"

    @reports_unavailable
    def deadlines_scheduled(self, gid: str) -> int | None:
        """The clock seq whose deadlines the deadlines worker has scheduled for `gid`, if any."""
        done = self.r.get(self._deadline_key(gid))
        return None if done is None else int(done)

    @reports_unavailable
    def mark_deadlines_scheduled(self, gid: str, clock_seq: int, keep_ms: int) -> None:
        """Say that `clock_seq`'s deadlines are scheduled, for `keep_ms` (a lost mark only has
        them scheduled again, which is harmless)."""
        self.r.set(self._deadline_key(gid), clock_seq, px=keep_ms)

    # -- maintenance ----------------------------------------------------------------------

    @reports_unavailable
    def referee_player(self, gid: str) -> str | None:
        """The player a game names as its referee (its auth field `player:<id>`, service/usecases/
        matches.py), for the notifier; None when its referee holds a token, or it has none."""
        for field, role in self.r.hgetall(self.keys(gid).auth).items():
            name = field.decode() if isinstance(field, bytes) else str(field)
            if name.startswith("player:") and role in (b"referee", "referee"):
                return name.partition(":")[2]
        return None

    @reports_unavailable
    def status(self, gid: str) -> str | None:
        """The game's status as its meta says ('active', 'finished', ...); None for no such game."""
        got = self.r.hget(self.keys(gid).meta, "status")
        return None if got is None else got.decode() if isinstance(got, bytes) else str(got)

    @reports_unavailable
    def game_ids(self) -> list[str]:
        """Every game id in this namespace, found from the meta keys (a SCAN of the keyspace:
        for maintenance such as a rebuild, never for a request)."""
        out = []
        for key in self.r.scan_iter(match=f"{self.ns}:{{p*}}:g:*:meta", count=1000):
            k = key.decode() if isinstance(key, bytes) else key
            out.append(k.split(":g:", 1)[1].rsplit(":", 1)[0])
        return sorted(out)

    @reports_unavailable
    def drop_read_models(self, gids: Sequence[str]) -> None:
        """Delete these games' read models and every partition's lobby (a rebuild's first step)."""
        pipe = self.r.pipeline(transaction=False)
        for p in range(self.partitions):
            pipe.delete(self.lobby(p))
        for gid in gids:
            pipe.delete(self.keys(gid).rm)
        pipe.execute()


class GameWrites:
    """A batch's writes (append_batch.lua, one call a game, as `append_games`), each sent over the
    thread's link the moment its game is decided, and their replies read together at the end:
    Redis runs a game's call, and publishes its answers to their waiters, while the worker decides
    the next game, so a command waits for its own game's decisions and write, not its batch's. A
    store with no raw link (a cluster client) writes them all at the end with `append_games`."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.writes: list[GameWrite] = []
        self.calls: list[tuple[list[Any], list[Any]]] = []
        self.links = None if isinstance(store.r, redis.RedisCluster) else store._links
        if self.links is not None:
            self.links.forget_kept()  # replies of a batch given up halfway (its handler raised)

    def send(self, w: GameWrite) -> None:
        self.writes.append(w)
        if self.links is not None:
            self.calls.append(self.store._send_game(self.links, w))

    def outcomes(self) -> list[AppendResult]:
        """Each write's outcome, in the order sent (`append_games`)."""
        if not self.writes:
            return []
        if self.links is None:
            return self.store.append_games(self.writes)
        return self.store._sent_outcomes(self.links, self.writes, self.calls)
