"""structlog set-up: JSON lines when not on a terminal, pretty output on one."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

import orjson
import structlog


def configure(fmt: str = "auto", level: int = logging.INFO) -> None:
    pretty = sys.stderr.isatty() if fmt == "auto" else fmt == "pretty"
    renderer: structlog.typing.Processor = structlog.dev.ConsoleRenderer()
    factory: Callable[..., Any] = structlog.PrintLoggerFactory(sys.stderr)
    out = getattr(sys.stderr, "buffer", None)
    if not pretty:
        # A worker writes a line per command: orjson into the byte stream (structlog's advice
        # for speed) costs about half of json.dumps into the text one.
        if out is not None:
            renderer = structlog.processors.JSONRenderer(serializer=orjson.dumps)
            factory = structlog.BytesLoggerFactory(out)
        else:  # a stream with no bytes under it (a test's capture, say): text lines
            renderer = structlog.processors.JSONRenderer(serializer=lambda v, **kw: orjson.dumps(v, **kw).decode())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
