"""The dramatiq actors, declared on a broker built at start-up (never at import)."""

from __future__ import annotations

import time
from typing import Any

import dramatiq
import redis
import structlog

from workers.commands import CommandHandler

log = structlog.get_logger("boardlog.worker")

COMMANDS_QUEUE = "commands"
STORE_WAIT_SECONDS = 30.0
HANDLE_COMMAND = "handle_command"


def declare(broker: dramatiq.Broker, handler: CommandHandler | None) -> dramatiq.Actor:
    """Declare `handle_command` on `broker`; `handler` is None in processes that only enqueue."""

    def handle_command(gid: str, cid: str) -> None:
        if handler is None:
            raise RuntimeError("this process only enqueues commands")
        # Redis restarting or out of reach: wait for it here, holding the message. Handing the
        # failure to the Retries middleware would need Redis to queue the retry, and when that
        # fails too dramatiq acks the message anyway. Running the handler again is harmless.
        pause, deadline = 0.05, time.monotonic() + STORE_WAIT_SECONDS
        while True:
            try:
                handler.handle(gid, cid)
                return
            except (redis.ConnectionError, redis.TimeoutError) as e:
                if time.monotonic() > deadline:  # a long outage: dramatiq's retries take over
                    log.warning("command.store_unavailable", game=gid, command=cid, error=str(e), waiting=False)
                    raise dramatiq.Retry(str(e)) from None
                log.warning("command.store_unavailable", game=gid, command=cid, error=str(e), retry_in=pause)
                time.sleep(pause)
                pause = min(1.0, pause * 2)

    actor: dramatiq.Actor = dramatiq.Actor(
        handle_command,
        broker=broker,
        actor_name=HANDLE_COMMAND,
        queue_name=COMMANDS_QUEUE,
        priority=0,
        options={},
    )
    return actor


def enqueue(actor: dramatiq.Actor, gid: str, cid: str) -> Any:
    return actor.send(gid, cid)
