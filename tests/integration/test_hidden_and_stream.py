"""Hidden information through the API, and the server-sent event stream."""

from __future__ import annotations

import threading

import httpx
import orjson
import pytest

from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, new_race

pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def charms_seen(events: list[dict]) -> list:  # type: ignore[type-arg]
    return next(e["data"]["charms"] for e in events if e["type"] == "race.RaceSetUp")


def test_no_seat_or_spectator_sees_another_seats_secret(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, admin = new_race(c, seats=3)
        assert command(c, gid, tokens[0]).status_code == 200
        for seat, tok in enumerate(tokens):
            charms = charms_seen(c.get(f"/v1/games/{gid}/events", headers=bearer(tok)).json()["events"])
            assert [x is not None for x in charms] == [i == seat for i in range(3)]
            view = c.get(f"/v1/games/{gid}/view", headers=bearer(tok)).json()
            assert view["seat"] == seat and isinstance(view["board"]["charm"], int)
            old = c.get(f"/v1/games/{gid}/view?at=2", headers=bearer(tok)).json()
            assert old["seq"] == 2 and old["board"]["charm"] == view["board"]["charm"]
        public = c.get(f"/v1/games/{gid}/events").json()["events"]
        assert charms_seen(public) == [None, None, None]
        assert all(e.get("redacted") for e in public if e["type"] == "race.RaceSetUp")
        assert "charm" not in c.get(f"/v1/games/{gid}/view").json()["board"]
        assert "charm" not in c.get(f"/v1/games/{gid}/view?at=3").json()["board"]
        # The admin is no referee: it reads the spectator's log, and a seat's export is its own log.
        assert charms_seen(c.get(f"/v1/games/{gid}/events", headers=bearer(admin)).json()["events"]) == [None] * 3
        mine = c.get(f"/v1/games/{gid}/export", headers=bearer(tokens[1]))
        assert mine.status_code == 200 and b'"redacted"' in mine.content
        assert [x is not None for x in charms_seen([orjson.loads(x) for x in mine.content.splitlines()])] == \
            [False, True, False]
        assert c.get(f"/v1/games/{gid}/export").status_code == 403
        ranged = c.get(f"/v1/games/{gid}/events?from=3&to=4").json()["events"]
        assert [e["seq"] for e in ranged] == [3, 4]
        assert ranged[0]["data"]["text"] == "roll"


def test_the_stream_pushes_each_new_seq(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        seen: list[str] = []
        ready = threading.Event()

        def listen() -> None:
            with httpx.stream("GET", f"{stack.url}/v1/games/{gid}/stream", timeout=20) as r:
                assert r.headers["content-type"].startswith("text/event-stream")
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        seen.append(line)
                        ready.set()
                        if '"seq":6' in line:
                            return

        t = threading.Thread(target=listen, daemon=True)
        t.start()
        assert ready.wait(10)
        assert command(c, gid, tokens[0]).status_code == 200
        assert command(c, gid, tokens[1]).status_code == 200
        # Bursts may be coalesced into one notice; the last one carries the newest seq.
        wait_for(lambda: any('"seq":6' in x for x in seen), timeout=15)
        assert len(seen) >= 2


def test_the_log_is_paged(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        for i in range(6):
            assert command(c, gid, tokens[i % 2]).status_code == 200
        page = c.get(f"/v1/games/{gid}/events?limit=5").json()
        assert [e["seq"] for e in page["events"]] == [1, 2, 3, 4, 5] and page["next"] == 6
        rest = c.get(f"/v1/games/{gid}/events?from=6&limit=500").json()
        assert rest["events"][0]["seq"] == 6 and rest["next"] is None
        assert c.get(f"/v1/games/{gid}/events?from=x").status_code == 422
