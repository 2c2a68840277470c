"""/docs and /redoc render with every request answered by boardlog itself: the browser is
refused anything but the service's own address, as on a machine with no network."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.conftest import CHROMIUM
from tests.conftest import Stack

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: the browser tests need Debian's chromium"),
]


def test_the_api_docs_render_offline(stack: Stack, new_page: Callable[..., Any]) -> None:
    page = new_page()
    elsewhere: list[str] = []

    def only_ours(route: Any) -> None:
        if route.request.url.startswith(stack.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_ours)
    page.goto(f"{stack.url}/docs")
    page.wait_for_selector("text=POST", timeout=60_000)
    page.wait_for_selector('[data-path="/v1/games/{gid}/commands"]')
    page.screenshot(path="/tmp/boardlog-shots/docs-offline.png")
    page.goto(f"{stack.url}/redoc")
    page.wait_for_selector("text=Create a game", timeout=60_000)  # Redoc renders slowly on a loaded machine
    page.screenshot(path="/tmp/boardlog-shots/redoc-offline.png")
    # Redoc's bundle asks for its own "powered by" logo from its CDN; refused, the page is whole.
    assert [u for u in elsewhere if u != "https://cdn.redoc.ly/redoc/logo-mini.svg"] == []
    with stack.client() as c:
        r = c.get("/docs/assets/swagger-ui-bundle.js")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
        assert c.get("/docs/assets/..%2Fcore.py").status_code == 404
        assert c.get("/docs/assets/nothing.js").json()["error"]["code"] == "not_found"
