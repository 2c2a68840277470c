"""Inputs no endpoint accepts are refused at the edge with a 4xx JSON error, never a 500, and
change nothing; a 405 names the methods the path answers."""

from __future__ import annotations

import pytest

from tests.conftest import Stack
from tests.integration.helpers import bearer

pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def test_inputs_past_every_endpoints_limits_are_4xx_and_write_nothing(stack: Stack) -> None:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "dragondale", "seats": ["ann", "bob"]})
        assert r.status_code == 201, r.text
        gid, tokens = r.json()["id"], [s["token"] for s in r.json()["seats"]]
        seq = c.get(f"/v1/games/{gid}").json()["seq"]
        cases = [
            ("GET", f"/v1/games/{gid}/events?from={2**64}", None, 422, "number_out_of_range"),
            ("GET", f"/v1/games/{gid}/events?to=-{2**70}", None, 422, "number_out_of_range"),
            ("GET", f"/v1/games/{gid}/view?at={'9' * 30}", None, 422, "number_out_of_range"),
            ("GET", f"/v1/games/{gid}/events?from=1&x={'a' * 5000}", None, 414, "query_too_long"),
            ("GET", "/static/" + "a" * 5000, None, 414, "path_too_long"),
            ("GET", f"/v1/games/{'g' * 5000}", None, 414, "path_too_long"),
            ("POST", f"/v1/games/{'g' * 5000}/commands?wait=1", {"id": "c1", "text": "pass"}, 414, "path_too_long"),
        ]
        for method, url, body, status, code in cases:
            r = c.request(method, url, json=body, headers=bearer(tokens[0]))
            assert (r.status_code, r.json()["error"]["code"]) == (status, code), (url[:80], r.text[:300])
        # A notation that reads any digits: an integer past 64 bits is refused, not a 500.
        for i, token in enumerate(tokens):
            r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(token),
                       json={"id": f"big-{i}", "text": "pay " + "9" * 30})
            assert 400 <= r.status_code < 500, r.text
        assert c.get(f"/v1/games/{gid}").json()["seq"] == seq


def test_a_405_names_every_method_its_path_answers(stack: Stack) -> None:
    with stack.client() as c:
        for method, url, allow in [("PUT", "/v1/games", "GET, POST"), ("DELETE", "/v1/health", "GET"),
                                   ("GET", "/v1/games/p02-0123456789ab/commands", "POST")]:
            r = c.request(method, url)
            assert r.status_code == 405 and r.headers["allow"] == allow, (url, r.headers)
            assert r.json()["error"]["code"] == "method_not_allowed"
            assert method in r.json()["error"]["message"] and allow in r.json()["error"]["message"]
