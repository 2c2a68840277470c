"""What the logs print: on a terminal, no value acts on the operator's screen."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import logging, structlog
from service.runtime.logs import configure
configure("{fmt}")
structlog.get_logger().warning("notice.failed", error="HTTP 500: \\x1b[2J\\x1b[32mall fine\\u202e", n=3)
logging.getLogger("apprise").warning("Failed to send: %s", "\\x1b[2J\\x1b]0;title\\x07\\u202e")
"""


def _logged(fmt: str) -> str:
    # Its own process: configure() sets the process's logging, which this one's tests share.
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(fmt=fmt)], capture_output=True, text=True, timeout=60,
                          check=True)
    return done.stderr


def test_an_escape_sequence_in_a_log_line_is_shown_as_codes_on_a_terminal() -> None:
    """A library's message holds text it was given (a remote service's answer): with an escape
    sequence in it, the pretty renderer printed it as it is, to act on the operator's screen
    (values it prints as repr, which escapes them)."""
    out = _logged("pretty")
    assert "Failed to send: \\u001b[2J\\u001b]0;title\\u0007\\u202e" in out, repr(out)
    assert "\\x1b[2J\\x1b[32mall fine\\u202e" in out, repr(out)  # a value: its repr
    assert "\x1b[2J" not in out and "\x1b]0;" not in out and "\u202e" not in out, repr(out)


def test_json_lines_escape_them_by_themselves() -> None:
    out = _logged("json")
    assert '"error":"HTTP 500: \\u001b[2J\\u001b[32mall fine\u202e"' in out, out


LEVELLED = """
import structlog
from service.runtime.logs import configure
configure("json", "{level}")
log = structlog.get_logger()
log.debug("command.accepted", seq=1)
log.info("command.rejected", seq=1)
"""


def test_the_log_level_setting_chooses_whether_accepted_commands_are_logged() -> None:
    """An accepted command is a debug line (the event log holds it; a line each cost the worker
    ~11 us a command); BOARDLOG_LOG_LEVEL=debug shows it, the default does not."""
    def run(level: str) -> str:
        return subprocess.run([sys.executable, "-c", LEVELLED.format(level=level)], capture_output=True, text=True,
                              timeout=60, check=True).stderr

    assert "command.accepted" not in run("info") and "command.rejected" in run("info")
    assert "command.accepted" in run("DEBUG")
    assert "command.rejected" not in run("warning")


def test_an_unknown_log_level_is_refused_by_the_command_line_with_the_choices() -> None:
    done = subprocess.run([sys.executable, "-m", "service.runtime.cli", "rebuild"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "BOARDLOG_LOG_LEVEL": "loud"})
    assert done.returncode != 0
    assert "BOARDLOG_LOG_LEVEL is 'loud': it is one of debug, info, warning, error" in done.stderr, done.stderr
