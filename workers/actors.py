"""The dramatiq actors, declared on a broker built at start-up (never at import)."""

from __future__ import annotations

import threading
import time
from typing import Any

import dramatiq
import structlog

from events.store.errors import StoreUnavailable
from workers.broker import StoreUnreachable
from workers.commands import CommandHandler

log = structlog.get_logger("boardlog.worker")

COMMANDS_QUEUE = "commands"
HANDLE_COMMAND = "handle_command"
GAVE_UP = "command_gave_up"


def declare(
    broker: dramatiq.Broker, handler: CommandHandler | None, store_wait: float = 30.0
) -> dramatiq.Actor:
    """Declare `handle_command` on `broker`; `handler` is None in processes that only enqueue."""
    stopping: threading.Event = getattr(broker, "stopping", None) or threading.Event()

    def handle_command(gid: str, cid: str) -> None:
        if handler is None:
            raise RuntimeError("this process only enqueues commands")
        # Redis restarting or out of reach: wait for it here, holding the message. Handing the
        # failure to the Retries middleware would need Redis to queue the retry, and when that
        # fails too dramatiq acks the message anyway. Running the handler again is harmless.
        pause, deadline = 0.05, time.monotonic() + store_wait
        while True:
            try:
                handler.handle(gid, cid)
                return
            except StoreUnavailable as e:
                if time.monotonic() > deadline or stopping.is_set():
                    # The message stays in the ack set; a sweep puts it back (StoreUnreachable).
                    log.warning("command.store_unavailable", game=gid, command=cid, error=str(e), waiting=False)
                    raise StoreUnreachable(str(e)) from None
                log.warning("command.store_unavailable", game=gid, command=cid, error=str(e), retry_in=pause)
                stopping.wait(pause)
                pause = min(1.0, pause * 2)

    def command_gave_up(message: dict[str, Any], retry_info: dict[str, Any]) -> None:
        """Sent by the Retries middleware when a command's retries are spent: answer it."""
        if handler is None:
            raise RuntimeError("this process only enqueues commands")
        gid, cid = message["args"]
        handler.give_up(gid, cid, int(retry_info.get("retries", 0)) + 1)  # the first try and the retries

    dramatiq.Actor(command_gave_up, broker=broker, actor_name=GAVE_UP, queue_name=COMMANDS_QUEUE,
                   priority=0, options={})
    actor: dramatiq.Actor = dramatiq.Actor(
        handle_command,
        broker=broker,
        actor_name=HANDLE_COMMAND,
        queue_name=COMMANDS_QUEUE,
        priority=0,
        # StoreUnreachable: neither retried nor logged as a crash. A command that fails every
        # try (a bug outside the rules) is answered, not left queued behind a dead letter.
        options={"throws": (StoreUnreachable,), "on_retry_exhausted": GAVE_UP},
    )
    return actor

