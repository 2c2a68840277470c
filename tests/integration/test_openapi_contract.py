"""The OpenAPI document is the contract (#17 items 1-3), tried against a live stack.

- schemathesis, a bounded run: fixed seed, every check (the response's schema, its status and
  content type, negative data refused...), over one live game whose seat token, admin token,
  player key and session cookie it holds, so well-formed requests reach the game too.
- hypothesis over every endpoint's parameters and bodies: the answer is 2xx or 4xx, never
  5xx, and a refused request moved no game's seq.

The longer run is docs/testing.md's (The API contract): the same `st run` with more examples.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.conftest import Stack, child_env, running_stack

pytestmark = pytest.mark.integration

ST = Path(sys.executable).parent / "st"
SEED = 1717
EXAMPLES = int(os.environ.get("BOARDLOG_SCHEMATHESIS_EXAMPLES", "8"))


@dataclass
class LiveGame:
    gid: str
    seat: str       # seat 0's token
    other: str      # seat 1's token
    admin: str
    player_key: str
    cookie: str


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One stack for the module, over a namespace of its own, deleted afterwards."""
    ns = f"t{uuid.uuid4().hex[:12]}"
    # The fuzzers create players and sign in far faster than a person: lift those limits.
    # ?min_seq beyond the head waits out its whole bound before 422: a shorter one keeps the run lean.
    env = child_env(redis_url, ns, BOARDLOG_PLAYERS_PER_MINUTE="100000", BOARDLOG_SIGNINS_PER_MINUTE="100000",
                    BOARDLOG_MIN_SEQ_WAIT_SECONDS="0.5")
    with running_stack(env, tmp_path_factory.mktemp("contract")) as s:
        yield s
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


@pytest.fixture(scope="module")
def live(stack: Stack) -> LiveGame:
    with stack.client() as c:
        made = c.post("/v1/games", json={"game": "rite", "seats": ["ann", "bob"]})
        assert made.status_code == 201, made.text
        game = made.json()
        player = c.post("/v1/players", json={"name": "contract"}).json()
        signed = c.post("/v1/sessions", json={"key": player["key"]})
        assert signed.status_code == 201, signed.text
        seat = game["seats"][0]["token"]
        claimed = c.post(f"/v1/games/{game['id']}/claim", json={"token": game["seats"][1]["token"]},
                         headers={"Authorization": f"Bearer {player['key']}"})
        assert claimed.status_code == 200, claimed.text
        return LiveGame(game["id"], seat, game["seats"][1]["token"], game["admin_token"], player["key"],
                        signed.cookies["boardlog_session"])


CONFIG = Path(__file__).with_name("schemathesis.toml")


def test_schemathesis_finds_no_failure(stack: Stack, live: LiveGame, tmp_path: Path) -> None:
    env = {**os.environ, "BOARDLOG_ST_GID": live.gid, "BOARDLOG_ST_SEAT": live.seat,
           "BOARDLOG_ST_KEY": live.player_key, "BOARDLOG_ST_COOKIE": live.cookie}
    started = time.monotonic()
    run = subprocess.run(
        [str(ST), "--config-file", str(CONFIG), "run", f"{stack.url}/openapi.json", "--seed", str(SEED),
         "--max-examples", str(EXAMPLES), "--checks", "all", "--mode", "all", "--workers", "1",
         "--no-color", "--request-timeout", "30", "--suppress-health-check", "all",
         # A stream never ends (its own tests read it).
         "--exclude-path", "/v1/games/{gid}/stream", "--exclude-path", "/v1/me/stream",
         "--exclude-path", "/v1/streams/games",
         # Signing out everywhere and a new key retire the key and the cookie the run holds: every
         # player operation after them would answer only 401 (their own tests cover them).
         "--exclude-name", "DELETE /v1/me/sessions", "--exclude-name", "POST /v1/me/key"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env,
    )
    took = time.monotonic() - started
    (tmp_path / "schemathesis.out").write_text(run.stdout + run.stderr)
    out = run.stdout[-30000:] + run.stderr[-3000:]
    print(out, f"\n{took:.0f} s")
    assert run.returncode == 0, out + stack.logs()[-4000:]


# --- hypothesis over every endpoint -------------------------------------------------------------

_TEXT = st.text(max_size=40)
_INT = st.one_of(st.integers(-2**70, 2**70), st.integers(-3, 3))
_SCALAR = st.one_of(st.none(), st.booleans(), _INT, _TEXT, st.floats(allow_nan=False))
_JSON = st.recursive(_SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(_TEXT, inner, max_size=3)), max_leaves=8)
_QUERY = st.dictionaries(st.sampled_from(["at", "from", "to", "limit", "before", "wait", "cursor", "status",
                                          "game", "mine", "waiting", "key", "x"]),
                         st.one_of(_INT.map(str), _TEXT), max_size=3)


@dataclass(frozen=True)
class Ask:
    method: str
    path: str
    query: dict[str, str]
    body: bytes | None
    auth: str


def _paths(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((m.upper(), p) for p, ops in doc["paths"].items() for m in ops
                  if not p.endswith("/stream") and not p.startswith("/v1/streams/"))


def _asks(ops: list[tuple[str, str]], gid: str, legal: list[dict[str, Any]]) -> st.SearchStrategy[Ask]:
    def fill(path: str) -> st.SearchStrategy[str]:
        parts = [st.just(s) if not s.startswith("{") else
                 st.one_of(st.just(gid), st.just(gid), st.text(st.characters(min_codepoint=33, max_codepoint=126,
                                                                              exclude_characters="/?#%"),
                                                               min_size=1, max_size=30))
                 for s in path.split("/")]
        return st.tuples(*parts).map("/".join)

    body = st.one_of(st.none(), _JSON.map(lambda v: json.dumps(v).encode()), st.binary(max_size=30),
                     st.builds(lambda cid, t, a, x: json.dumps({"id": cid, "type": t, "args": a, "expect": x}).encode(),
                               st.text(min_size=1, max_size=70), st.sampled_from(["rite.move", "rite.pass", "x"]),
                               _JSON, _INT),
                     # the live game's own legal commands, by type and args or as notation: some apply
                     *([st.builds(lambda m, cid, x, as_text: json.dumps(
                         {"id": cid, "text": m["text"]} if as_text else
                         {"id": cid, "type": m["type"], "args": m["args"], "expect": x}).encode(),
                         st.sampled_from(legal), st.from_regex(r"[a-z0-9]{1,12}", fullmatch=True),
                         st.one_of(st.none(), st.integers(0, 40)), st.booleans())] if legal else []))
    anything = st.sampled_from(ops).flatmap(lambda op: st.builds(
        Ask, st.just(op[0]), fill(op[1]), _QUERY, body,
        st.sampled_from(["none", "seat", "other", "admin", "player", "cookie", "junk"])))
    if not legal:
        return anything
    # A quarter are the live game's legal commands from one of its seats, so that some apply
    # (and each refusal after them is checked against a game that moves).
    played = st.builds(
        lambda m, cid, x, wait, as_text, auth: Ask(
            "POST", f"/v1/games/{gid}/commands", wait,
            json.dumps({"id": cid, "text": m["text"]} if as_text else
                       {"id": cid, "type": m["type"], "args": m["args"], "expect": x}).encode(), auth),
        st.sampled_from(legal), st.from_regex(r"[a-z0-9]{1,12}", fullmatch=True),
        st.one_of(st.none(), st.integers(0, 40)), st.sampled_from([{}, {"wait": "1"}, {"wait": "0"}]),
        st.booleans(), st.sampled_from(["seat", "other", "player", "cookie"]))
    return st.one_of(anything, anything, anything, played)


def _settle(c: httpx.Client, ask: Ask, headers: dict[str, str]) -> httpx.Response | None:
    """Wait for a queued command's answer, so that it cannot move a seq during a later ask."""
    try:
        cid = json.loads(ask.body or b"{}")["id"]
    except (ValueError, KeyError, TypeError):
        return None
    base = ask.path.rsplit("/", 1)[0]
    deadline = time.monotonic() + 20
    while True:
        got = c.get(f"{base}/commands/{cid}", headers=headers)
        if got.status_code != 202 or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def _projected(c: httpx.Client, gid: str, answer: httpx.Response | None) -> None:
    """Wait until the summary shows an accepted answer's last seq: `_heads` reads the projected
    summary, which would otherwise move during the next ask without anything being written then."""
    if answer is None or answer.status_code != 200 or not answer.headers.get("content-type", "").startswith(
            "application/json"):
        return
    seqs = answer.json().get("seq") if isinstance(answer.json(), dict) else None
    if isinstance(seqs, list) and seqs and isinstance(seqs[-1], int):
        c.get(f"/v1/games/{gid}", params={"min_seq": seqs[-1]})


def _heads(c: httpx.Client, gids: list[str]) -> dict[str, int]:
    return {g: c.get(f"/v1/games/{g}").json()["seq"] for g in gids}


@pytest.mark.timeout(600)
def test_any_input_answers_2xx_or_4xx_and_a_refusal_moves_no_seq(stack: Stack, live: LiveGame) -> None:
    with stack.client() as c:
        doc = c.get("/openapi.json").json()
        ops = _paths(doc)
        legal = [m for t in (live.seat, live.other)
                 for m in c.get(f"/v1/games/{live.gid}/legal", headers={"Authorization": f"Bearer {t}"})
                 .json()["commands"]]
        watched = [live.gid]
        headers = {"seat": {"Authorization": f"Bearer {live.seat}"},
                   "other": {"Authorization": f"Bearer {live.other}"},
                   "admin": {"Authorization": f"Bearer {live.admin}"},
                   "player": {"Authorization": f"Bearer {live.player_key}"},
                   "cookie": {"Cookie": f"boardlog_session={live.cookie}", "Origin": stack.url},
                   "junk": {"Authorization": "Bearer x"}, "none": {}}
        seen: dict[int, int] = {}
        start = _heads(c, watched)

        @seed(SEED)
        @settings(max_examples=int(os.environ.get("BOARDLOG_INPUT_EXAMPLES", "150")), deadline=None,
                  suppress_health_check=list(HealthCheck), database=None)
        @given(_asks(ops, live.gid, legal))
        def one(ask: Ask) -> None:
            if ask.method in ("DELETE", "POST") and ask.path.startswith(("/v1/me/sessions", "/v1/me/key")):
                return  # signing the fixture's player out everywhere (or retiring its key) would only make later asks 401
            before = _heads(c, watched)
            r = c.request(ask.method, ask.path, params=ask.query, content=ask.body,
                          headers={"Content-Type": "application/json", **headers[ask.auth]})
            seen[r.status_code] = seen.get(r.status_code, 0) + 1
            if ask.path == f"/v1/games/{live.gid}/commands":
                _projected(c, live.gid, _settle(c, ask, headers[ask.auth]) if r.status_code == 202 else r)
            assert r.status_code < 500, f"{ask} -> {r.status_code} {r.text[:500]}"
            if r.status_code >= 400 and not ask.path.startswith("/unsubscribe/"):  # a page for people
                assert r.headers["content-type"].startswith("application/json"), r.headers
                assert isinstance(r.json()["error"]["code"], str)
                if ask.path.endswith("/abort") and r.status_code == 409:
                    return  # a refusal of a game already over (aborted by an earlier ask)
                assert _heads(c, watched) == before, f"{ask} was refused ({r.status_code}) but moved a seq"

        one()
        print("statuses:", dict(sorted(seen.items())), "seq:", start, "->", _heads(c, watched))
        assert any(200 <= s < 300 for s in seen) and any(400 <= s < 500 for s in seen)


# --- the fast command path answers what the document says -------------------------------------

def _documented(doc: dict[str, Any], status: int, body: bytes) -> None:
    """`body` is what the command operation documents for `status` (its pydantic model, strictly)."""
    from service.api import schemas

    responses = doc["paths"]["/v1/games/{gid}/commands"]["post"]["responses"]
    assert str(status) in responses, f"{status} is not documented"
    ref = responses[str(status)]["content"]["application/json"]["schema"]["$ref"]
    getattr(schemas, ref.rsplit("/", 1)[1]).model_validate_json(body, strict=True)


@pytest.mark.parametrize("query", ["?wait=1", "?x=0&wait=1"], ids=["fast", "routed"])
def test_the_command_path_answers_what_the_document_says(stack: Stack, live: LiveGame, query: str) -> None:
    """`?wait=1` (and none, and wait=0) is answered before FastAPI's routing (app.py
    BoardlogApp); any other query string takes the route: both answer the documented bodies."""
    with stack.client() as c:
        doc = c.get("/openapi.json").json()
        gid = live.gid
        url = f"/v1/games/{gid}/commands{query}"
        queued_url = f"/v1/games/{gid}/commands" + ("" if query == "?wait=1" else "?x=0&wait=0")
        # The seat to move: its first legal command is well-formed (accepted once, stale after).
        seat, legal = next((h, got) for h in ({"Authorization": f"Bearer {t}"} for t in (live.seat, live.other))
                           if (got := c.get(f"/v1/games/{gid}/legal", headers=h).json())["commands"])
        move = legal["commands"][0]

        def command(expect: int | None) -> dict[str, Any]:
            return {"id": f"contract-{uuid.uuid4().hex[:8]}", "type": move["type"], "args": move["args"],
                    "expect": expect}

        first = command(legal["seq"])
        answers = [c.post(url, json=first, headers=seat)]                                   # accepted
        answers.append(c.post(url, json=first, headers=seat))                               # the same answer
        assert answers[1].json() == answers[0].json()
        answers += [
            c.post(url, json=command(0), headers=seat),                                     # seq_conflict
            c.post(url, json={"id": "x", "type": "no.such"}, headers=seat),                  # unknown_command
            c.post(url, json={"id": "x" * 65, "type": move["type"]}, headers=seat),          # bad_command_id
            c.post(url, json={"id": "x", "type": move["type"]}),                             # token_required
            c.post(url, json={"id": "x", "type": move["type"]}, headers={"Authorization": "Bearer nope"}),
            c.post(url, content=b"{", headers=seat),                                         # bad_json
            c.post(url, content=b"[" + b"1," * 40000 + b"1]", headers=seat),                 # body_too_large
            c.post(f"/v1/games/p00-000000000000/commands{query}", json={"id": "x"}, headers=seat),  # unknown_game
            c.post(queued_url, json=command(0), headers=seat),                               # 202 queued
        ]
        statuses = [a.status_code for a in answers]
        for a in answers:
            _documented(doc, a.status_code, a.content)
        assert {200, 202, 400, 401, 404, 409, 413, 422} <= set(statuses), statuses


# --- what no schema reaches: the server's own refusals, and bodies under an answered id --------

def _raw(url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes no HTTP client would, and read the whole answer (the server closes after it)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


@pytest.mark.parametrize("request_bytes, status, code", [
    (b"FOO /v1/health HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_http_request"),
    (b"GE(T /v1/health HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_http_request"),
    (b"GET /v1/me HTTP/1.1\r\nHost: x\r\nCookie: boardlog_session=\x7f\xff\r\n\r\n", 400, "bad_http_request"),
    (b"GET /v1/games?x=" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "query_too_long"),
], ids=["unknown-method", "malformed-method", "cookie-byte", "huge-query"])
def test_the_servers_own_refusals_are_json(stack: Stack, request_bytes: bytes, status: int, code: str) -> None:
    got, headers, body = _raw(stack.url, request_bytes)
    assert got == status and headers["content-type"] == "application/json", (got, headers, body)
    assert json.loads(body)["error"]["code"] == code


def test_a_malformed_body_under_an_answered_id_is_refused(stack: Stack, live: LiveGame) -> None:
    """The finding of #42 item 4: `"text": {}` under an id already answered got that answer."""
    seat = {"Authorization": f"Bearer {live.seat}"}
    with stack.client() as c:
        first = c.post(f"/v1/games/{live.gid}/commands?wait=1", json={"id": "shape-1", "type": "no.such"},
                       headers=seat)
        assert first.status_code == 422, first.text
        for bad, code in (({"text": {}}, "bad_request"), ({"type": 3}, "bad_request"), ({"args": []}, "bad_args"),
                          ({"comment": 5}, "bad_request"), ({"extra": 1}, "bad_request")):
            again = c.post(f"/v1/games/{live.gid}/commands?wait=0", json={"id": "shape-1", **bad}, headers=seat)
            assert again.status_code == 422 and again.json()["error"]["code"] == code, (bad, again.text)


def test_the_lobby_takes_an_empty_cursor_and_names_a_bad_one(stack: Stack, live: LiveGame) -> None:
    with stack.client() as c:
        assert c.get("/v1/games", params={"game": "", "cursor": ""}).status_code == 200
        bad = c.get("/v1/games", params={"cursor": "abc"})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad_cursor"
        assert c.put("/v1/me/email", json={"email": ""}, headers={"Authorization": f"Bearer {live.player_key}"}
                     ).json()["error"]["code"] == "bad_email"
