"""Read your own writes (`?min_seq=N`) and shared watchers (one subscription per API process)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import redis

from events.store.feed import URGENT
from events.store.store import EventStore
from projections.projector import Projector
from service.usecases.matches import create_match
from tests.conftest import Stack, child_env, running_stack, start_api
from tests.integration.helpers import bearer, command, new_race
from workers.commands import CommandHandler

pytestmark = pytest.mark.integration

WATCHERS = 300


@pytest.fixture(scope="module")
def rw_stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_WATCHERS_PER_CLIENT=str(WATCHERS + 20),
                    BOARDLOG_WATCHERS_TOTAL=str(WATCHERS + 50))
    with running_stack(env, tmp_path_factory.mktemp("rw"), threads=2) as s:
        yield s
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


def _play(stack: Stack, gid: str, tokens: list[str], n: int) -> list[str]:
    """n commands ?wait=1, each followed at once by reads with min_seq = its last seq: what went wrong."""
    wrong = []
    with stack.client() as c:
        seat = 0
        for i in range(n):
            r = command(c, gid, tokens[seat])
            assert r.status_code == 200, r.text
            first, last = r.json()["seq"]
            assert first <= last
            s = c.get(f"/v1/games/{gid}?min_seq={last}")
            if s.status_code != 200 or s.json()["seq"] < last:
                wrong.append(f"summary #{i}: {s.status_code} {s.text[:200]} (wanted seq {last})")
            if i % 4 == 0:  # the seat's view too, a quarter of the time
                v = c.get(f"/v1/games/{gid}/view?min_seq={last}", headers=bearer(tokens[seat]))
                if v.status_code != 200 or v.json()["seq"] < last:
                    wrong.append(f"view #{i}: {v.status_code} {v.text[:200]} (wanted seq {last})")
            seat = 1 - seat
    return wrong


def test_min_seq_reads_the_new_state_right_after_each_accepted_command(rw_stack: Stack) -> None:
    with rw_stack.client() as c:
        games = [new_race(c, target=100_000) for _ in range(2)]
    with ThreadPoolExecutor(2) as pool:
        wrong = [w for ws in pool.map(lambda g: _play(rw_stack, g[0], g[1], 200), games) for w in ws]
    assert wrong == []


def test_min_seq_beyond_the_head_answers_seq_not_reached_after_its_wait(rw_stack: Stack) -> None:
    with rw_stack.client() as c:
        gid, tokens, _ = new_race(c)
        head = c.get(f"/v1/games/{gid}").json()["seq"]
        assert c.get(f"/v1/games/{gid}?min_seq={head}").status_code == 200
        t0 = time.monotonic()
        r = c.get(f"/v1/games/{gid}?min_seq={head + 1}")
        waited = time.monotonic() - t0
        assert r.status_code == 422 and r.json()["error"]["code"] == "seq_not_reached", r.text
        assert f"at seq {head}, not yet {head + 1}" in r.json()["error"]["message"]
        assert 1.9 <= waited < 5, waited
        v = c.get(f"/v1/games/{gid}/view?min_seq={head + 5}", headers=bearer(tokens[0]))
        assert v.status_code == 422 and v.json()["error"]["code"] == "seq_not_reached"
        for bad in ("0", "-3"):
            b = c.get(f"/v1/games/{gid}?min_seq={bad}")
            assert b.status_code == 422 and b.json()["error"]["code"] == "bad_seq", b.text
        assert c.get(f"/v1/games/{gid}?min_seq=x").status_code == 422
        assert c.get("/v1/games/p01-000000000000?min_seq=1").status_code == 404


def test_a_wait_ends_when_another_seat_moves_the_game_there(rw_stack: Stack) -> None:
    """A wait is woken by the projector's notice: a read for the next seq, asked before the
    move that makes it, answers 200 as soon as the move is projected."""
    with rw_stack.client() as c:
        gid, tokens, _ = new_race(c)
        head = c.get(f"/v1/games/{gid}").json()["seq"]
        with ThreadPoolExecutor(1) as pool:
            later = pool.submit(lambda: httpx.get(f"{rw_stack.url}/v1/games/{gid}?min_seq={head + 1}", timeout=10))
            time.sleep(0.3)  # the read is waiting (it waits 2 s at most)
            t0 = time.monotonic()
            assert command(c, gid, tokens[0]).status_code == 200
            r = later.result()
            assert r.status_code == 200 and r.json()["seq"] >= head + 1, r.text
            assert time.monotonic() - t0 < 1.5


async def _watch(port: int, gid: str, ready: asyncio.Event, seen: dict[int, int], i: int, want: list[int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /v1/games/{gid}/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        buf = b""
        while True:
            got = await reader.read(65536)
            if not got:
                raise AssertionError(f"watcher {i}: the stream ended")
            buf += got
            for line in buf.split(b"\n"):
                if line.startswith(b"data: {"):
                    seq = int(line.split(b'"seq":', 1)[1].split(b",", 1)[0].split(b"}", 1)[0])
                    seen[i] = max(seen.get(i, 0), seq)
            ready.set()
            if want and seen.get(i, 0) >= want[0]:
                return
            buf = buf[buf.rfind(b"\n") + 1:]
    finally:
        writer.close()


def test_300_watchers_share_one_subscription_and_summaries_still_answer(rw_stack: Stack, redis_url: str) -> None:
    port = int(rw_stack.url.rsplit(":", 1)[1])
    with rw_stack.client() as c:
        gid, tokens, _ = new_race(c)
        head = c.get(f"/v1/games/{gid}").json()["seq"]
    channel = f"{rw_stack.env['BOARDLOG_NAMESPACE']}:{{p{int(gid[1:3]):02d}}}:g:{gid}:notify"
    r = redis.Redis.from_url(redis_url)

    async def main() -> tuple[dict[int, int], list[int], int]:
        seen: dict[int, int] = {}
        readies = [asyncio.Event() for _ in range(WATCHERS)]
        want: list[int] = []
        tasks = [asyncio.create_task(_watch(port, gid, readies[i], seen, i, want)) for i in range(WATCHERS)]
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in readies)), 60)
        assert len(seen) == WATCHERS and min(seen.values()) == head
        subscribers = int(dict(r.pubsub_numsub(channel))[channel.encode()])
        async with httpx.AsyncClient(base_url=rw_stack.url, timeout=10) as ac:
            statuses = [(await ac.get(f"/v1/games/{gid}")).status_code for _ in range(20)]
            got = await ac.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[0]),
                                json={"id": str(uuid.uuid4()), "type": "race.roll", "args": {}})
            assert got.status_code == 200, got.text
            want.append(got.json()["seq"][1])
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        return seen, statuses, subscribers

    seen, statuses, subscribers = asyncio.run(main())
    assert statuses == [200] * 20
    assert subscribers == 1  # every watcher of this API process on one subscription
    assert min(seen.values()) > head  # each watcher heard the new seq
    deadline = time.monotonic() + 10
    while int(dict(r.pubsub_numsub(channel))[channel.encode()]) != 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert int(dict(r.pubsub_numsub(channel))[channel.encode()]) == 0  # the last one gone: unsubscribed
    r.close()


def test_watchers_past_the_caps_are_refused_with_retry_after(rw_stack: Stack, tmp_path: Path) -> None:
    capped = Stack("", {**rw_stack.env, "BOARDLOG_WATCHERS_PER_CLIENT": "2", "BOARDLOG_WATCHERS_TOTAL": "3"},
                   logdir=tmp_path)
    start_api(capped, capped.env["BOARDLOG_NAMESPACE"])
    try:
        with rw_stack.client() as c:
            gid, _, _ = new_race(c)
        url = f"{capped.url}/v1/games/{gid}/stream"
        local = httpx.Client(timeout=10)
        other = httpx.Client(timeout=10, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        held = [local.stream("GET", url) for _ in range(2)]
        opened = [h.__enter__() for h in held]
        assert [o.status_code for o in opened] == [200, 200]
        third = local.get(url)
        assert third.status_code == 429 and third.json()["error"]["code"] == "too_many_streams"
        assert third.headers["Retry-After"] == "5"
        with other.stream("GET", url) as fine:
            assert fine.status_code == 200  # another address has its own share
            full = local.get(url.replace("127.0.0.1", "127.0.0.1"))
            assert full.status_code == 503 and full.json()["error"]["code"] == "streams_full", full.text
            assert full.headers["Retry-After"] == "5"
        for h in held:
            h.__exit__(None, None, None)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the closed streams give their places back
            with local.stream("GET", url) as again:
                if again.status_code == 200:
                    break
            time.sleep(0.1)
        else:
            raise AssertionError("closed streams were not given back")
        local.close()
        other.close()
    finally:
        capped.stop("api")


def test_an_urgent_feed_entry_skips_the_projectors_burst_merge(store: EventStore) -> None:
    """The entry `?min_seq` adds when the projection is behind: the projector projects that game
    at its next read, where its burst merge (here 60 s) would hold it."""
    gid = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1000}})["id"]
    projector = Projector(store, consumer="urgent-test", min_gap_ms=60_000, block_ms=50)
    projector.ensure_groups()
    projector.step()  # the game's creation: projected at once (the first of a burst)
    assert store.stored_summary(gid)[0] == store.head(gid).seq  # type: ignore[union-attr]
    handler = CommandHandler(store)
    cid = str(uuid.uuid4())
    store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": 0, "expect": None})
    handler.handle(gid, cid)
    head = store.head(gid).seq  # type: ignore[union-attr]
    projector.step()
    assert store.stored_summary(gid)[0] < head  # merged: held for the rest of its 60 s
    store.r.xadd(store.keys(gid).feed, {"g": gid, URGENT.decode(): "1"})
    projector.step()
    assert store.stored_summary(gid)[0] == head
    assert projector.feed.urgent == set()


def test_a_late_projection_answers_projection_behind_and_then_the_board(rw_stack: Stack) -> None:
    """The events are there, the projector is not (stopped): 504 after the wait; back, 200."""
    with rw_stack.client() as c:
        gid, tokens, _ = new_race(c)
        rw_stack.stop("projector")
        try:
            r = command(c, gid, tokens[0])
            assert r.status_code == 200, r.text
            last = r.json()["seq"][1]
            late = c.get(f"/v1/games/{gid}?min_seq={last}")
            assert late.status_code == 504 and late.json()["error"]["code"] == "projection_behind", late.text
            assert late.headers["Retry-After"] == "1"
        finally:
            rw_stack.start("projector", "projector")
        back = c.get(f"/v1/games/{gid}?min_seq={last}", timeout=60)
        for _ in range(20):  # a projector just started may take longer than one wait on a loaded machine
            if back.status_code == 200:
                break
            back = c.get(f"/v1/games/{gid}?min_seq={last}")
        assert back.status_code == 200 and back.json()["seq"] >= last, back.text


def test_a_malformed_notice_is_skipped_and_the_stream_goes_on(rw_stack: Stack, redis_url: str) -> None:
    with rw_stack.client() as c:
        gid, tokens, _ = new_race(c)
        head = c.get(f"/v1/games/{gid}").json()["seq"]
    channel = f"{rw_stack.env['BOARDLOG_NAMESPACE']}:{{p{int(gid[1:3]):02d}}}:g:{gid}:notify"
    r = redis.Redis.from_url(redis_url)
    seqs: list[int] = []
    api_log = rw_stack.logdir / "api.log"  # type: ignore[operator]
    logged = len(api_log.read_text())
    with httpx.Client(base_url=rw_stack.url, timeout=20) as c, c.stream("GET", f"/v1/games/{gid}/stream") as s:
        lines = s.iter_lines()
        for line in lines:
            if line.startswith("data: "):
                seqs.append(httpx.Response(200, content=line[6:]).json()["seq"])
                break
        assert r.publish(channel, b"not json") == 1 and r.publish(channel, b'{"seq": 1}') == 1
        with rw_stack.client() as other:
            assert command(other, gid, tokens[0]).status_code == 200
        for line in lines:
            if line.startswith("data: "):
                seqs.append(httpx.Response(200, content=line[6:]).json()["seq"])
                break
    r.close()
    assert seqs[0] == head and seqs[1] > head
    log = api_log.read_text()[logged:]
    assert "watchers.bad_notice" in log and "watchers.listen_failed" not in log  # skipped, not reconnected


def test_the_shared_subscription_is_made_again_when_its_connection_drops(rw_stack: Stack, redis_url: str) -> None:
    """Its connection killed (a Redis restart, a network cut): the notices meanwhile are lost, so
    every stream of the process ends and its client reconnects (the board page then says
    'reconnecting…' and reads the summary afresh, not 'live' and stale); a stream opened after
    the drop is subscribed on a new connection and hears the next move; a min_seq read after it
    still answers."""
    r = redis.Redis.from_url(redis_url)
    with rw_stack.client() as c:
        gid, tokens, _ = new_race(c)
        # projected to its head first: a late projection of the opening would notify the stream
        # below after its first line, and read as a stream the drop did not end
        head = EventStore(r, rw_stack.env["BOARDLOG_NAMESPACE"]).head(gid)
        assert head is not None and c.get(f"/v1/games/{gid}?min_seq={head.seq}").status_code == 200
    name = f"{rw_stack.env['BOARDLOG_NAMESPACE']}-watchers"

    def first_seq(lines: Iterator[str]) -> int | None:
        for line in lines:
            if line.startswith("data: "):
                seq: int = httpx.Response(200, content=line[6:]).json()["seq"]
                return seq
        return None  # the stream ended

    with httpx.Client(base_url=rw_stack.url, timeout=20) as c:
        with c.stream("GET", f"/v1/games/{gid}/stream") as s:
            lines = s.iter_lines()
            before = first_seq(lines)
            assert before is not None
            ours = [cl for cl in r.client_list() if cl.get("name") == name]
            assert len(ours) == 1, ours  # one subscription connection for the API process
            r.client_kill_filter(_id=ours[0]["id"])
            assert first_seq(lines) is None  # ended by the drop, within the client's timeout
        with c.stream("GET", f"/v1/games/{gid}/stream") as s:
            lines = s.iter_lines()
            assert first_seq(lines) == before
            # the hub subscribes again beside the stream's first line, not before it: a loaded
            # machine shows the stream's line first
            deadline = time.monotonic() + 10
            while True:
                again = [cl for cl in r.client_list() if cl.get("name") == name and cl["sub"] != "0"]
                if again or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert again and again[0]["id"] != ours[0]["id"], again
            with rw_stack.client() as other:
                moved = command(other, gid, tokens[0])
                assert moved.status_code == 200
                assert other.get(f"/v1/games/{gid}?min_seq={moved.json()['seq'][1]}").status_code == 200
            after = first_seq(lines)
    r.close()
    assert after is not None and after > before


def test_a_game_not_projected_yet_reads_as_its_opening_so_its_summary_never_steps_back(store: EventStore) -> None:
    """Before the projector's first summary of a game, a read folds the game's opening, not its
    head: that first summary may be of a seq before a head read at the same moment (it was
    projected from an earlier read of the log)."""
    from service.api.games import current_summary

    gid = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1000}})["id"]
    opening = store.head(gid).seq  # type: ignore[union-attr]
    handler = CommandHandler(store)
    for seat in (0, 1):
        cid = str(uuid.uuid4())
        store.put_pending(gid, cid, {"type": "race.roll", "args": {}, "seat": seat, "expect": None})
        handler.handle(gid, cid)
    head = store.head(gid).seq  # type: ignore[union-attr]
    assert head > opening
    early = current_summary(store, gid)
    assert early["seq"] == opening and early["status"] == "active"
    projector = Projector(store, consumer="opening-test", block_ms=50)
    projector.ensure_groups()
    projector.step()
    late = current_summary(store, gid)
    assert late["seq"] == head >= early["seq"]  # projected: the head, never behind what was read
