"""Archived finished games read exactly as before (export bytes, replay views, audit, results,
the lobby's rebuild), games recorded in the JSON entries of before still export and audit, an
append to an archived game puts it back, and a kill -9 of the archiving process or of Redis
while a game is being archived loses nothing."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

from events.domain.audit import audit
from events.domain.forks import ForkRefused
from events.domain.provenance import FORKED_FROM, forked_state
from events.domain.wallclock import utcnow
from events.records.archived import unpack
from events.records.chain import seal, verify
from events.records.codec import canonical
from events.records.export import export_lines, read_record
from events.store.aiostore import AsyncStore, BoardRead
from events.store.archive import SHORT, SNAPSHOT_EVERY, ZSTD_MAGIC, archive_due, due
from events.store.entries import stored
from events.store.errors import StoreUnavailable
from events.store.store import EventStore
from projections.projector import rebuild
from projections.replay import replay
from rules.core import Command, Event, get_game
from service.runtime.bootstrap import redis_client
from service.runtime.embedded import EmbeddedRedis
from service.usecases.forks import plan_fork
from service.usecases.matches import create_match
from tests.conftest import ROOT, child_env, running_stack, wait_for
from tests.integration.helpers import bearer, command, new_race
from workers.commands import CommandHandler

pytestmark = pytest.mark.integration


def play(store: EventStore, handler: CommandHandler, game: str, options: dict[str, Any], seed: int) -> str:
    """A game from creation to its end by seeded random bots; its id."""
    gid: str = create_match(store, {"game": game, "seats": ["ann", "bob"], "options": options})["id"]
    bot = random.Random(seed)
    for _ in range(3000):
        match = handler.cache.get(gid).match
        if match.over:
            return gid
        assert match.prompt is not None
        seat = bot.choice(list(match.prompt.seats))
        cmd: Command = bot.choice(list(match.rules.legal_commands(match.state, seat)))
        cid = uuid.uuid4().hex
        store.put_pending(gid, cid, {**cmd.to_json(), "expect": None})
        result = handler.handle(gid, cid)
        assert result is not None and result["status"] == "accepted", result
    raise AssertionError(f"{game} did not end")


def record(store: EventStore, gid: str) -> dict[str, Any]:
    """Everything a reader can get of a game: its export bytes, audit verdict, head, command
    answers, and the views at a spread of seqs for each seat and the public."""
    envs = store.read(gid)
    lines = b"".join(export_lines(envs))
    head = store.head(gid)
    assert head is not None
    seqs = sorted({1, 2, head.seq // 3, head.seq // 2, head.seq - 1, head.seq})
    cids = sorted({e.command for e in envs if e.command})
    ends = [e.seq for i, e in enumerate(envs[:-1]) if envs[i + 1].command != e.command]  # where commands end
    return {
        "export": lines,
        "audit": audit(read_record(lines.splitlines())).to_json(),
        "head": (head.seq, head.hash, head.status),
        "results": [store.result(gid, c) for c in cids[:: max(1, len(cids) // 20)]],
        "views": [replay(store, gid, s, v) for s in seqs for v in (None, 0, 1)],
        "middle": [canonical(e.to_json()) for e in store.read(gid, head.seq // 2, head.seq // 2 + 7)],
        "read models": {f: store.read_model(gid, f) for f in ("summary", "view:0", "view:1", "view:public")},
        "forks": [fork_of(store, gid, at) for at in (ends[len(ends) // 2], ends[-3])],
    }


def fork_of(store: EventStore, gid: str, at: int) -> tuple[Any, ...]:
    """What a fork at `at` takes from its origin (its own id and seed are new each time)."""
    try:
        plan = plan_fork(store, gid, at)
    except ForkRefused as e:
        return ("refused", str(e))
    # The state as the fork reads it: its snapshot bytes keep sets and dicts in the order the fold
    # made them, which differs between a fold from a snapshot and one from seq 1 for equal states.
    return plan.seq, plan.head, plan.game, plan.names, [
        ({k: v for k, v in e.data.items() if k != "state"}, forked_state(get_game(plan.game), e))
        for e in plan.events if e.type == FORKED_FROM]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A Redis of this module's own, with AOF: one test kills it. appendfsync always: with
    everysec, Redis may answer a write up to 2 s before it reaches the AOF (while a background
    fsync runs), so a swap answered just before a kill -9 may be gone, game unarchived and whole:
    the test wants the answered swap to stand."""
    s = EmbeddedRedis(tmp_path_factory.mktemp("archive-redis"), appendonly=True, fsync="always").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def played(server: EmbeddedRedis) -> Iterator[tuple[EventStore, dict[str, str]]]:
    client = redis.Redis.from_url(server.url)
    store = EventStore(client, "tarchive", partitions=8)
    handler = CommandHandler(store)
    games = {
        "dragondale": play(store, handler, "dragondale", {"tribes": ["vikings", "celts"]}, 3),
        "factions": play(store, handler, "factions", {"factions": ["zyan", "zermano"]}, 5),
        "race": play(store, handler, "race", {"target": 30}, 7),
    }
    rebuild(store)
    yield store, games
    client.close()


async def async_view(url: str, store: EventStore, gid: str) -> bytes | None:
    """The public view as the API reads it, from its event loop."""
    aio = aioredis.Redis.from_url(url)
    try:
        return await AsyncStore(aio, store.keys, None).read_model(gid, "view:public")
    finally:
        await aio.aclose()


async def async_board(url: str, store: EventStore, gid: str) -> BoardRead:
    """The board as the API's view reads it (no token: the public one), from its event loop."""
    aio = aioredis.Redis.from_url(url)
    try:
        return await AsyncStore(aio, store.keys, None).board(gid, "")
    finally:
        await aio.aclose()


def test_an_archived_game_reads_as_before(played: tuple[EventStore, dict[str, str]], server: EmbeddedRedis) -> None:
    store, games = played
    for game in ("dragondale", "factions"):
        gid = games[game]
        before = record(store, gid)
        assert before["audit"]["ok"], before["audit"]
        assert all(f[0] != "refused" for f in before["forks"]), before["forks"]
        summary = store.read_model(gid, "summary")
        n = len(store.read(gid))
        assert store.archives.archive(gid) == "archived"
        k = store.keys(gid)
        # a short game's record keeps no snapshot (a read folds it all), a long one's every 500
        assert len(unpack(store.r.get(k.archive)).snapshots) == (0 if n < SHORT else (n - 1) // SNAPSHOT_EVERY)
        assert not store.r.exists(k.events, k.results, k.snap, k.snap + "idx") and store.r.exists(k.archive)
        assert store.archives.archive(gid) == "archived before"
        assert store.r.hget(k.rm, "view:public").startswith(ZSTD_MAGIC)  # the views compressed
        store.archives._items.clear()  # as a fresh process reads it: from the record
        assert record(store, gid) == before, game
        assert asyncio.run(async_view(server.url, store, gid)) == before["read models"]["view:public"]
        board = asyncio.run(async_board(server.url, store, gid))
        assert board.exists and board.view == before["read models"]["view:public"]
        assert (board.checkpoint, board.head) == (n, 0)  # its stream is in the record now
        rebuild(store)  # the lobby and read models made again from the archived record
        assert store.read_model(gid, "summary") == summary


def test_entries_written_as_json_before_the_compact_rows_read_and_audit(
        played: tuple[EventStore, dict[str, str]]) -> None:
    """A game recorded before the change: every entry the whole canonical JSON envelope."""
    store, games = played
    gid = games["race"]
    before = record(store, gid)
    k = store.keys(gid)
    envs = store.read(gid)
    store.r.delete(k.events)
    for env in envs[:-3]:
        store.r.xadd(k.events, {"e": canonical(env.to_json())}, id=f"{env.seq}-0")
    # ... and the last three appended since, as compact rows after JSON ones.
    for i, env in enumerate(envs[-3:]):
        store.r.xadd(k.events, {"e": stored(env, envs[-4 + i])}, id=f"{env.seq}-0")
    assert store.r.xrange(k.events, count=1)[0][1][b"e"].startswith(b"{")
    assert record(store, gid) == before
    assert store.archives.archive(gid) == "archived"
    store.archives._items.clear()
    assert record(store, gid) == before


def test_an_append_to_an_archived_game_puts_it_back(played: tuple[EventStore, dict[str, str]]) -> None:
    store, games = played
    gid = games["dragondale"]
    if not store.archived(gid):
        assert store.archives.archive(gid) == "archived"
    before = store.read(gid)
    head = store.head(gid)
    assert head is not None
    envs = seal(gid, head.seq + 1, head.hash, [Event("boardlog.Noted", {"n": 1}), Event("boardlog.Noted", {"n": 2})],
                "c" * 32, utcnow())
    assert store.append(gid, head.seq, envs, "c" * 32, {"status": "accepted"}).status == "ok"
    assert not store.archived(gid)
    after = store.read(gid)
    assert after[: len(before)] == before and after[len(before):] == envs and verify(after, gid) is None
    assert store.result(gid, "c" * 32) == {"status": "accepted"}
    # Back in the archiver's list: archived again once its wait has passed.
    now = int(time.time() * 1000) + 1
    assert gid in due(store, after_ms=0, now_ms=now) and gid not in due(store, after_ms=60_000, now_ms=now)
    assert archive_due(store, after_ms=0, now_ms=now).get("archived", 0) >= 1 and store.archived(gid)
    assert gid not in due(store, after_ms=0, now_ms=now)
    store.archives._items.clear()
    assert store.read(gid) == after


def _consistent(store: EventStore, gid: str, before: dict[str, Any]) -> bool:
    """The game reads as before, and is either archived or not, never half."""
    k = store.keys(gid)
    archived = store.archived(gid)
    assert archived == bool(store.r.exists(k.archive)) == (not store.r.exists(k.events))
    store.archives._items.clear()
    assert record(store, gid) == before
    return archived


def test_kill_9_of_the_archiving_process_loses_nothing(played: tuple[EventStore, dict[str, str]],
                                                      server: EmbeddedRedis, tmp_path: Path) -> None:
    store = played[0]
    gid = play(store, CommandHandler(store), "race", {"target": 60}, 11)
    before = record(store, gid)
    env = child_env(server.url, "tarchive")
    outcomes = set()
    for delay in (0.3, 0.6, 0.9, 1.2, 1.6, 2.2):
        p = subprocess.Popen([sys.executable, "-m", "service.runtime.cli", "archive", gid], env=env, cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        archived = _consistent(store, gid, before)
        outcomes.add(archived)
        if outcomes == {True}:
            break
        if archived:  # this killed run got as far as the swap: start again from the stream
            assert store.archives.restore(gid)
    done = subprocess.run([sys.executable, "-m", "service.runtime.cli", "archive", gid], env=env, cwd=ROOT,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert _consistent(store, gid, before)


def test_kill_9_of_redis_while_archiving_loses_nothing(played: tuple[EventStore, dict[str, str]],
                                                      server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    """Redis killed after the record is made and checked but before the swap runs: nothing is
    archived; killed right after the swap answered: the game stays archived when Redis comes
    back from its AOF. Either way it reads as before, and archiving it again just works."""
    store = played[0]
    gids = [play(store, CommandHandler(store), "race", {"target": 40}, s) for s in (21, 22)]
    befores = {gid: record(store, gid) for gid in gids}
    swap = store.archives._archive

    def kill() -> None:
        assert server.proc is not None
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()

    def kill_before(keys: list[Any], args: list[Any]) -> Any:
        kill()
        return swap(keys=keys, args=args)

    def kill_after(keys: list[Any], args: list[Any]) -> Any:
        got = swap(keys=keys, args=args)
        kill()
        return got

    for gid, hook, archived in ((gids[0], kill_before, False), (gids[1], kill_after, True)):
        monkeypatch.setattr(store.archives, "_archive", hook)
        try:
            store.archives.archive(gid)
        except StoreUnavailable:
            assert not archived
        server.start()
        monkeypatch.setattr(store.archives, "_archive", swap)
        assert _consistent(store, gid, befores[gid]) is archived
        assert store.archives.archive(gid) == ("archived before" if archived else "archived")
        assert _consistent(store, gid, befores[gid])


def test_the_projector_archives_a_finished_game_and_http_reads_it_the_same(redis_url: str, namespace: str,
                                                                          tmp_path: Path) -> None:
    """The archiver that serve's projector runs: a game played to its end over HTTP is archived
    BOARDLOG_ARCHIVE_AFTER_SECONDS later, and its export, audit, views and log read the same."""
    env = child_env(redis_url, namespace, BOARDLOG_ARCHIVE_AFTER_SECONDS="0.5", BOARDLOG_ARCHIVE_EVERY_SECONDS="0.2")
    client = redis.Redis.from_url(redis_url)
    store = EventStore(client, namespace, partitions=8)
    with running_stack(env, tmp_path) as stack, stack.client() as c:
        gid, tokens, _ = new_race(c, target=8)
        for _ in range(200):
            answers = [command(c, gid, t) for t in tokens]  # the seat not to move is refused, nothing changes
            accepted = [r.json() for r in answers if r.status_code == 200]
            if not accepted:
                break
            summary = c.get(f"/v1/games/{gid}?min_seq={accepted[-1]['seq'][-1]}").json()
            if summary["status"] != "active":
                break
        assert summary["status"] == "over", summary
        paths = [f"/v1/games/{gid}/export", f"/v1/games/{gid}/audit", f"/v1/games/{gid}/events",
                 f"/v1/games/{gid}/view?at=3", f"/v1/games/{gid}/view"]
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] == summary["seq"])
        before = [c.get(p, headers=bearer(tokens[0])).content for p in paths]
        wait_for(lambda: store.archived(gid), timeout=30)
        assert not client.exists(store.keys(gid).events)
        assert [c.get(p, headers=bearer(tokens[0])).content for p in paths] == before
    client.close()


def test_archiving_on_a_redis_cluster(cluster_url: str) -> None:
    """Every key the swap and the restore touch shares the game's hash tag: both run on a Cluster."""
    client = redis_client(cluster_url)
    store = EventStore(client, f"t{uuid.uuid4().hex[:12]}", partitions=8)
    try:
        gid = play(store, CommandHandler(store), "race", {"target": 20}, 31)
        before = record(store, gid)
        assert store.archives.archive(gid) == "archived"
        assert archive_due(store, after_ms=0) == {}  # the swap took it off the archiver's list
        store.archives._items.clear()
        assert record(store, gid) == before
        assert store.archives.restore(gid) and not store.archived(gid)
        assert record(store, gid) == before
    finally:
        for key in client.scan_iter(match=f"{store.ns}:*"):
            client.delete(key)
        client.close()
