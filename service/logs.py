"""structlog set-up: JSON lines when not on a terminal, pretty output on one."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(fmt: str = "auto", level: int = logging.INFO) -> None:
    pretty = sys.stderr.isatty() if fmt == "auto" else fmt == "pretty"
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer() if pretty else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
