"""The API's group commit (events/store/groupcommit.py): a lone command is sent at once, alone;
commands arriving while a send is in flight go in the next message, at most the bound a
message, in arrival order; each partition has its own line. The send here is the test's own
(a list of the batches it was given, released by the test), so the order of events is exact;
tests/integration/test_command_queue.py runs the same through each real adapter."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from events.store.groupcommit import GroupCommit, Queued


class Sends:
    """The batches handed to the queue, each held until the test releases it."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.gates: list[asyncio.Event] = []
        self.hold = True

    async def send(self, items: Sequence[Queued]) -> list[bool]:
        self.batches.append([q.cid for q in items])
        gate = asyncio.Event()
        self.gates.append(gate)
        if self.hold:
            await gate.wait()
        return [not q.cid.startswith("old") for q in items]

    def release(self) -> None:
        for g in self.gates:
            g.set()


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def submit(gc: GroupCommit, cid: str, gid: str = "p01-aaaaaa") -> asyncio.Task[bool]:
    return asyncio.get_running_loop().create_task(gc.submit(gid, cid, b"{}", 1))


def test_a_lone_command_is_sent_at_once_and_alone() -> None:
    async def go() -> None:
        sends = Sends()
        sends.hold = False
        gc = GroupCommit(sends.send, 64, lambda gid: "commands")
        assert await gc.submit("p01-aaaaaa", "c1", b"{}", 1) is True
        assert sends.batches == [["c1"]]
        assert await gc.submit("p01-aaaaaa", "c2", b"{}", 1) is True  # idle again: alone again
        assert sends.batches == [["c1"], ["c2"]]
        assert (gc.sizes.count, gc.sizes.sum) == (2, 2)

    asyncio.run(go())


def test_commands_arriving_during_a_send_go_together_in_the_next_message_within_the_bound() -> None:
    async def go() -> None:
        sends = Sends()
        gc = GroupCommit(sends.send, 3, lambda gid: "commands")
        first = submit(gc, "c0")
        await settle()
        assert sends.batches == [["c0"]]  # sent before anything else arrived
        later = [submit(gc, f"c{i}") for i in range(1, 8)]
        await settle()
        assert sends.batches == [["c0"]]  # nothing more leaves while c0's send is in flight
        sends.release()
        await settle()
        assert first.done() and first.result() is True
        # The next message took the first three that waited, in arrival order.
        assert sends.batches[1] == ["c1", "c2", "c3"]
        while not all(t.done() for t in later):
            sends.release()
            await settle()
        assert sends.batches == [["c0"], ["c1", "c2", "c3"], ["c4", "c5", "c6"], ["c7"]]
        assert [t.result() for t in later] == [True] * 7
        assert gc.sizes.buckets[:3] == [2, 0, 2]  # sizes 1, 1 | none of 2 | 3, 3 (buckets <=1, <=2, <=4)

    asyncio.run(go())


def test_each_command_gets_its_own_answer_and_a_failed_send_fails_only_its_batch() -> None:
    async def go() -> None:
        sends = Sends()
        gc = GroupCommit(sends.send, 64, lambda gid: "commands")
        first = submit(gc, "c0")
        await settle()
        a, old = submit(gc, "a"), submit(gc, "old")
        await settle()
        sends.release()
        await settle()
        sends.release()
        await settle()
        assert (a.result(), old.result()) == (True, False)  # False: its id was queued before

        async def failing(items: Sequence[Queued]) -> list[bool]:
            await asyncio.sleep(0)
            raise ConnectionError("Redis is away")

        gc.send = failing
        with pytest.raises(ConnectionError):
            await gc.submit("p01-aaaaaa", "x", b"{}", 1)
        gc.send = sends.send
        sends.hold = False
        assert await gc.submit("p01-aaaaaa", "y", b"{}", 1) is True  # the line goes on
        assert first.result() is True

    asyncio.run(go())


def test_partitions_have_lines_of_their_own() -> None:
    async def go() -> None:
        sends = Sends()
        gc = GroupCommit(sends.send, 64, lambda gid: gid[:3])
        submit(gc, "a0", "p01-aaaaaa")
        submit(gc, "b0", "p02-bbbbbb")  # another partition is idle: sent at once too
        await settle()
        assert sends.batches == [["a0"], ["b0"]]
        sends.release()
        await settle()

    asyncio.run(go())


def test_a_request_gone_before_its_turn_is_not_sent() -> None:
    async def go() -> None:
        sends = Sends()
        gc = GroupCommit(sends.send, 64, lambda gid: "commands")
        submit(gc, "c0")
        await settle()
        gone, kept = submit(gc, "gone"), submit(gc, "kept")
        await settle()
        gone.cancel()
        await settle()
        sends.release()
        await settle()
        sends.release()
        await settle()
        assert sends.batches == [["c0"], ["kept"]] and kept.result() is True

    asyncio.run(go())


def test_the_bound_is_at_least_one() -> None:
    async def send(items: Sequence[Queued]) -> list[bool]:
        return [True] * len(items)

    with pytest.raises(ValueError):
        GroupCommit(send, 0, lambda gid: "commands")


def test_the_batch_sizes_read_as_a_prometheus_histogram() -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from events.store.groupcommit import BatchSizes
    from service.api.metrics import BatchCollector

    sizes = BatchSizes()
    for n in (1, 1, 3, 64, 300):
        sizes.observe(n)
    registry = CollectorRegistry()
    registry.register(BatchCollector(sizes))
    text = generate_latest(registry).decode()
    assert 'boardlog_command_batch_size_bucket{le="1"} 2.0' in text
    assert 'boardlog_command_batch_size_bucket{le="4"} 3.0' in text
    assert 'boardlog_command_batch_size_bucket{le="64"} 4.0' in text
    assert 'boardlog_command_batch_size_bucket{le="+Inf"} 5.0' in text
    assert "boardlog_command_batch_size_count 5.0" in text and "boardlog_command_batch_size_sum 369.0" in text
