"""Browser fixtures: Debian's headless chromium driven by Playwright's sync API.

Playwright never downloads a browser here: it launches /usr/bin/chromium. Without that
binary every browser test is skipped with the reason (CI installs the package).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("BOARDLOG_CHROMIUM", "/usr/bin/chromium"))
SHOTS = Path("/tmp/boardlog-shots")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


# Per module, not per session: Playwright's sync API keeps its event loop running for as long as
# it is started, so a later test in the same process could not call asyncio.run.
@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium to run the browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_page(chromium: Any) -> Iterator[Callable[..., Any]]:
    """Pages in fresh contexts (own sessionStorage); any uncaught script error, or anything the
    pages' Content-Security-Policy refuses, fails the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(width: int = 1280, height: int = 900) -> Any:
        ctx = chromium.new_context(viewport={"width": width, "height": height})
        ctx.set_default_timeout(10_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
        # The pages' Content-Security-Policy (service/api/responses.py) refusing something they do
        page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if "Content Security Policy" in m.text
                else None)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"script errors in the pages: {errors}"


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
