"""One stream of several games' summaries (`/v1/streams/games`), the one a browser's board and
replay tabs share, through real processes: every game's summary when it opens, each move's after,
one watcher against the caps however many games, and clear refusals that open nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, child_env, running_stack, start_api
from tests.integration.helpers import Events, command, new_race, reopened

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def gstack(redis_url: str, module_namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(child_env(redis_url, module_namespace), tmp_path_factory.mktemp("gs"), threads=2) as s:
        yield s


def test_the_stream_sends_each_games_summary_then_each_move(gstack: Stack) -> None:
    with gstack.client() as c:
        games = [new_race(c) for _ in range(3)]
        ids = ",".join(g for g, _, _ in games)
        s = Events(f"{gstack.url}/v1/streams/games?ids={ids},{games[0][0]}", {}, event="summary")  # once each
        try:
            assert s.status == 200
            first = [s.next() for _ in games]
            assert sorted(f["id"] for f in first) == sorted(g for g, _, _ in games)
            assert all(f["seq"] == 2 for f in first)
            for gid, tokens, _ in reversed(games):
                moved = command(c, gid, tokens[0])
                assert moved.status_code == 200
                got, _ = s.until(lambda b, gid=gid: b["id"] == gid and b["seq"] == 4)
                assert got == c.get(f"/v1/games/{gid}").json()  # the public summary, as its own stream sends
            assert s.got.empty()  # nothing of a game not asked for, nothing twice
        finally:
            s.close()


def test_bad_ids_are_refused_saying_why_and_open_nothing(gstack: Stack) -> None:
    with gstack.client() as c:
        gid, _, _ = new_race(c)
        for query, status, code in [
            ("", 422, "bad_games"), ("ids=", 422, "bad_games"), ("ids=,,", 422, "bad_games"),
            ("ids=" + ",".join(f"p01-{i:012x}" for i in range(33)), 422, "bad_games"),
            (f"ids={gid},not-a-game", 404, "unknown_game"), (f"ids={gid},p01-000000000000", 404, "unknown_game"),
        ]:
            r = c.get(f"/v1/streams/games?{query}")
            assert r.status_code == status and r.json()["error"]["code"] == code, (query, r.text)
            assert "ids" in r.json()["error"]["message"] or code == "unknown_game"


def test_a_stream_of_many_games_is_one_watcher(gstack: Stack, tmp_path: Path) -> None:
    capped = Stack("", {**gstack.env, "BOARDLOG_WATCHERS_PER_CLIENT": "2"}, logdir=tmp_path)
    start_api(capped, capped.env["BOARDLOG_NAMESPACE"])
    held: list[Events] = []
    try:
        with gstack.client() as c:
            ids = ",".join(new_race(c)[0] for _ in range(5))
        url = f"{capped.url}/v1/streams/games?ids={ids}"
        held = [Events(url, {}, event="summary") for _ in range(2)]
        assert [h.status for h in held] == [200, 200]
        assert [len([h.next() for _ in range(5)]) for h in held] == [5, 5]
        third = httpx.get(url, timeout=10)
        assert third.status_code == 429 and third.json()["error"]["code"] == "too_many_streams"
        held.pop().close()
        held.append(reopened(url, {}, event="summary"))
    finally:
        for h in held:
            h.close()
        capped.stop("api")
