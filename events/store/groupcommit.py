"""Group commit at the hand-off to the queue: commands that arrive while the previous hand-off of
their partition is in flight travel together, as one message.

A command that finds its partition idle is sent at once, by its own request, alone: nothing waits
for company and there is no timer. While that send is in flight, the commands that arrive wait
in the partition's line; when it returns, the next message takes up to `limit` of them (in
arrival order), and so on until the line is empty. Under load a send takes a round trip, and the
commands of that round trip leave together: one message, one enqueue, one worker fetch and one
pipelined append for all of them (workers/commands.py, `handle_batch`).

A partition is what routes games to one queue: today every game's commands go to the one
`commands` queue, so the API has one line; a batch never mixes two queues.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import NamedTuple

import structlog

log = structlog.get_logger("boardlog.api")

# Batch sizes counted for /metrics (service/api/metrics.py): the upper bounds of the buckets.
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class Queued(NamedTuple):
    """One command to queue: its game, key (events.store.commandids), pending record and when."""

    gid: str
    cid: str
    body: bytes
    queued_ms: int


Send = Callable[[Sequence[Queued]], Awaitable[list[bool]]]


class BatchSizes:
    """How many commands each message carried, as a histogram's cumulative bucket counts (read by
    the /metrics collector at a scrape; kept here so that every batch counts from the start)."""

    def __init__(self) -> None:
        self.buckets = [0] * len(SIZE_BUCKETS)
        self.over = 0  # past the last bucket
        self.count = 0
        self.sum = 0

    def observe(self, n: int) -> None:
        self.count += 1
        self.sum += n
        for i, bound in enumerate(SIZE_BUCKETS):
            if n <= bound:
                self.buckets[i] += 1
                return
        self.over += 1


class GroupCommit:
    """The API process's hand-off: `submit` one command, sent with whatever arrived while the
    previous send of its partition was in flight (at most `limit` a message)."""

    def __init__(self, send: Send, limit: int, partition: Callable[[str], str]) -> None:
        if limit < 1:
            raise ValueError("a batch holds at least one command")
        self.send, self.limit, self.partition = send, limit, partition
        self.sizes = BatchSizes()
        self._busy: set[str] = set()
        self._line: dict[str, deque[tuple[Queued, asyncio.Future[bool]]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # held: the loop keeps only weak references

    async def submit(self, gid: str, cid: str, body: bytes, queued_ms: int) -> bool:
        """Queue one command; whether a message was enqueued for it (False: its id was queued
        before). Raises what the send raised (StoreUnavailable)."""
        item = Queued(gid, cid, body, queued_ms)
        part = self.partition(gid)
        if part not in self._busy:
            # Idle: this command goes now, alone, from this request (no task, no wait).
            self._busy.add(part)
            try:
                return (await self._sent([item]))[0]
            finally:
                self._next(part)
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._line.setdefault(part, deque()).append((item, fut))
        return await fut

    async def _sent(self, items: list[Queued]) -> list[bool]:
        self.sizes.observe(len(items))
        log.debug("command.batch", size=len(items))
        return await self.send(items)

    def _next(self, part: str) -> None:
        """After a send of `part` returned: the next batch goes (in a task of its own, so that the
        request that sent the last one answers now), or the partition is idle."""
        line = self._line.get(part)
        if not line:
            self._busy.discard(part)
            return
        task = asyncio.get_running_loop().create_task(self._drain(part))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drain(self, part: str) -> None:
        line = self._line[part]
        taken: list[tuple[Queued, asyncio.Future[bool]]] = []
        while line and len(taken) < self.limit:
            item, fut = line.popleft()
            if not fut.done():  # a request gone (its client hung up) before its turn: not sent
                taken.append((item, fut))
        try:
            got = await self._sent([item for item, _ in taken]) if taken else []
        except Exception as e:
            for _, fut in taken:
                if not fut.done():
                    fut.set_exception(e)
        except BaseException:
            # Cancelled (the app is stopping): nothing more goes from this line.
            for _, fut in [*taken, *line]:
                fut.cancel()
            line.clear()
            self._busy.discard(part)
            raise
        else:
            for (_, fut), enqueued in zip(taken, got, strict=True):
                if not fut.done():
                    fut.set_result(enqueued)
        self._next(part)
