"""What the logs print: on a terminal, no value acts on the operator's screen."""

from __future__ import annotations

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
