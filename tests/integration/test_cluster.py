"""The events on a real Redis Cluster, the dramatiq broker on a plain Redis: a whole match."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from events.domain.audit import audit
from events.records.export import read_record
from events.store.store import EventStore
from projections.projector import all_games, rebuild
from service.runtime.bootstrap import redis_client
from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import bearer, command

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster_stack(cluster_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One stack for the module (three processes: seconds of CPU); each test plays its own games."""
    env = child_env(cluster_url, f"t{uuid.uuid4().hex[:12]}", BROKER_URL=redis_url)
    with running_stack(env, tmp_path_factory.mktemp("cluster-stack"), threads=2) as s:
        yield s


def test_a_whole_match_with_events_on_a_cluster(cluster_stack: Stack, cluster_url: str) -> None:
    store = EventStore(redis_client(cluster_url), cluster_stack.env["BOARDLOG_NAMESPACE"], partitions=8)
    others = set(all_games(store))  # the module's other tests' games, made before this one
    with cluster_stack.client() as c:
        gids = []
        for _ in range(4):  # several games: several partitions, so several slots and nodes
            r = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"target": 12}})
            assert r.status_code == 201, r.text
            gids.append((r.json()["id"], [s["token"] for s in r.json()["seats"]]))
        for gid, tokens in gids:
            seat = 0
            for _ in range(100):
                r = command(c, gid, tokens[seat])
                if r.status_code == 409:
                    break
                assert r.status_code == 200, r.text
                seat = 1 - seat
            wait_for(lambda gid=gid: c.get(f"/v1/games/{gid}").json()["status"] == "over", timeout=15)
            assert "charm" in c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[0])).json()["board"]
            report = audit(read_record(c.get(f"/v1/games/{gid}/export").content.splitlines()))
            assert report.ok, report.line()
        assert len([g for g in c.get("/v1/games").json()["games"] if g["id"] not in others]) == 4
    assert sorted(set(all_games(store)) - others) == sorted(g for g, _ in gids)
    before = {g: dict(store.r.hgetall(store.keys(g).rm)) for g, _ in gids}
    assert rebuild(store) == 4 + len(others)
    assert {g: dict(store.r.hgetall(store.keys(g).rm)) for g, _ in gids} == before


def test_the_stream_works_on_a_cluster(cluster_stack: Stack) -> None:
    import threading

    import httpx

    with cluster_stack.client() as c:
        r = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"target": 500}})
        gid, tokens = r.json()["id"], [s["token"] for s in r.json()["seats"]]
        seen: list[str] = []
        ready = threading.Event()

        def listen() -> None:
            with httpx.stream("GET", f"{cluster_stack.url}/v1/games/{gid}/stream", timeout=20) as resp:
                for line in resp.iter_lines():
                    if line.startswith("data: "):
                        seen.append(line)
                        ready.set()
                        if '"seq":4' in line:
                            return

        threading.Thread(target=listen, daemon=True).start()
        assert ready.wait(10)
        moved = command(c, gid, tokens[0])
        assert moved.status_code == 200
        wait_for(lambda: any('"seq":4' in x for x in seen), timeout=15)
        # Read your own writes on a cluster: the wait's subscription is on one node, the notice
        # published on the game's shard reaches it.
        last = moved.json()["seq"][1]
        assert command(c, gid, tokens[1]).status_code == 200
        fresh = c.get(f"/v1/games/{gid}?min_seq={last + 1}")
        assert fresh.status_code == 200 and fresh.json()["seq"] >= last + 1, fresh.text
