"""The board page's dispute picker offers timeouts (issue #37; docs/conduct.md), in headless
chromium over a stack with a deadlines worker and clocks of seconds: the other seat and the seat
that timed out both find the timeout in the picker, worded as the move list words it; the seat
that timed out opens a dispute on its own timeout by clicking; the platform's skip played for a
timed-out seat is never offered (the API refuses it as part of the timeout). The board's referee
line says how the referee holds the role."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack, child_env, running_stack, wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]

TIMED_OUT = "boardlog.TurnTimedOut"


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_CLOCK_MIN_SECONDS="1")
    with running_stack(env, tmp_path_factory.mktemp("disputetimeouts")) as s:
        s.start("deadlines", "deadlines")
        yield s
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


def _race(c: httpx.Client, on_timeout: str, seconds: int) -> tuple[str, list[str]]:
    r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "referee": "rex",
                                  "options": {"target": 1000, "clock": {"per_move": seconds, "on_timeout": on_timeout}}})
    assert r.status_code == 201, r.text
    return r.json()["id"], [s["token"] for s in r.json()["seats"]]


def _timeouts(c: httpx.Client, gid: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = c.get(f"/v1/games/{gid}/moves").json()["entries"]
    return [e for e in entries if e["seat"] is None and any(x["type"] == TIMED_OUT for x in e["events"])]


def _options(page: Any) -> list[tuple[str, str]]:
    got: list[list[str]] = page.eval_on_selector_all("#dispute-move option", "os => os.map(o => [o.value, o.text])")
    return [(v, t) for v, t in got]


def test_both_seats_find_a_timeout_in_the_picker_and_the_timed_out_seat_disputes_it(
        stack: Stack, new_page: Any, shots: Path) -> None:
    with stack.client() as c:
        gid, tokens = _race(c, "pause", 2)
        wait_for(lambda: bool(_timeouts(c, gid)), timeout=60, interval=0.3)
        timeout = _timeouts(c, gid)[0]
    on, words = timeout["seq_from"], next(x["text"] for x in timeout["events"] if x["type"] == TIMED_OUT)
    assert words == "ann ran out of time: the game waits for them."
    label = f"{timeout['move']}. {words.rstrip('.')}"
    bob = new_page(1280, 900)
    bob.goto(f"{stack.url}/games/{gid}#token={tokens[1]}")
    expect(bob.locator("#referee-appointed")).to_have_text("The referee link for rex was handed to the game's creator.")
    bob.locator("#conduct summary", has_text="Dispute a move").click()
    expect(bob.locator("#dispute-move option")).to_have_count(2)  # the timeout, and "an older move"
    expect(bob.locator("#dispute-move option").first).to_have_text(label)
    expect(bob.locator("#dispute-move option").first).to_have_attribute("value", str(on))
    # The seat that timed out may dispute its own timeout (no choice it made), chosen by default.
    ann = new_page(390, 844)
    ann.goto(f"{stack.url}/games/{gid}#token={tokens[0]}")
    ann.locator("#conduct summary", has_text="Dispute a move").click()
    expect(ann.locator("#dispute-move option").first).to_have_text(label)
    expect(ann.locator("#dispute-move")).to_have_value(str(on))
    ann.fill("#dispute-note", "the clock was wrong, I was away")
    ann.get_by_role("button", name="Open the dispute").click()
    expect(ann.locator("#conduct-live .conduct-dispute")).to_contain_text(
        f"disputes move {timeout['move']} ({words.rstrip('.')}): the clock was wrong, I was away")
    ann.screenshot(path=str(shots / "dispute-timeout-phone.png"), full_page=True)
    with stack.client() as c:
        wait_for(lambda: bool(c.get(f"/v1/games/{gid}").json()["conduct"]["disputes"]), timeout=20)
        d = c.get(f"/v1/games/{gid}").json()["conduct"]["disputes"][0]
    assert d["on"] == on and d["by"] == 0 and d["verdict"] is None and d.get("step") == "timeout", d


def test_the_skip_played_for_a_timed_out_seat_is_not_offered(stack: Stack, new_page: Any) -> None:
    """Under `skip`, each timeout is followed at once by the platform's answer for the seat (a
    roll in the seat's name): the picker offers the timeouts, never those answers."""
    with stack.client() as c:
        gid, tokens = _race(c, "skip", 2)
        wait_for(lambda: len(_timeouts(c, gid)) >= 2, timeout=60, interval=0.3)
    bob = new_page(1280, 900)
    bob.goto(f"{stack.url}/games/{gid}#token={tokens[1]}")
    bob.locator("#conduct summary", has_text="Dispute a move").click()
    expect(bob.locator("#dispute-move option")).not_to_have_count(1)
    wait_for(lambda: len(_options(bob)) >= 3, timeout=20)  # two timeouts at least, and "an older move"
    offered = _options(bob)
    with stack.client() as c:  # read after the page: it holds every entry the page could
        entries: list[dict[str, Any]] = c.get(f"/v1/games/{gid}/moves").json()["entries"]
    timeouts = {str(e["seq_from"]) for e in entries if e["seat"] is None and any(x["type"] == TIMED_OUT for x in e["events"])}
    skips = {str(e["seq_from"]) for e in entries if e["seat"] is not None and e["move"]}
    assert skips, entries  # the platform did answer for the timed-out seats
    values = [v for v, _ in offered]
    assert values[-1] == "older" and set(values[:-1]) <= timeouts and not set(values) & skips, (offered, entries)
    assert all(" ran out of time" in t and t.endswith(": the platform answers for them") for _, t in offered[:-1]), offered
