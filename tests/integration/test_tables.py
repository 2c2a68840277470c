"""Games whose seats name players: invites by name and open tables (real Redis, real HTTP, real
processes): a table forms in the lobby, players join it, and only the last join sets it up, with
every seat's entropy; the creator cancels one; one nobody fills expires."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.credentials import COOKIE
from service.runtime.bootstrap import async_redis_client
from service.stores.tables import TableSeat, TableStore
from tests.conftest import Stack, child_env, running_stack, wait_for
from tests.integration.helpers import bearer
from tests.integration.test_players import new_player, same_site, sign_in

pytestmark = pytest.mark.integration


def open_table(c: httpx.Client, stack: Stack, seats: list[Any], game: str = "race",
               options: dict[str, Any] | None = None, **extra: Any) -> httpx.Response:
    return c.post("/v1/games", json={"game": game, "seats": seats, "options": options or {"target": 1000}, **extra},
                  headers=same_site(stack))


def join(c: httpx.Client, stack: Stack, gid: str, **body: Any) -> httpx.Response:
    return c.post(f"/v1/tables/{gid}/join", json=body, headers=same_site(stack))


def signed_in(stack: Stack, anon: httpx.Client, name: str) -> tuple[httpx.Client, dict[str, str]]:
    made = new_player(anon, name)
    c = stack.client()
    sign_in(c, made["key"])
    return c, made


def uniq(name: str) -> str:
    """A player name no other test of the module uses (they share one stack)."""
    return f"{name}-{uuid.uuid4().hex[:6]}"


def table_ids(c: httpx.Client) -> list[str]:
    return [t["id"] for t in c.get("/v1/tables").json()["tables"]]


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One stack for the module (starting one costs seconds on a busy machine); every test
    makes its own players and tables."""
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_PLAYERS_PER_MINUTE="0", BOARDLOG_SIGNINS_PER_MINUTE="0",
                    BOARDLOG_TABLES_PER_MINUTE="0")
    with running_stack(env, tmp_path_factory.mktemp("tables")) as s:
        yield s
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


def test_an_open_table_sets_up_once_after_the_last_join_with_every_seat_s_entropy(stack: Stack) -> None:
    with stack.client() as anon:
        ann_name, bob_name = uniq("ann"), uniq("bob")
        ann, ann_made = signed_in(stack, anon, ann_name)
        bob, _ = signed_in(stack, anon, bob_name)
        with closing(ann), closing(bob):
            r = open_table(ann, stack, [{"player": ann_made["id"], "entropy": "ann's dice"}, {"open": True}],
                           options={"target": 1})
            assert r.status_code == 201, r.text
            made = r.json()
            gid = made["id"]
            assert made["status"] == "forming" and r.headers["location"] == f"/v1/tables/{gid}"
            assert [s.get("token") for s in made["seats"]] == [None, None]  # ann plays by her session
            # Forming: listed with its type, options and free seats; no game exists yet.
            listed = [t for t in anon.get("/v1/tables").json()["tables"] if t["id"] == gid]
            assert [(t["game"], t["options"], t["free"], t["creator"]) for t in listed] == [
                ("race", {"target": 1}, [1], ann_name)]
            assert anon.get(f"/v1/games/{gid}").status_code == 404
            assert [(t["id"], t["you"], t["yours"]) for t in ann.get("/v1/tables?mine=1").json()["tables"]] == [
                (gid, 0, True)]
            assert bob.get("/v1/tables?mine=1").json()["tables"] == []

            joined = join(bob, stack, gid, entropy="bob's dice")
            assert joined.status_code == 200, joined.text
            out = joined.json()
            assert (out["seat"], out["name"], out["status"], out["free"]) == (1, bob_name, "started", 0)
            assert len(out["token"]) >= 32
            assert gid not in table_ids(anon)
            assert anon.get(f"/v1/tables/{gid}").json()["status"] == "started"

            events = anon.get(f"/v1/games/{gid}/events").json()["events"]
            created = [e for e in events if e["type"] == "boardlog.GameCreated"]
            assert len(created) == 1 and events[0] == created[0]
            assert created[0]["data"]["entropy"] == ["ann's dice", "bob's dice"]
            assert [s["name"] for s in created[0]["data"]["seats"]] == [ann_name, bob_name]
            # Both seats are their players': each plays by the session, and the joiner's token works too.
            assert ann.get(f"/v1/games/{gid}/seat").json()["seat"] == 0
            assert bob.get(f"/v1/games/{gid}/seat").json()["seat"] == 1
            assert anon.get(f"/v1/games/{gid}/legal", headers=bearer(out["token"])).json()["commands"] == []
            roll = ann.post(f"/v1/games/{gid}/commands?wait=1", headers=same_site(stack),
                            json={"id": str(uuid.uuid4()), "type": "race.roll", "args": {}})
            assert roll.status_code in (200, 202), roll.text  # 202: a busy worker, answered later
            wait_for(lambda: anon.get(f"/v1/games/{gid}").json()["status"] == "over", timeout=60)
            report = anon.get(f"/v1/games/{gid}/audit").json()
            assert report["ok"] is True and "seed commitment" in report["checked"], report
            # Joining a started game: its players are told their seat, anyone else that it is closed.
            assert join(bob, stack, gid).json()["status"] == "started"
            carl, _ = signed_in(stack, anon, uniq("carl"))
            with closing(carl):
                late = join(carl, stack, gid)
                assert late.status_code == 409 and late.json()["error"]["code"] == "table_closed"


def test_two_players_racing_for_the_last_seat_one_gets_it(stack: Stack) -> None:
    with stack.client() as anon:
        ann, _ = signed_in(stack, anon, uniq("ann"))
        racers = [signed_in(stack, anon, uniq(f"racer{i}"))[0] for i in range(4)]
        gid = open_table(ann, stack, ["ann", {"open": True}]).json()["id"]
        answers: list[httpx.Response] = []
        go = threading.Barrier(len(racers))

        def run(c: httpx.Client) -> None:
            go.wait()
            answers.append(join(c, stack, gid, entropy=str(uuid.uuid4())))

        threads = [threading.Thread(target=run, args=(c,)) for c in racers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = sorted(a.status_code for a in answers)
        assert codes == [200, 409, 409, 409], [a.text for a in answers]
        assert {a.json()["error"]["code"] for a in answers if a.status_code == 409} <= {"table_closed", "table_full"}
        events = anon.get(f"/v1/games/{gid}/events").json()["events"]
        assert sum(1 for e in events if e["type"] == "boardlog.GameCreated") == 1
        winner = next(a.json() for a in answers if a.status_code == 200)
        assert events[0]["data"]["seats"][1]["name"] == winner["name"]
        for c in (ann, *racers):
            c.close()


def test_a_bad_name_to_join_with_is_refused_and_changes_nothing(stack: Stack) -> None:
    with stack.client() as anon:
        ann, _ = signed_in(stack, anon, uniq("ann"))
        bob, _ = signed_in(stack, anon, uniq("bob"))
        with closing(ann), closing(bob):
            gid = open_table(ann, stack, ["ann", {"open": True}, {"open": True}]).json()["id"]
            before = anon.get(f"/v1/tables/{gid}").json()
            for name, code in [("\u202eevil", "name_bad_character"), ("a\u0000b", "name_bad_character"),
                               ("zero\u200bwidth", "name_bad_character"), ("x" * 41, "name_too_long"),
                               ("ANN", "name_taken"), ("", "name_empty")]:
                r = join(bob, stack, gid, name=name)
                assert r.status_code == 422 and r.json()["error"]["code"] == code, (name, r.text)
                assert anon.get(f"/v1/tables/{gid}").json() == before
            for body in ({"entropy": "e" * 257}, {"seat": 9}, {"seat": 0}, {"colour": "red"}):
                r = join(bob, stack, gid, **body)
                assert r.status_code in (409, 422), (body, r.text)
                assert anon.get(f"/v1/tables/{gid}").json() == before
            ok = join(bob, stack, gid)
            assert ok.status_code == 200 and ok.json()["status"] == "forming" and ok.json()["free"] == 1
            again = join(bob, stack, gid)
            assert again.status_code == 409 and again.json()["error"]["code"] == "already_seated"


def test_the_creator_cancels_a_forming_table_and_nobody_else_may(stack: Stack) -> None:
    with stack.client() as anon:
        ann, _ = signed_in(stack, anon, uniq("ann"))
        bob, _ = signed_in(stack, anon, uniq("bob"))
        with closing(ann), closing(bob):
            gid = open_table(ann, stack, ["ann", {"open": True}]).json()["id"]
            theirs = bob.post(f"/v1/tables/{gid}/cancel", headers=same_site(stack))
            assert theirs.status_code == 403 and theirs.json()["error"]["code"] == "not_creator"
            other_site = ann.post(f"/v1/tables/{gid}/cancel", headers={"Origin": "https://evil.example"})
            assert other_site.status_code == 403 and other_site.json()["error"]["code"] == "cross_origin"
            assert anon.get(f"/v1/tables/{gid}").json()["status"] == "forming"
            done = ann.post(f"/v1/tables/{gid}/cancel", headers=same_site(stack))
            assert done.status_code == 200 and done.json() == {"game": gid, "status": "cancelled"}
            assert gid not in table_ids(anon)
            late = join(bob, stack, gid)
            assert late.status_code == 409 and late.json()["error"]["code"] == "table_closed"
            assert "cancelled" in late.json()["error"]["message"]
            assert anon.get(f"/v1/games/{gid}").status_code == 404


def test_a_table_nobody_fills_expires(stack: Stack) -> None:
    with stack.client() as anon:
        ann, _ = signed_in(stack, anon, "ann")
        bob, _ = signed_in(stack, anon, "bob")
        with closing(ann), closing(bob):
            made = ann.post("/v1/games", json={"game": "race", "seats": ["ann", {"open": True}], "expires_in": 1},
                            headers=same_site(stack)).json()
            gid = made["id"]
            assert gid in table_ids(anon)
            time.sleep(max(0.0, made["expires"] - time.time()) + 0.1)
            assert gid not in table_ids(anon)
            assert anon.get(f"/v1/tables/{gid}").json()["status"] == "expired"
            late = join(bob, stack, gid)
            assert late.status_code == 409 and late.json()["error"]["code"] == "table_closed"


def test_invited_players_hold_their_seats_without_a_link(stack: Stack) -> None:
    with stack.client() as anon:
        ann_name, bob_name = uniq("ann"), uniq("Bob")
        ann, ann_made = signed_in(stack, anon, ann_name)
        bob, bob_made = signed_in(stack, anon, bob_name)
        with closing(ann), closing(bob):
            # Bob by his name as typed in another case; ann (the creator) by her id.
            r = open_table(ann, stack, [{"player": ann_made["id"]}, {"player": bob_name.lower()}, "cat"])
            assert r.status_code == 201, r.text
            made = r.json()
            gid = made["id"]
            assert made["status"] == "active" and r.headers["location"] == f"/v1/games/{gid}"
            assert [(s["name"], s.get("player"), "token" in s) for s in made["seats"]] == [
                (ann_name, ann_name, False), (bob_name, bob_name, False), ("cat", None, True)]
            assert bob.get(f"/v1/games/{gid}/seat").json() == {"game": gid, "role": "seat", "seat": 1}
            wait_for(lambda: [g["id"] for g in bob.get("/v1/me/games").json()["games"]] == [gid])
            assert ann.get("/v1/me/games").json()["games"][0]["your_turn"] is True
            assert anon.get(f"/v1/games/{gid}/legal", headers=bearer(bob_made["key"])).status_code == 200


@pytest.mark.parametrize("seats, code", [
    ([{"player": "nobody{x}"}, {"open": True}], "unknown_player"),
    ([{"player": "twin{x}"}, {"open": True}], "ambiguous_player"),
    ([{"player": "ann{x}"}, {"player": "ANN{x}"}], "player_twice"),
    ([{"player": "bob{x}", "entropy": "not mine to give"}, {"open": True}], "bad_seats"),
    ([{"open": True, "name": "x"}, "ann"], "bad_seats"),
    (["ann", {"name": "Ann"}, {"open": True}], "name_taken"),
    ([{"player": "ann{x}", "name": "\u202eevil"}, {"open": True}], "name_bad_character"),
    ([{"open": "yes"}, "ann"], "bad_seats"),
    ([{"open": True}, {"open": False}], "bad_seats"),
    ([{"open": True}] * 7, "bad_seats"),
])
def test_a_bad_table_is_refused_and_writes_nothing(stack: Stack, seats: list[Any], code: str) -> None:
    x = uuid.uuid4().hex[:6]
    seats = [s.replace("{x}", x) if isinstance(s, str) else
             {k: v.replace("{x}", x) if isinstance(v, str) else v for k, v in s.items()} for s in seats]
    with stack.client() as anon:
        ann, _ = signed_in(stack, anon, f"ann{x}")
        for name in ("bob", "twin", "twin"):
            new_player(anon, f"{name}{x}")
        with closing(ann):
            tables, games = table_ids(anon), anon.get("/v1/games").json()["games"]
            r = open_table(ann, stack, seats)
            assert r.status_code == 422 and r.json()["error"]["code"] == code, r.text
            assert table_ids(anon) == tables and anon.get("/v1/games").json()["games"] == games


def test_an_open_table_needs_a_signed_in_creator_and_options_its_game_takes(stack: Stack) -> None:
    with stack.client() as anon:
        ann, _ = signed_in(stack, anon, uniq("ann"))
        with closing(ann):
            tables = table_ids(anon)
            r = anon.post("/v1/games", json={"game": "race", "seats": ["ann", {"open": True}]})
            assert r.status_code == 401 and r.json()["error"]["code"] == "sign_in_required"
            r = ann.post("/v1/games", json={"game": "race", "seats": ["ann", {"open": True}]},
                         headers={"Origin": "https://evil.example"})
            assert r.status_code == 403 and r.json()["error"]["code"] == "cross_origin"
            r = open_table(ann, stack, ["ann", {"open": True}], game="dragondale", options={"tribes": ["elves", "celts"]})
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_options", r.text
            assert table_ids(anon) == tables


def created_secrets(r: httpx.Response) -> set[str]:
    """The secrets an answer hands its caller: a key, a session, seat and admin tokens."""
    path, out = r.request.url.path, set()
    if r.status_code in (200, 201):
        body = r.json()
        if path == "/v1/players":
            out.add(body["key"])
        elif path == "/v1/sessions":
            out.add(r.cookies[COOKIE])
        elif path == "/v1/games":
            out |= {s["token"] for s in body["seats"] if "token" in s} | {body["admin_token"]}
        elif path.endswith("/join") and body.get("token"):
            out.add(body["token"])
    return out


TABLE_OPS = st.lists(st.sampled_from(["player", "signin", "open", "invite", "join", "join_cookie", "tables", "mine",
                                      "table", "cancel", "types", "my_games", "seat"]), min_size=4, max_size=14)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=TABLE_OPS)
def test_no_answer_log_line_or_event_holds_a_secret_but_its_caller_s(stack: Stack, redis_url: str,
                                                                      ops: list[str]) -> None:
    made: set[str] = set()
    seen: list[tuple[httpx.Response, set[str]]] = []
    players: list[dict[str, str]] = []
    tables: list[str] = []
    with stack.client() as c:
        def key(i: int) -> dict[str, str]:
            return bearer(players[i % len(players)]["key"])

        for i, op in enumerate(ops):
            if op == "player" or len(players) < 2:
                r = c.post("/v1/players", json={"name": uniq("p")})
                assert r.status_code == 201, r.text
                players.append(r.json())
            elif op == "signin":
                r = c.post("/v1/sessions", json={"key": players[-1]["key"]})
            elif op in ("open", "invite") or not tables:
                seats = [{"player": players[i % len(players)]["id"], "entropy": "mine"},
                         {"open": True} if op != "invite" else {"player": players[(i + 1) % len(players)]["name"]}, "cy"]
                r = c.post("/v1/games", json={"game": "race", "seats": seats}, headers=key(i))
                tables.append(r.json()["id"])
            elif op == "join":
                r = c.post(f"/v1/tables/{tables[-1]}/join", json={"entropy": str(i)}, headers=key(i))
            elif op == "join_cookie":
                r = c.post(f"/v1/tables/{tables[-1]}/join", json={}, headers=same_site(stack))
            elif op == "tables":
                r = c.get("/v1/tables")
            elif op == "mine":
                r = c.get("/v1/tables?mine=1", headers=key(i))
            elif op == "table":
                r = c.get(f"/v1/tables/{tables[i % len(tables)]}")
            elif op == "cancel":
                r = c.post(f"/v1/tables/{tables[-1]}/cancel", headers=key(i))
            elif op == "types":
                r = c.get("/v1/game-types")
            elif op == "my_games":
                r = c.get("/v1/me/games", headers=key(i))
            else:
                r = c.get(f"/v1/games/{tables[-1]}/seat", headers=key(i))
            assert r.status_code < 500, (op, r.text)
            own = created_secrets(r)
            made |= own
            seen.append((r, own))
        events = "".join(c.get(f"/v1/games/{gid}/events").text for gid in tables)
    for r, own in seen:
        text = r.text + "".join(f"{k}: {v}\n" for k, v in r.headers.multi_items())
        for secret in made - own:
            assert secret not in text, (r.request.method, r.request.url.path)
    # Nor in any game's stored record, read straight from Redis, nor in any part's log.
    ns = stack.env["BOARDLOG_NAMESPACE"]
    raw = redis.Redis.from_url(redis_url)
    # repr keeps a url-safe token whole.
    stored = "".join(repr(raw.xrange(k)) for k in raw.scan_iter(match=f"{ns}:*:events"))
    raw.close()
    assert stack.logdir is not None
    logs = "".join(p.read_text() for p in stack.logdir.glob("*.log"))
    for secret in made:
        assert secret not in events and secret not in stored and secret not in logs


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2, 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=50),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=6)
SEAT = st.one_of(st.text(max_size=45), JSON,
                 st.fixed_dictionaries({}, optional={"open": JSON, "player": JSON, "name": JSON, "entropy": JSON}))
CREATE = st.fixed_dictionaries({"game": st.sampled_from(["race", "dragondale", "factions", "nope"]),
                                "seats": st.lists(SEAT, max_size=7) | JSON},
                               optional={"options": JSON, "expires_in": JSON, "extra": JSON})
JOIN = st.fixed_dictionaries({}, optional={"entropy": JSON, "seat": JSON, "name": JSON, "colour": JSON})


@pytest.fixture(scope="module")
def fuzz(stack: Stack) -> dict[str, Any]:
    """Two players for the fuzz test, made once (hypothesis runs every example in one call)."""
    with stack.client() as c:
        return {"creator": new_player(c, uniq("fuzz")), "joiner": new_player(c, uniq("fuzz")), "table": None}


def four_seats(c: httpx.Client, creator: dict[str, str]) -> str:
    seats = [{"player": creator["id"]}, {"open": True}, {"open": True}, {"open": True}]
    r = c.post("/v1/games", json={"game": "race", "seats": seats}, headers=bearer(creator["key"]))
    gid: str = r.json()["id"]
    return gid


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(create=CREATE, body=JOIN)
def test_any_create_or_join_is_answered_2xx_or_4xx_and_a_refusal_writes_nothing(
        stack: Stack, fuzz: dict[str, Any], create: dict[str, Any], body: dict[str, Any]) -> None:
    creator, joiner = fuzz["creator"], fuzz["joiner"]
    with stack.client() as c:
        if fuzz["table"] is None:
            fuzz["table"] = four_seats(c, creator)
        gid = fuzz["table"]
        tables = table_ids(c)
        r = c.post("/v1/games", json=create, headers=bearer(creator["key"]))
        assert r.status_code in (201, 401, 404, 409, 422), r.text
        if r.status_code != 201:
            assert table_ids(c) == tables
        before = c.get(f"/v1/tables/{gid}").json()
        j = c.post(f"/v1/tables/{gid}/join", json=body, headers=bearer(joiner["key"]))
        assert j.status_code in (200, 409, 422), j.text
        if j.status_code == 200:
            fuzz["table"] = None  # the joiner sits here now: the next example needs a new table
        else:
            assert c.get(f"/v1/tables/{gid}").json() == before


def test_a_start_cut_short_by_a_crash_is_finished_by_the_next_listing(stack: Stack, redis_url: str) -> None:
    """The join script took the last seat and the claims were written, then the API process
    died before the game was stored: the player's games skip it, and the next listing of the
    tables stores it (with both seats' entropy) and marks the table started."""
    with stack.client() as anon:
        ann, ann_made = signed_in(stack, anon, uniq("ann"))
        bob, bob_made = signed_in(stack, anon, uniq("bob"))
        with closing(ann), closing(bob):
            gid = open_table(ann, stack, [{"player": ann_made["id"], "entropy": "a"}, {"open": True}]).json()["id"]

            async def crash_after_the_claims() -> None:
                aio = async_redis_client(redis_url)
                try:
                    tables = TableStore(aio, stack.env["BOARDLOG_NAMESPACE"])
                    table = await tables.get(gid)
                    assert table is not None
                    seat = TableSeat(1, "bob", bob_made["id"], "b", "not-a-token-digest", True)
                    assert await tables.join(table, seat, "2026-12-01T00:00:00.000Z") == "full"
                    full = await tables.get(gid)
                    assert full is not None
                    assert await tables.started(full, final=False) == "ok"
                finally:
                    await aio.aclose()

            asyncio.run(crash_after_the_claims())
            assert anon.get(f"/v1/games/{gid}").status_code == 404
            mine = bob.get("/v1/me/games")
            assert mine.status_code == 200 and mine.json()["games"] == []
            assert gid not in table_ids(anon)  # the listing started it
            assert anon.get(f"/v1/tables/{gid}").json()["status"] == "started"
            created = anon.get(f"/v1/games/{gid}/events").json()["events"][0]
            assert created["data"]["entropy"] == ["a", "b"] and created["at"] == "2026-12-01T00:00:00.000Z"
            wait_for(lambda: [g["id"] for g in bob.get("/v1/me/games").json()["games"]] == [gid])


@pytest.fixture
def limited_stack(redis_url: str, namespace: str, tmp_path: Path) -> Iterator[Stack]:
    env = child_env(redis_url, namespace, BOARDLOG_TABLES_PER_MINUTE="2")
    with running_stack(env, tmp_path, threads=1) as s:
        yield s


def test_opening_tables_is_rate_limited_per_client(limited_stack: Stack) -> None:
    stack = limited_stack
    with stack.client() as anon:
        ann = new_player(anon, "ann")
        # Five tries span at most two minute windows of two: one of them must be refused.
        answers = [anon.post("/v1/games", json={"game": "race", "seats": ["ann", {"open": True}]},
                             headers=bearer(ann["key"])) for _ in range(5)]
        assert [r.status_code for r in answers[:2]] == [201, 201]
        refused = [r for r in answers if r.status_code == 429]
        assert refused and all(r.json()["error"]["code"] == "rate_limited" for r in refused)
        assert len(table_ids(anon)) == 5 - len(refused)
        # A refused request is refused for what it is first: a bad one is a 422, not a 429.
        bad = anon.post("/v1/games", json={"game": "race", "seats": [{"open": True}] * 7}, headers=bearer(ann["key"]))
        assert bad.status_code == 422
