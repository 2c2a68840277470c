"""`boardlog` commands run in the test's own process through typer's CliRunner.

A `boardlog` subprocess imports the whole app first: one to two seconds of CPU each on a 2-core
machine shared by the suite's workers. The same typer app run in-process answers the same exit
code, standard output and error; each module that uses this keeps one real subprocess per
command family so that the entry point (`python -m service.runtime.cli`) stays tested too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import structlog
from typer.testing import CliRunner

import service.runtime.cli


@dataclass(frozen=True)
class Ran:
    """What a run answered, as subprocess.run(..., capture_output=True) names it."""

    returncode: int
    stdout_bytes: bytes
    stderr_bytes: bytes

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode()

    @property
    def stderr(self) -> str:
        return self.stderr_bytes.decode()


@contextmanager
def _own_logging() -> Iterator[None]:
    """The command configures structlog and the root logger for its run (service/runtime/logs.py) onto
    the runner's captured stderr; the test process gets its own set-up back afterwards. Loggers
    are not cached during the run, so none stays bound to that captured stream."""
    saved: dict[str, Any] = structlog.get_config()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    real = service.runtime.cli.configure

    def configure(*args: Any, **kw: Any) -> None:
        real(*args, **kw)
        structlog.configure(cache_logger_on_first_use=False)

    service.runtime.cli.configure = configure  # type: ignore[assignment]
    try:
        yield
    finally:
        service.runtime.cli.configure = real  # type: ignore[assignment]
        structlog.configure(**saved)
        root.handlers[:] = handlers
        root.setLevel(level)


def run_cli(env: dict[str, str], *args: str) -> Ran:
    """`boardlog ARGS` with exactly `env` as its environment (as a subprocess given `env=`)."""
    # CliRunner sets the given variables for the run and puts them back after; None unsets.
    environ: dict[str, str | None] = {k: None for k in os.environ if k not in env}
    environ.update(env)
    with _own_logging():
        result = CliRunner().invoke(service.runtime.cli.app, list(args), env=environ, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # A crash is a crash: a subprocess would show its traceback, never a quiet exit code 1.
        raise result.exception
    return Ran(result.exit_code, result.stdout_bytes, result.stderr_bytes)
