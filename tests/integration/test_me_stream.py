"""A player's stream of the games waiting on them (`/v1/me/stream`), through real processes: the
count is pushed from the projector's notices of the player's games (no page polls), a game they
join later joins the stream, the stream is one watcher against the caps however many games, and
it ends when the player's session is revoked."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api.credentials import COOKIE
from tests.conftest import Stack, child_env, running_stack, start_api
from tests.integration.helpers import Events, bearer, command, player, reopened, table

pytestmark = pytest.mark.integration

REFRESH = 0.5


@pytest.fixture(scope="module")
def me_stack(redis_url: str, module_namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = child_env(redis_url, module_namespace, BOARDLOG_ME_STREAM_REFRESH_SECONDS=str(REFRESH),
                    BOARDLOG_PLAYERS_PER_MINUTE="0", BOARDLOG_SIGNINS_PER_MINUTE="0")
    with running_stack(env, tmp_path_factory.mktemp("me"), threads=2) as s:
        yield s


def test_the_count_of_games_waiting_on_a_player_is_pushed_as_the_games_move(me_stack: Stack) -> None:
    with me_stack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        gid, tokens = table(c, [ann["key"], bob["key"]])
        a = Events(f"{me_stack.url}/v1/me/stream", bearer(ann["key"]))
        b = Events(f"{me_stack.url}/v1/me/stream", bearer(bob["key"]))
        try:
            assert a.status == 200 and b.status == 200
            first = a.next()
            assert first["waiting"] == 1 and [g["id"] for g in first["games"]] == [gid]  # seat 0 moves first
            assert b.next()["waiting"] == 0
            took = []
            for turn in range(6):  # each move turns both counts over
                mover, waiter = (a, b) if turn % 2 == 0 else (b, a)
                assert command(c, gid, tokens[turn % 2]).status_code == 200
                _, t = mover.until(lambda d: d["waiting"] == 0)
                body, t2 = waiter.until(lambda d: d["waiting"] == 1)
                assert body["games"][0]["id"] == gid and body["games"][0]["your_turn"]
                took += [t, t2]
            assert max(took) < 2.0, took  # the page's old poll answered within 1 s plus a request
            # A game ann joins after her stream opened joins it at the next refresh.
            gid2, _ = table(c, [ann["key"], bob["key"]])
            body, _ = a.until(lambda d: gid2 in [g["id"] for g in d["games"]], timeout=REFRESH * 10)
            assert body["waiting"] == 2
        finally:
            a.close()
            b.close()


def test_without_a_player_the_stream_is_refused(me_stack: Stack) -> None:
    with me_stack.client() as c:
        r = c.get("/v1/me/stream")
        assert r.status_code == 401 and r.json()["error"]["code"] == "sign_in_required"
        r = c.get("/v1/me/stream", headers=bearer("not-a-key"))
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad_token"


def test_the_stream_ends_when_its_session_is_revoked(me_stack: Stack) -> None:
    with me_stack.client() as c:
        ann = player(c, "ann")
        signed = c.post("/v1/sessions", json={"key": ann["key"]})
        assert signed.status_code == 201
        s = Events(f"{me_stack.url}/v1/me/stream", {"Cookie": f"{COOKIE}={signed.cookies[COOKIE]}"})
        try:
            assert s.status == 200 and s.next()["waiting"] == 0
            assert not s.ended.is_set()
            r = c.delete(f"/v1/me/sessions/{signed.json()['session']}", headers=bearer(ann["key"]))
            assert r.status_code == 204
            assert s.ended.wait(REFRESH * 10), "the stream outlived its session"
        finally:
            s.close()


def test_a_stream_is_one_watcher_however_many_games(me_stack: Stack, tmp_path: Path) -> None:
    capped = Stack("", {**me_stack.env, "BOARDLOG_WATCHERS_PER_CLIENT": "2"}, logdir=tmp_path)
    start_api(capped, capped.env["BOARDLOG_NAMESPACE"])
    held: list[Events] = []
    try:
        with me_stack.client() as c:
            ann, bob = player(c, "ann"), player(c, "bob")
            for _ in range(3):
                table(c, [ann["key"], bob["key"]])
        url = f"{capped.url}/v1/me/stream"
        held = [Events(url, bearer(ann["key"])) for _ in range(2)]
        assert [h.status for h in held] == [200, 200]
        assert [h.next()["waiting"] for h in held] == [3, 3]
        third = httpx.get(url, headers=bearer(ann["key"]), timeout=10)
        assert third.status_code == 429 and third.json()["error"]["code"] == "too_many_streams"
        held.pop().close()
        deadline = time.monotonic() + 10  # the closed stream gives its place back
        while (again := httpx.get(f"{capped.url}/v1/me", headers=bearer(ann["key"]), timeout=10)).status_code != 200:
            assert time.monotonic() < deadline, again.text
        held.append(reopened(url, bearer(ann["key"])))
    finally:
        for h in held:
            h.close()
        capped.stop("api")
