"""Running the parts: worker and projector loops, and `serve`, which starts them all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import FrameType

import dramatiq
import structlog

from projections.projector import Projector
from service.bootstrap import build
from service.embedded import EmbeddedRedis
from service.settings import Settings

log = structlog.get_logger("boardlog.launcher")


def _stop_event() -> threading.Event:
    stop = threading.Event()

    def handler(signum: int, _: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return stop


def run_worker(settings: Settings, threads: int) -> None:
    stop = _stop_event()
    parts = build(settings, handle=True)
    worker = dramatiq.Worker(parts.broker, worker_threads=threads, worker_timeout=1000)
    worker.start()
    log.info("worker.started", pid=os.getpid(), threads=threads)
    stop.wait()
    parts.broker.stopping.set()  # a handler waiting for Redis lets go of its message
    worker.stop(timeout=10_000)
    parts.broker.close()
    log.info("worker.stopped", pid=os.getpid())


def run_projector(settings: Settings) -> None:
    parts = build(settings)
    projector = Projector(parts.store)
    stop = _stop_event()

    def watch() -> None:
        stop.wait()
        projector.running = False

    threading.Thread(target=watch, daemon=True).start()
    projector.run()


def run_api(settings: Settings, host: str, port: int, processes: int = 1) -> None:
    import uvicorn

    from service.api import create_app

    if processes == 1:
        # log_config=None: uvicorn's records go to the root handler, in this service's format.
        uvicorn.run(create_app(settings), host=host, port=port, log_level="warning", access_log=False,
                    log_config=None, timeout_graceful_shutdown=5)
        return
    # Several processes share the port; each builds its app from the same environment.
    os.environ.update(settings.env())
    uvicorn.run("service.api:create_app", factory=True, host=host, port=port, workers=processes,
                log_level="warning", access_log=False, log_config=None, timeout_graceful_shutdown=5)


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "service.cli", *args], env=env)


def _wait_for_api(url: str, children: list[subprocess.Popen[bytes]], stop: threading.Event) -> bool:
    """Wait until the API answers (so the printed URL works when it is printed)."""
    import httpx

    deadline = time.monotonic() + 60
    while not stop.is_set() and time.monotonic() < deadline:
        if any(c.poll() is not None for c in children):
            return False
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        stop.wait(0.1)
    return False


def serve(settings: Settings, host: str, port: int, data: Path, workers: int, threads: int) -> int:
    """Start Redis (embedded unless REDIS_URL is set), workers, projector and API; stop them on a signal."""
    stop = _stop_event()
    embedded: EmbeddedRedis | None = None
    if "REDIS_URL" not in os.environ:
        embedded = EmbeddedRedis(data).start()
        settings = Settings.from_env(redis_url=embedded.url)
        log.info("redis.embedded", url=embedded.url, data=str(data.resolve()))
    env = {**os.environ, **settings.env(), "PYTHONPATH": os.pathsep.join(sys.path)}
    children = [_spawn(["worker", "--processes", "1", "--threads", str(threads)], env) for _ in range(workers)]
    children.append(_spawn(["projector"], env))
    children.append(_spawn(["api", "--host", host, "--port", str(port)], env))
    if _wait_for_api(f"http://{host}:{port}/v1/health", children, stop):
        print(f"boardlog is up: open http://{host}:{port}/ (Ctrl-C stops it)", flush=True)
    code = 0
    while not stop.is_set():
        if any(c.poll() is not None for c in children):
            log.error("serve.child_exited", codes=[c.poll() for c in children])
            code = 1
            break
        stop.wait(0.5)
    for c in reversed(children):
        if c.poll() is None:
            c.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for c in children:
        try:
            c.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            c.kill()
            c.wait()
    if embedded is not None:
        embedded.stop()
    log.info("serve.stopped")
    return code
