"""The journeys' stage: a real `boardlog serve` (worker, projector, API, notifier, deadlines and the
reply-to-play listener as its own processes) with its mail going to an aiosmtpd mailbox and its
webhooks to a local HTTP receiver, and headless chromium for the people who use a page.

One serve for the whole session of a test process: starting its six processes costs seconds of
CPU on a shared machine, more than a journey. Each journey makes players and games of its own, so
none depends on what another left behind. The import journey starts a second deployment of its
own (`deployment`), with its own data directory, signing key and namespace.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from service.runtime.embedded import free_port
from tests.browser.conftest import ARGS, CHROMIUM
from tests.conftest import ROOT, child_env, wait_for, wait_http
from tests.support.clirun import Ran, run_cli
from tests.support.receivers import MailBox, Web

REPLY_DOMAIN = "play.test"


@dataclass
class Deployment:
    """One `boardlog serve` over its own namespace and data directory (its signing key)."""

    url: str
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes]

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, **kw)

    @property
    def mail_in_port(self) -> int:
        return int(self.env["BOARDLOG_MAIL_IN_PORT"])

    def cli(self, *args: str) -> Ran:
        """`boardlog ARGS` as this deployment's operator runs it (its Redis, namespace and key)."""
        return run_cli(self.env, *args)

    def logs(self) -> str:
        return self.log.read_text()[-4000:]

    def stop(self) -> None:
        """Ctrl-C to the whole process group, as a terminal sends it; a kill if it hangs."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def start_deployment(redis_url: str, root: Path, mailbox: MailBox | None = None, tries: int = 3) -> Deployment:
    """A serve on a free port, its data in `root`; mail to `mailbox` and replies taken in when
    one is given. Its public URL is its own address, so the links it mails open in chromium."""
    namespace = f"j{uuid.uuid4().hex[:12]}"
    mail: dict[str, str] = {}
    if mailbox is not None:
        mail = {"BOARDLOG_SMTP_HOST": "127.0.0.1", "BOARDLOG_SMTP_PORT": str(mailbox.port),
                "BOARDLOG_SMTP_TLS": "none", "BOARDLOG_REPLY_DOMAIN": REPLY_DOMAIN,
                "BOARDLOG_MAIL_IN_PORT": str(free_port())}
    env = child_env(redis_url, namespace, BOARDLOG_DATA=str(root / "data"), BOARDLOG_NOTIFY_BACKOFF_MS="100",
                    BOARDLOG_NOTIFY_CLAIM_MS="1000", BOARDLOG_PLAYERS_PER_MINUTE="0",
                    # Clocks of seconds, for the journeys that wait on a clock (the abandoned game).
                    BOARDLOG_CLOCK_MIN_SECONDS="1",
                    BOARDLOG_SIGNINS_PER_MINUTE="0", BOARDLOG_MESSAGES_PER_MINUTE="0",
                    BOARDLOG_ANON_RECORDS_PER_MINUTE="0", BOARDLOG_SIGNIN_MAILS_PER_MINUTE="0", **mail)
    root.mkdir(parents=True, exist_ok=True)
    log = root / "serve.log"
    for _ in range(tries):
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port), "--data", str(root / "var"),
             "--workers", "1"],
            env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
        d = Deployment(f"http://127.0.0.1:{port}", env, log, proc)
        if wait_http(d.url, timeout=120, namespace=namespace, proc=proc):
            break
        d.stop()  # another process took the port first
    else:
        raise RuntimeError(f"serve did not start: {log.read_text()[-3000:]}")
    # Every notice counts from the first move: wait until the notifier follows the feeds.
    wanted = [b"notifier.started"] + ([b"mail_in.started"] if mailbox is not None else [])
    wait_for(lambda: all(w in log.read_bytes() for w in wanted), timeout=90, interval=0.2)
    return d


def drop_namespace(redis_url: str, namespace: str) -> None:
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{namespace}:*", f"{namespace}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


@pytest.fixture(scope="session")
def mailbox() -> Iterator[MailBox]:
    box = MailBox().start()
    yield box
    box.stop()


@pytest.fixture(scope="session")
def hooks() -> Iterator[Web]:
    """The HTTP receiver every webhook target of the journeys points at."""
    w = Web().start()
    yield w
    w.stop()


@pytest.fixture(scope="session")
def service(redis_url: str, mailbox: MailBox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """The deployment the journeys play on."""
    d = start_deployment(redis_url, tmp_path_factory.mktemp("service"), mailbox)
    yield d
    d.stop()
    drop_namespace(redis_url, d.env["BOARDLOG_NAMESPACE"])


@pytest.fixture
def deployment(redis_url: str, tmp_path: Path) -> Iterator[Callable[[], Deployment]]:
    """Another deployment, this test's own (no mail): its own data directory and key."""
    made: list[Deployment] = []

    def make() -> Deployment:
        made.append(start_deployment(redis_url, tmp_path / f"deployment{len(made) + 1}"))
        return made[-1]

    yield make
    for d in made:
        d.stop()
        drop_namespace(redis_url, d.env["BOARDLOG_NAMESPACE"])


# Per module: Playwright's sync API keeps its event loop for as long as it runs (see
# tests/browser/conftest.py, whose flags these are).
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium to run the journeys with pages")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def signed_in(browser: Any, service: Deployment) -> Iterator[Callable[[dict[str, str]], Any]]:
    """A browser of a player's own, signed in by the sign-in link made with the player; any
    script error in the pages fails the journey."""
    contexts: list[Any] = []
    errors: list[str] = []

    def sign_in(who: dict[str, str], width: int = 1280, height: int = 900) -> Any:
        from playwright.sync_api import expect

        ctx = browser.new_context(viewport={"width": width, "height": height})
        ctx.set_default_timeout(15_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
        page.goto(service.url + who["signin_url"])
        page.locator("#confirm-go").click()  # a sign-in link signs in only by a click
        expect(page.locator("#who")).to_have_text(who["name"])
        return page

    yield sign_in
    for ctx in contexts:
        ctx.close()
    assert not errors, f"script errors in the pages: {errors}"


def settle(seconds: float = 1.5) -> None:
    """Time for a notice sent twice to arrive, before counting that it came once."""
    time.sleep(seconds)
