"""The `vacation_over` actor: a delayed message on the deadlines queue that ends a player's
vacation when its days run out (the use case, service/usecases/vacations.py, asks for it when a
vacation starts)."""

from __future__ import annotations

import dramatiq

from service.usecases.vacations import Vacations
from workers.deadlines import DEADLINES_QUEUE

VACATION_OVER = "vacation_over"


def vacation_over_message(pid: str, n: int) -> dramatiq.Message[None]:
    """The delayed message that ends vacation `n` of `pid` when its days run out."""
    return dramatiq.Message(queue_name=DEADLINES_QUEUE, actor_name=VACATION_OVER, args=(pid, n), kwargs={},
                            options={})


def declare_vacation_over(broker: dramatiq.Broker, vacations: Vacations) -> dramatiq.Actor:
    def vacation_over(pid: str, n: int) -> None:
        vacations.end(pid, n)  # a vacation the player ended already, or a later one: nothing

    actor: dramatiq.Actor = dramatiq.Actor(vacation_over, broker=broker, actor_name=VACATION_OVER,
                                           queue_name=DEADLINES_QUEUE, priority=0, options={})
    return actor
