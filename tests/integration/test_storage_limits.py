"""Issue #42 items 6 and 8, through the stack: storage that only players can grow, and costly
work only for those who need it. One stack with short settings: 20 anonymous games an hour per
address, 3 per player, refused answers kept 2 s, untouched games removed after 4 s, a sweep
every 0.3 s, vacation toggles 1 s apart and 4 a day."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
import redis

from events.domain.platform.clock import VACATION_ENDED, VACATION_STARTED
from events.store.layout import refused_key, untouched_key
from events.store.store import EventStore
from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import bearer, command, new_race, player

pytestmark = pytest.mark.integration

LIMITS = dict(
    BOARDLOG_ANON_GAMES_PER_HOUR="20", BOARDLOG_PLAYER_GAMES_PER_HOUR="3",
    BOARDLOG_REFUSED_RESULT_SECONDS="2", BOARDLOG_UNTOUCHED_GAME_SECONDS="4", BOARDLOG_SWEEP_EVERY_SECONDS="0.3",
    BOARDLOG_VACATION_TOGGLE_SECONDS="1", BOARDLOG_VACATION_TOGGLES_PER_DAY="4",
    BOARDLOG_CLOCK_MIN_SECONDS="1", BOARDLOG_PLAYERS_PER_MINUTE="0",
    BOARDLOG_TRUSTED_PROXIES="",  # the forged X-Forwarded-For of an untrusted peer is not believed
)


@pytest.fixture(scope="module")
def module_lstack(redis_url: str, module_namespace: str,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, EventStore]]:
    with running_stack(child_env(redis_url, module_namespace, **LIMITS), tmp_path_factory.mktemp("limits")) as s:
        client = redis.Redis.from_url(redis_url)
        yield s, EventStore(client, module_namespace, partitions=8)
        client.close()


@pytest.fixture
def lstack(module_lstack: tuple[Stack, EventStore]) -> tuple[Stack, EventStore]:
    """The module's stack with every share and pause counted from zero (one stack: each costs
    seconds of CPU to start)."""
    store = module_lstack[1]
    stale = list(store.r.scan_iter(match=f"{store.ns}:rate:*"))
    if stale:
        store.r.delete(*stale)
    return module_lstack


def _race(c: httpx.Client, headers: dict[str, str] | None = None, **extra: str) -> httpx.Response:
    return c.post("/v1/games", headers={**(headers or {}), **extra},
                  json={"game": "race", "seats": ["ann", "bob"], "options": {"target": 1000}})


def test_a_hundred_anonymous_game_creations_from_one_client_make_twenty(lstack: tuple[Stack, EventStore]) -> None:
    s, store = lstack
    with s.client() as c:
        answers = [_race(c) for _ in range(100)]
        made = [r.json()["id"] for r in answers if r.status_code == 201]
        refused = [r for r in answers if r.status_code != 201]
        assert len(made) == 20 and len(refused) == 80
        assert all(r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
                   and int(r.headers["Retry-After"]) > 0 for r in refused)
        # Answered before the body is read: a body that is not even JSON gets the same 429.
        junk = c.post("/v1/games", content=b"{not json", headers={"Content-Type": "application/json"})
        assert junk.status_code == 429, junk.text
        assert sum(1 for _ in store.r.scan_iter(match=f"{store.ns}:{{p*}}:g:*:meta")) == 20
        # A signed-in player has a share of their own (3 here), whatever the address did.
        key = player(c, "gina")["key"]
        mine = [_race(c, bearer(key)).status_code for _ in range(5)]
        assert mine == [201, 201, 201, 429, 429]


def test_a_forged_x_forwarded_for_counts_as_the_peer_address(lstack: tuple[Stack, EventStore]) -> None:
    s, _ = lstack
    with s.client() as c:
        # Each request names another client; none is believed (no proxy is trusted by default).
        codes = [_race(c, **{"X-Forwarded-For": f"198.51.100.{i}"}).status_code for i in range(30)]
        assert codes.count(201) == 20 and codes.count(429) == 10
        audits = [c.get("/v1/games/p00-000000000000/audit", headers={"X-Forwarded-For": f"203.0.113.{i}"})
                  for i in range(25)]
        # The anonymous share of record reads (20 a minute) is taken before the game is looked up.
        assert [r.status_code for r in audits].count(429) == 5


def test_refused_answers_expire_and_accepted_ones_stay(lstack: tuple[Stack, EventStore]) -> None:
    s, store = lstack
    with s.client() as c:
        gid, tokens, _ = new_race(c)
        wrong, right = f"no-{uuid.uuid4()}", f"yes-{uuid.uuid4()}"
        r = command(c, gid, tokens[1], cid=wrong)  # not seat 1's turn
        assert r.status_code == 422, r.text
        assert command(c, gid, tokens[0], cid=right).status_code == 200
        # Read back as the refusal it was (422), while it is kept.
        assert c.get(f"/v1/games/{gid}/commands/{wrong}", headers=bearer(tokens[1])).status_code == 422
        assert store.r.zcard(refused_key(int(gid[1:3]), store.ns)) == 1
        # Dropped after 2 s by the sweeper; the accepted answer is kept with the log.
        wait_for(lambda: c.get(f"/v1/games/{gid}/commands/{wrong}", headers=bearer(tokens[1])).status_code == 404,
                 timeout=15)
        assert store.r.hlen(store.keys(gid).results) == 1
        kept = c.get(f"/v1/games/{gid}/commands/{right}", headers=bearer(tokens[0]))
        assert kept.status_code == 200 and kept.json()["status"] == "accepted", kept.text
        # The accepted id stays idempotent: sent again, it answers its first result.
        again = command(c, gid, tokens[0], cid=right)
        assert again.status_code == 200 and again.json()["seq"] == kept.json()["seq"]
        # The refused id may be sent again, and is decided afresh (seat 1's turn now: accepted).
        assert command(c, gid, tokens[1], cid=wrong).status_code == 200


def test_a_game_nobody_moved_in_is_removed_and_a_moved_one_stays(lstack: tuple[Stack, EventStore]) -> None:
    s, store = lstack
    with s.client() as c:
        idle, _, _ = new_race(c)
        moved, tokens, _ = new_race(c)
        assert command(c, moved, tokens[0]).status_code == 200
        assert c.get(f"/v1/games/{idle}").status_code == 200
        wait_for(lambda: c.get(f"/v1/games/{idle}").status_code == 404, timeout=20)
        assert not list(store.r.scan_iter(match=f"{store.keys(idle).base}*"))
        assert idle not in [g["id"] for g in c.get("/v1/games").json()["games"]]
        # The sweep that finds it moved takes it off the watch for good.
        watch = untouched_key(int(moved[1:3]), store.ns)
        wait_for(lambda: not [m for m in store.r.zrange(watch, 0, -1) if m.decode().startswith(moved)], timeout=20)
        assert c.get(f"/v1/games/{moved}").status_code == 200 and store.head(moved) is not None


def test_twenty_vacation_toggles_make_four(lstack: tuple[Stack, EventStore]) -> None:
    s, store = lstack
    with s.client() as c:
        me = bearer(player(c, "vic")["key"])
        r = c.post("/v1/games", headers=me, json={"game": "race", "seats": [{"player": "vic"}, "bob"],
                                                  "options": {"target": 1000}})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["status"] == "active", timeout=20)
        codes: list[str] = []
        for i in range(20):
            r = c.post("/v1/me/vacation", json={"days": 1}, headers=me) if i % 2 == 0 \
                else c.delete("/v1/me/vacation", headers=me)
            codes.append(str(r.status_code) if r.status_code == 200 else r.json()["error"]["code"])
            if r.status_code == 429 and r.json()["error"]["code"] == "vacation_too_soon":
                time.sleep(float(r.headers["Retry-After"]))  # the pause is 1 s here
        # Toggles alternate start/end; each inside the pause is refused and the next one waits
        # it out, so four go through and then the day's share is spent.
        assert codes.count("200") == 4, codes
        assert codes[-1] == "rate_limited" and "vacation_too_soon" in codes, codes
        # A refused toggle changes nothing: the four that went through reached the game.
        def toggles() -> list[str]:
            return [e.type for e in store.read(gid, 1) if e.type in (VACATION_STARTED, VACATION_ENDED)]

        wait_for(lambda: len(toggles()) == 4, timeout=20)
        assert toggles() == [VACATION_STARTED, VACATION_ENDED] * 2


def test_an_anonymous_audit_of_an_active_game_is_computed_once_per_head(lstack: tuple[Stack, EventStore]) -> None:
    s, store = lstack
    with s.client() as c:
        gid, tokens, _ = new_race(c)
        for i in range(4):
            assert command(c, gid, tokens[i % 2]).status_code == 200
        head = store.head(gid)
        assert head is not None and head.status == "active"
        first = c.get(f"/v1/games/{gid}/audit")
        assert first.status_code == 200, first.text
        kept = store.r.hgetall(store.keys(gid).base + ":audit")
        assert [f.decode().split(":")[:2] for f in kept] == [[str(head.seq), "active"]]
        # The next caller, a seat included, is answered the kept report byte for byte.
        assert c.get(f"/v1/games/{gid}/audit").content == first.content == next(iter(kept.values()))
        assert c.get(f"/v1/games/{gid}/audit", headers=bearer(tokens[0])).content == first.content
        # A move makes a new head: the next audit is of it, and replaces the kept one.
        assert command(c, gid, tokens[0]).status_code == 200
        newer = store.head(gid)
        assert newer is not None
        assert c.get(f"/v1/games/{gid}/audit").json() != first.json()
        assert [f.decode().split(":")[0] for f in store.r.hkeys(store.keys(gid).base + ":audit")] == [str(newer.seq)]
