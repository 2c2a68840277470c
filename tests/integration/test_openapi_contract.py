"""The OpenAPI document is the contract (#17 items 1-3), tried against a live stack.

- schemathesis, a bounded run: fixed seed, every check (the response's schema, its status and
  content type, negative data refused...), over one live game whose seat token, admin token,
  player key and session cookie it holds, so well-formed requests reach the game too.
- hypothesis over every endpoint's parameters and bodies: the answer is 2xx or 4xx, never
  5xx, and a refused request moved no game's seq.

The longer run is the README's (Testing): the same `st run` with more examples.
"""

from __future__ import annotations

import json
import os
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
    env = child_env(redis_url, ns, BOARDLOG_PLAYERS_PER_MINUTE="100000", BOARDLOG_SIGNINS_PER_MINUTE="100000")
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
         "--exclude-path", "/v1/games/{gid}/stream"],
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
    return sorted((m.upper(), p) for p, ops in doc["paths"].items() for m in ops if not p.endswith("/stream"))


def _asks(ops: list[tuple[str, str]], gid: str) -> st.SearchStrategy[Ask]:
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
                               _JSON, _INT))
    return st.sampled_from(ops).flatmap(lambda op: st.builds(
        Ask, st.just(op[0]), fill(op[1]), _QUERY, body,
        st.sampled_from(["none", "seat", "other", "admin", "player", "cookie", "junk"])))


def _settle(c: httpx.Client, ask: Ask, headers: dict[str, str]) -> None:
    """Wait for a queued command's answer, so that it cannot move a seq during a later ask."""
    try:
        cid = json.loads(ask.body or b"{}")["id"]
    except (ValueError, KeyError, TypeError):
        return
    base = ask.path.rsplit("/", 1)[0]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and c.get(f"{base}/commands/{cid}", headers=headers).status_code == 202:
        time.sleep(0.1)


def _heads(c: httpx.Client, gids: list[str]) -> dict[str, int]:
    return {g: c.get(f"/v1/games/{g}").json()["seq"] for g in gids}


@pytest.mark.timeout(600)
def test_any_input_answers_2xx_or_4xx_and_a_refusal_moves_no_seq(stack: Stack, live: LiveGame) -> None:
    with stack.client() as c:
        doc = c.get("/openapi.json").json()
        ops = _paths(doc)
        watched = [live.gid]
        headers = {"seat": {"Authorization": f"Bearer {live.seat}"},
                   "other": {"Authorization": f"Bearer {live.other}"},
                   "admin": {"Authorization": f"Bearer {live.admin}"},
                   "player": {"Authorization": f"Bearer {live.player_key}"},
                   "cookie": {"Cookie": f"boardlog_session={live.cookie}", "Origin": stack.url},
                   "junk": {"Authorization": "Bearer x"}, "none": {}}
        seen: dict[int, int] = {}

        @seed(SEED)
        @settings(max_examples=int(os.environ.get("BOARDLOG_INPUT_EXAMPLES", "150")), deadline=None,
                  suppress_health_check=list(HealthCheck), database=None)
        @given(_asks(ops, live.gid))
        def one(ask: Ask) -> None:
            if ask.method in ("DELETE", "POST") and ask.path.startswith("/v1/me/sessions"):
                return  # signing the fixture's player out everywhere would only make later asks 401
            before = _heads(c, watched)
            r = c.request(ask.method, ask.path, params=ask.query, content=ask.body,
                          headers={"Content-Type": "application/json", **headers[ask.auth]})
            seen[r.status_code] = seen.get(r.status_code, 0) + 1
            if r.status_code == 202:
                _settle(c, ask, headers[ask.auth])
            assert r.status_code < 500, f"{ask} -> {r.status_code} {r.text[:500]}"
            if r.status_code >= 400 and not ask.path.startswith("/unsubscribe/"):  # a page for people
                assert r.headers["content-type"].startswith("application/json"), r.headers
                assert isinstance(r.json()["error"]["code"], str)
                if ask.path.endswith("/abort") and r.status_code == 409:
                    return  # a refusal of a game already over (aborted by an earlier ask)
                assert _heads(c, watched) == before, f"{ask} was refused ({r.status_code}) but moved a seq"

        one()
        print("statuses:", dict(sorted(seen.items())))
        assert any(200 <= s < 300 for s in seen) and any(400 <= s < 500 for s in seen)
