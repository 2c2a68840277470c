"""Players, keys and sessions through the whole API stack (real Redis, real HTTP, real processes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.credentials import COOKIE
from tests.conftest import Stack, child_env, running_stack
from tests.integration.helpers import bearer, command, new_race

# One stack for the module (each test makes its own players and games); its rate limits are off,
# as the tests share one client address: the limits have their own stack below.
pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]
SHARED_STACK_ENV = {"BOARDLOG_PLAYERS_PER_MINUTE": "0", "BOARDLOG_SIGNINS_PER_MINUTE": "0"}


def new_player(c: httpx.Client, name: str = "ann", **extra: object) -> dict[str, str]:
    r = c.post("/v1/players", json={"name": name, **extra})
    assert r.status_code == 201, r.text
    out: dict[str, str] = r.json()
    return out


def sign_in(c: httpx.Client, key: str, agent: str = "test-agent") -> httpx.Response:
    r = c.post("/v1/sessions", json={"key": key}, headers={"User-Agent": agent})
    assert r.status_code == 201, r.text
    return r


def same_site(stack: Stack) -> dict[str, str]:
    return {"Origin": stack.url}


def session_ids(c: httpx.Client, key: str) -> list[str]:
    r = c.get("/v1/me/sessions", headers=bearer(key))
    assert r.status_code == 200, r.text
    return [s["id"] for s in r.json()["sessions"]]


def test_a_player_signs_in_lists_and_revokes_sessions(stack: Stack) -> None:
    with stack.client() as anon, stack.client() as laptop, stack.client() as phone:
        made = new_player(anon, "ann", email="ann@example.org")
        key = made["key"]
        assert len(key) >= 32 and made["signin_url"] == f"/signin#key={key}"
        assert anon.get("/v1/me").status_code == 401
        assert anon.get("/v1/me").json()["error"]["code"] == "sign_in_required"

        r = sign_in(laptop, key, "laptop")
        cookie = r.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
        assert "Path=/" in cookie and "Max-Age=" in cookie and "Secure" not in cookie  # plain http here
        laptop_sid = r.json()["session"]
        assert r.json()["player"]["name"] == "ann"
        phone_sid = sign_in(phone, key, "phone").json()["session"]

        assert laptop.get("/v1/me").json() == {**anon.get("/v1/me", headers=bearer(key)).json(), "session": laptop_sid}
        assert laptop.get("/v1/me").json()["email"] == "ann@example.org"
        listed = laptop.get("/v1/me/sessions").json()["sessions"]
        assert {s["id"]: (s["user_agent"], s["current"]) for s in listed} == {
            laptop_sid: ("laptop", True), phone_sid: ("phone", False)}
        assert all(set(s) == {"id", "created", "last_seen", "user_agent", "current"} for s in listed)

        assert laptop.delete(f"/v1/me/sessions/{phone_sid}", headers=same_site(stack)).status_code == 204
        gone = phone.get("/v1/me")
        assert gone.status_code == 401 and gone.json()["error"]["code"] == "bad_session"
        assert laptop.get("/v1/me").status_code == 200
        assert session_ids(anon, key) == [laptop_sid]
        assert laptop.delete("/v1/me/sessions/nope", headers=same_site(stack)).status_code == 404

        sign_in(phone, key, "phone")
        everywhere = anon.delete("/v1/me/sessions", headers=bearer(key))
        assert everywhere.status_code == 200
        assert laptop.get("/v1/me").status_code == 401 and phone.get("/v1/me").status_code == 401
        # The key is retired with the sessions (issue #42): the answer's new one works, once shown.
        assert anon.get("/v1/me", headers=bearer(key)).status_code == 401
        key = everywhere.json()["key"]
        assert session_ids(anon, key) == []
        assert anon.get("/v1/me", headers=bearer(key)).status_code == 200
        wrong = anon.get("/v1/me", headers=bearer(key[:-2] + "xx"))
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "bad_token"
        assert anon.post("/v1/sessions", json={"key": "nope"}).json()["error"]["code"] == "bad_key"


def test_a_cross_origin_request_with_the_cookie_is_refused_and_changes_nothing(stack: Stack) -> None:
    with stack.client() as anon, stack.client() as browser:
        key = new_player(anon)["key"]
        sid = sign_in(browser, key).json()["session"]
        for headers in ({"Origin": "https://evil.example"}, {"Origin": "null"}, {},
                        {"Referer": "https://evil.example/page"}, {"Origin": stack.url.replace("http:", "https:")}):
            for r in (browser.delete(f"/v1/me/sessions/{sid}", headers=headers),
                      browser.delete("/v1/me/sessions", headers=headers)):
                assert r.status_code == 403, (headers, r.text)
                assert r.json()["error"]["code"] == "cross_origin"
        assert session_ids(anon, key) == [sid]
        # A page of another site cannot sign this browser in either (login CSRF).
        other = new_player(anon, "eve")["key"]
        r = browser.post("/v1/sessions", json={"key": other}, headers={"Origin": "https://evil.example"})
        assert r.status_code == 403 and session_ids(anon, other) == []
        # The same site's page (Origin, or lacking it a Referer), and Bearer, are let through.
        assert browser.get("/v1/me").status_code == 200  # a read needs no Origin
        r = browser.delete(f"/v1/me/sessions/{sid}", headers={"Referer": stack.url + "/me"})
        assert r.status_code == 204 and session_ids(anon, key) == []


def test_a_proxy_s_https_makes_the_cookie_secure(stack: Stack) -> None:
    with stack.client() as c:
        key = new_player(c)["key"]
        r = c.post("/v1/sessions", json={"key": key}, headers={"X-Forwarded-Proto": "https"})
        assert r.status_code == 201 and "Secure" in r.headers["set-cookie"]


def test_seat_tokens_and_player_keys_are_apart(stack: Stack) -> None:
    with stack.client() as c:
        key = new_player(c)["key"]
        gid, tokens, _ = new_race(c)
        assert command(c, gid, tokens[0]).status_code == 200
        refused = command(c, gid, key)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "bad_token"
        assert c.get("/v1/me", headers=bearer(tokens[0])).status_code == 401


def test_bad_names_and_fields_are_refused(stack: Stack) -> None:
    with stack.client() as c:
        for body, code in (({"name": " "}, "name_empty"), ({"name": "x" * 41}, "name_too_long"), ({}, "name_not_text"),
                           ({"name": "a\u0000b"}, "name_bad_character"), ({"name": "ann\u202e"}, "name_bad_character"),
                           ({"name": "a\u200bnn"}, "name_bad_character"), ({"name": "ann", "email": "nope"}, "bad_email"),
                           ({"name": "ann", "admin": True}, "bad_request")):
            r = c.post("/v1/players", json=body)
            assert (r.status_code, r.json()["error"]["code"]) == (422, code), body
        # The name is stored as the names' rules make it: stripped and NFC.
        made = new_player(c, " Zoe\u0301 ")
        assert made["name"] == "Zo\u00e9"


@pytest.fixture
def limited_stack(redis_url: str, own_namespace: str, tmp_path: Path) -> Iterator[Stack]:
    """A stack of its own: the module's counts no tries."""
    env = child_env(redis_url, own_namespace, BOARDLOG_PLAYERS_PER_MINUTE="3", BOARDLOG_SIGNINS_PER_MINUTE="2")
    with running_stack(env, tmp_path, threads=1) as s:
        yield s


def test_creating_players_and_signing_in_are_rate_limited(limited_stack: Stack) -> None:
    with limited_stack.client() as c:
        # Seven tries span at most two minute windows of three: one of them must be refused.
        answers = [c.post("/v1/players", json={"name": f"p{i}"}) for i in range(7)]
        assert [r.status_code for r in answers[:3]] == [201, 201, 201]
        refused = [r for r in answers if r.status_code == 429]
        assert refused and all(r.json()["error"]["code"] == "rate_limited" for r in refused)
        assert all(1 <= int(r.headers["retry-after"]) <= 60 for r in refused)
        key = answers[0].json()["key"]
        signins = [c.post("/v1/sessions", json={"key": key}).status_code for _ in range(5)]
        assert signins[:2] == [201, 201] and 429 in signins


def secrets_in(r: httpx.Response) -> set[str]:
    """The secrets an answer created: a player key, a session cookie."""
    found = set()
    if r.request.url.path == "/v1/players" and r.status_code == 201:
        found.add(r.json()["key"])
    if r.request.url.path == "/v1/sessions" and r.status_code == 201:
        found.add(r.cookies[COOKIE])
    if r.request.url.path == "/v1/me/sessions" and r.request.method == "DELETE" and r.status_code == 200:
        found.add(r.json()["key"])  # signing out everywhere retires the key for this new one
    if r.request.url.path == "/v1/games" and r.status_code == 201:
        found |= {s["token"] for s in r.json()["seats"]} | {r.json()["admin_token"]}
    return found


OPS = st.lists(st.sampled_from(["player", "signin", "me", "me_bearer", "sessions", "revoke", "revoke_all",
                                "bad_signin", "cross_origin", "claim", "claim_bearer", "seat", "my_games"]),
                    min_size=3, max_size=12)


# The module's stack (rate limits off) for every example (hypothesis runs them all inside one test
# call); its logs hold the other tests' lines too, and none may hold a secret this test made.
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_no_answer_or_log_line_holds_a_secret_but_its_creator(stack: Stack, ops: list[str]) -> None:
    made: set[str] = set()
    seen: list[tuple[httpx.Response, set[str]]] = []
    keys: list[str] = []
    game: dict[str, Any] = {}
    with stack.client() as c:
        for op in ops:
            if op in ("claim", "claim_bearer", "seat") and not game:
                r = c.post("/v1/games", json={"game": "race", "seats": ["p0", "p1"], "options": {"target": 1000}})
                game = r.json()
            elif op == "player" or not keys:
                r = c.post("/v1/players", json={"name": "ann"})
                keys.append(r.json()["key"])
            elif op == "signin":
                r = c.post("/v1/sessions", json={"key": keys[-1]})
            elif op == "me":
                r = c.get("/v1/me")
            elif op == "me_bearer":
                r = c.get("/v1/me", headers=bearer(keys[-1]))
            elif op == "sessions":
                r = c.get("/v1/me/sessions", headers=bearer(keys[0]))
            elif op == "revoke":
                sids = session_ids(c, keys[-1])
                r = c.delete(f"/v1/me/sessions/{sids[0] if sids else 'x'}", headers=same_site(stack))
            elif op == "revoke_all":
                r = c.delete("/v1/me/sessions", headers=bearer(keys[-1]))
                keys[-1] = r.json()["key"]
            elif op in ("claim", "claim_bearer"):
                token = {"token": game["seats"][len(seen) % 2]["token"]}
                by = same_site(stack) if op == "claim" else bearer(keys[-1])
                r = c.post(f"/v1/games/{game['id']}/claim", json=token, headers=by)
            elif op == "seat":
                r = c.get(f"/v1/games/{game['id']}/seat")
            elif op == "my_games":
                r = c.get("/v1/me/games", headers=bearer(keys[-1]))
            elif op == "bad_signin":
                r = c.post("/v1/sessions", json={"key": keys[-1] + "x"})
            else:
                r = c.delete("/v1/me/sessions", headers={"Origin": "https://evil.example"})
            own = secrets_in(r)
            made |= own
            seen.append((r, own))
    for r, own in seen:
        text = r.text + "".join(f"{k}: {v}\n" for k, v in r.headers.multi_items())
        for secret in made - own:
            assert secret not in text, (r.request.method, r.request.url.path)
    assert stack.logdir is not None
    logs = "".join(p.read_text() for p in stack.logdir.glob("*.log"))
    assert "player.created" in logs
    for secret in made:
        assert secret not in logs
