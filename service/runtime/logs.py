"""structlog set-up: JSON lines when not on a terminal, pretty output on one; the standard
library's records (dramatiq, uvicorn, redis-py) come out in the same format."""

from __future__ import annotations

import logging
import sys
import unicodedata
from collections.abc import Callable, MutableMapping
from typing import Any

import orjson
import structlog

_TIMESTAMP = structlog.processors.TimeStamper(fmt="iso", utc=True)


class TransientConsumerErrors(logging.Filter):
    """dramatiq logs CRITICAL each time a consumer meets a connection error, then connects
    again on its own; this service rides out a Redis restart, so such a line is a warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.CRITICAL and str(record.msg).startswith("Consumer encountered a connection error"):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def printable(text: object, keep: str = "") -> str:
    """`text` as a terminal may print it: each control or format character (ESC and so CSI, a
    bidi override, a zero-width space) as its code, for one would recolour, move or reorder what
    follows; those in `keep` stay as they are."""
    return "".join(f"\\u{ord(c):04x}" if c not in keep and unicodedata.category(c) in ("Cc", "Cf") else c
                   for c in str(text))


def terminal_safe(_logger: Any, _name: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """A message on a terminal, printable: a library's message (dramatiq's, redis-py's, Apprise's)
    holds text it was given, such as a remote service's answer. A traceback keeps its lines and
    tabs; the pretty renderer prints other values as repr, and JSON escapes all."""
    message = event.get("event")
    if isinstance(message, str):
        event["event"] = printable(message, keep="\t\n")
    return event


LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def level_of(name: str) -> int:
    """A level's number from its name (BOARDLOG_LOG_LEVEL); ValueError naming the choices."""
    try:
        return LEVELS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"BOARDLOG_LOG_LEVEL is {name!r}: it is one of {', '.join(LEVELS)}") from None


def configure(fmt: str = "auto", level: int | str = logging.INFO) -> None:
    if isinstance(level, str):
        level = level_of(level)
    pretty = sys.stderr.isatty() if fmt == "auto" else fmt == "pretty"
    renderer: structlog.typing.Processor = structlog.dev.ConsoleRenderer()
    text_renderer: structlog.typing.Processor = renderer
    factory: Callable[..., Any] = structlog.PrintLoggerFactory(sys.stderr)
    out = getattr(sys.stderr, "buffer", None)
    if not pretty:
        text_renderer = structlog.processors.JSONRenderer(serializer=lambda v, **kw: orjson.dumps(v, **kw).decode())
        renderer = text_renderer
        # A worker writes a line per command: orjson into the byte stream (structlog's advice
        # for speed) costs about half of json.dumps into the text one.
        if out is not None:
            renderer = structlog.processors.JSONRenderer(serializer=orjson.dumps)
            factory = structlog.BytesLoggerFactory(out)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _TIMESTAMP,
            structlog.processors.format_exc_info,
            *([terminal_safe] if pretty else []),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(TransientConsumerErrors())
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.add_log_level, structlog.stdlib.add_logger_name, _TIMESTAMP],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            *([terminal_safe] if pretty else []),
            text_renderer,
        ],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
