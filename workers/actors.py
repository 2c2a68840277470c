"""The dramatiq actors, declared on a broker built at start-up (never at import)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import dramatiq
import structlog

from events.store.errors import StoreUnavailable
from workers.broker import StoreUnreachable
from workers.commands import CommandHandler

log = structlog.get_logger("boardlog.worker")

COMMANDS_QUEUE = "commands"
HANDLE_COMMAND = "handle_command"
HANDLE_COMMANDS = "handle_commands"
GAVE_UP = "command_gave_up"
BATCH_GAVE_UP = "commands_gave_up"


class Actors(NamedTuple):
    """The command actors: one command a message (the platform's own senders, the lost-message
    sweep, and messages queued before batches), and a batch a message (the API's group commit)."""

    one: dramatiq.Actor
    batch: dramatiq.Actor


def declare(
    broker: dramatiq.Broker, handler: CommandHandler | None, store_wait: float = 30.0
) -> dramatiq.Actor:
    """Declare `handle_command` on `broker`; `handler` is None in processes that only enqueue."""
    return declare_both(broker, handler, store_wait).one


def declare_both(broker: dramatiq.Broker, handler: CommandHandler | None, store_wait: float = 30.0) -> Actors:
    """Declare `handle_command` and `handle_commands` on `broker` (one queue, so one consumer
    takes both); `handler` is None in processes that only enqueue."""
    stopping: threading.Event = getattr(broker, "stopping", None) or threading.Event()

    def waiting_for_redis(run: Callable[[], object], what: dict[str, Any]) -> None:
        # Redis restarting or out of reach: wait for it here, holding the message. Handing the
        # failure to the Retries middleware would need Redis to queue the retry, and when that
        # fails too dramatiq acks the message anyway. Running the handler again is harmless.
        pause, deadline = 0.05, time.monotonic() + store_wait
        while True:
            try:
                run()
                return
            except StoreUnavailable as e:
                if time.monotonic() > deadline or stopping.is_set():
                    # The message stays in the ack set; a sweep puts it back (StoreUnreachable).
                    log.warning("command.store_unavailable", **what, error=str(e), waiting=False)
                    raise StoreUnreachable(str(e)) from None
                log.warning("command.store_unavailable", **what, error=str(e), retry_in=pause)
                stopping.wait(pause)
                pause = min(1.0, pause * 2)

    def handle_command(gid: str, cid: str) -> None:
        if handler is None:
            raise RuntimeError("this process only enqueues commands")
        waiting_for_redis(lambda: handler.handle(gid, cid), {"game": gid, "command": cid})

    def handle_commands(commands: list[list[str]]) -> None:
        """A batch from the API's group commit: [[game id, command id], ...] in arrival order."""
        if handler is None:
            raise RuntimeError("this process only enqueues commands")
        pairs = [(gid, cid) for gid, cid in commands]
        waiting_for_redis(lambda: handler.handle_batch(pairs), {"commands": len(pairs)})

    def commands_gave_up(message: dict[str, Any], retry_info: dict[str, Any]) -> None:
        """The Retries middleware's word that a batch's retries are spent: answer each of its
        commands (one already answered keeps its answer)."""
        if handler is None:
            raise RuntimeError("this process only enqueues commands")
        for gid, cid in message["args"][0]:
            handler.give_up(gid, cid, int(retry_info.get("retries", 0)) + 1)

    def command_gave_up(message: dict[str, Any], retry_info: dict[str, Any]) -> None:
        """Sent by the Retries middleware when a command's retries are spent: answer it."""
        if handler is None:
            raise RuntimeError("this process only enqueues commands")
        gid, cid = message["args"]
        handler.give_up(gid, cid, int(retry_info.get("retries", 0)) + 1)  # the first try and the retries

    dramatiq.Actor(command_gave_up, broker=broker, actor_name=GAVE_UP, queue_name=COMMANDS_QUEUE,
                   priority=0, options={})
    dramatiq.Actor(commands_gave_up, broker=broker, actor_name=BATCH_GAVE_UP, queue_name=COMMANDS_QUEUE,
                   priority=0, options={})
    batch: dramatiq.Actor = dramatiq.Actor(
        handle_commands, broker=broker, actor_name=HANDLE_COMMANDS, queue_name=COMMANDS_QUEUE, priority=0,
        options={"throws": (StoreUnreachable,), "on_retry_exhausted": BATCH_GAVE_UP},
    )
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
    return Actors(actor, batch)

