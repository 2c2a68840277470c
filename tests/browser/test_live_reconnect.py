"""A board page keeps its live updates across a Redis restart: the browser's own EventSource
reconnect gets a 503 while Redis is down and gives up, so the page opens a new one."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from service.runtime.embedded import EmbeddedRedis
from tests.browser.conftest import CHROMIUM
from tests.conftest import child_env, running_stack
from tests.integration.helpers import bearer, new_race

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def test_the_board_goes_live_again_after_redis_was_down(tmp_path: Path, new_page: Any) -> None:
    server = EmbeddedRedis(tmp_path / "redis", appendonly=True).start()
    (tmp_path / "logs").mkdir()
    try:
        with running_stack(child_env(server.url, "tlive"), tmp_path / "logs") as stack, stack.client() as c:
            gid, tokens, _ = new_race(c)
            page = new_page()
            page.goto(f"{stack.url}/games/{gid}#token={tokens[1]}")
            live = page.locator("#live")
            expect(live).to_have_text("live")
            expect(page.locator("#seq")).to_have_text("2")

            server.stop()
            expect(live).to_have_text("reconnecting…")
            # Down long enough for the browser's own reconnect (about 3 s) to meet the 503 and
            # give up, and for a retry of the page's own to fail too.
            time.sleep(8)
            assert page.locator("#live").get_attribute("data-retry") is not None
            server.start()

            expect(live).to_have_text("live", timeout=20_000)
            r = httpx.post(f"{stack.url}/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[0]),
                           json={"id": str(uuid.uuid4()), "type": "race.roll", "args": {}}, timeout=30)
            assert r.status_code == 200, r.text
            expect(page.locator("#seq")).to_have_text("4", timeout=10_000)  # pushed, not reloaded
    finally:
        server.stop()
