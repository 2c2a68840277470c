"""The dramatiq actors, declared on a broker built at start-up (never at import)."""

from __future__ import annotations

from typing import Any

import dramatiq

from workers.commands import CommandHandler

COMMANDS_QUEUE = "commands"
HANDLE_COMMAND = "handle_command"


def declare(broker: dramatiq.Broker, handler: CommandHandler | None) -> dramatiq.Actor:
    """Declare `handle_command` on `broker`; `handler` is None in processes that only enqueue."""

    def handle_command(gid: str, cid: str) -> None:
        if handler is None:
            raise RuntimeError("this process only enqueues commands")
        handler.handle(gid, cid)

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
