"""The commands fast path (answered before FastAPI's routing) and the routed handler answer every
mistake alike: the same status, body and headers, from the same builders (service/api/errors.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import Stack
from tests.integration.helpers import bearer, new_race

pytestmark = pytest.mark.integration

# The fast path takes these query strings only; any other takes the route (FastAPI ignores `via`).
FAST, ROUTED = "?wait=1", "?wait=1&via=router"


def post(c: httpx.Client, path: str, query: str, token: str | None, **kw: Any) -> httpx.Response:
    headers = {**(bearer(token) if token else {}), **kw.pop("headers", {})}
    return c.post(path + query, headers=headers, **kw)


def test_every_mistake_is_answered_alike_on_both_paths(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, admin = new_race(c)
        path = f"/v1/games/{gid}/commands"
        mistakes: dict[str, tuple[str, str | None, dict[str, Any]]] = {
            "bad_json": (path, tokens[0], {"content": b"{not json"}),
            "not_an_object": (path, tokens[0], {"json": [1, 2]}),
            "token_required": (path, None, {"json": {"id": "a1", "type": "race.roll"}}),
            "bad_scheme": (path, None, {"json": {"id": "a1"}, "headers": {"Authorization": "Basic x"}}),
            "bad_token": (path, "not-a-token", {"json": {"id": "a1", "type": "race.roll"}}),
            "unknown_game": ("/v1/games/p01-000000000000/commands", tokens[0], {"json": {"id": "a1"}}),
            "bad_command_id": (path, tokens[0], {"json": {"id": "no spaces", "type": "race.roll"}}),
            "bad_expect": (path, tokens[0], {"json": {"id": "a2", "type": "race.roll", "expect": -1}}),
            "unknown_command": (path, tokens[0], {"json": {"id": "a3", "type": "race.fly"}}),
            "bad_notation": (path, tokens[0], {"json": {"id": "a4", "text": "fly away"}}),
            "seat_required": (path, admin, {"json": {"id": "a5", "type": "race.roll"}}),
            "body_too_large": (path, tokens[0], {"content": b"{" + b" " * 70_000 + b"}"}),
        }
        codes = {}
        for name, (url, token, kw) in mistakes.items():
            fast = post(c, url, FAST, token, **dict(kw))
            routed = post(c, url, ROUTED, token, **dict(kw))
            assert fast.status_code >= 400, (name, fast.text)
            assert (fast.status_code, fast.content) == (routed.status_code, routed.content), name
            assert fast.headers["content-type"] == routed.headers["content-type"] == "application/json", name
            codes[name] = (fast.status_code, fast.json()["error"]["code"])
        assert codes == {
            "bad_json": (400, "bad_json"), "not_an_object": (400, "bad_json"),
            "token_required": (401, "token_required"), "bad_scheme": (401, "bad_token"),
            "bad_token": (401, "bad_token"), "unknown_game": (404, "unknown_game"),
            "bad_command_id": (422, "bad_command_id"), "bad_expect": (422, "bad_expect"),
            "unknown_command": (422, "unknown_command"), "bad_notation": (422, "bad_notation"),
            "seat_required": (403, "seat_required"), "body_too_large": (413, "body_too_large"),
        }
