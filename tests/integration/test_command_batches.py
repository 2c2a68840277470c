"""Group commit through real processes, on each broker: one message holding a batch of commands
across several games gives each command its own answer (accepted, rejected, conflicting,
duplicate), keeps the order of one game's commands, leaves every game's record auditable, and
a worker killed -9 right after the batch's write loses nothing and applies nothing twice.

The batch is sent by the test itself (the pending records as the API writes them, then one
`handle_commands` message), so that its make-up is exact whatever the timing;
tests/integration/test_command_queue.py shows the API's group commit making such messages."""

from __future__ import annotations

import signal
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import pytest

from events.domain.match import COMMAND_ACCEPTED
from events.records.chain import verify
from events.store.store import AppendResult, EventStore, GameWrite
from events.store.wire import Links
from service.runtime.bootstrap import load_games
from service.runtime.settings import Settings
from service.usecases.matches import create_match
from tests.conftest import RACE, Stack, wait_for
from tests.integration.helpers import bearer, command, new_race
from tests.support import brokers
from workers.actors import declare_both
from workers.commands import CommandHandler

pytestmark = pytest.mark.integration

broker_stack = brokers.broker_stack  # the stack on each broker: dramatiq's Redis one and RabbitMQ


def send_batch(stack: Stack, pairs: list[tuple[str, str]]) -> None:
    broker = brokers.broker_of(stack.env)
    try:
        declare_both(broker, None).batch.send([[gid, key] for gid, key in pairs])
    finally:
        broker.close()


def queue(store: EventStore, gid: str, seat: int, type_: str = "race.roll", args: dict[str, Any] | None = None,
          expect: int | None = None, comment: str | None = None) -> tuple[str, str]:
    """A command's pending record as the API writes it (keyed `seat:N/<id>`); its (game, key)."""
    key = f"seat:{seat}/{uuid.uuid4()}"
    body: dict[str, Any] = {"type": type_, "args": args or {}, "seat": seat, "expect": expect}
    if comment is not None:
        body["comment"] = comment
    assert store.put_pending(gid, key, body, int(time.time() * 1000))
    return gid, key


def seq_of(c: httpx.Client, gid: str, token: str) -> int:
    seq: int = c.get(f"/v1/games/{gid}", headers=bearer(token)).json()["seq"]
    return seq


def rolls(store: EventStore, gid: str) -> list[tuple[int | None, str | None]]:
    """(seat, command id) of every die rolled in the game, in order."""
    return [(e.seat, e.command) for e in store.read(gid) if e.type == "race.DieRolled"]


def audited(c: httpx.Client, gid: str, token: str) -> bool:
    report = c.get(f"/v1/games/{gid}/audit", headers=bearer(token))
    assert report.status_code == 200, report.text
    ok: bool = report.json()["ok"]
    return ok


def test_a_mixed_batch_gives_each_command_its_own_answer(broker_stack: Stack, store: EventStore) -> None:
    stack = broker_stack
    with stack.client() as c:
        (a, ta, _), (b, tb, _), (g, tg, _) = new_race(c), new_race(c), new_race(c)
        old = str(uuid.uuid4())
        assert command(c, g, tg[0], cid=old).status_code == 200  # answered before the batch
        sa, sb = seq_of(c, a, ta[0]), seq_of(c, b, tb[0])
        stack.stop("worker")
        a1 = queue(store, a, 0)
        a2 = queue(store, a, 1)  # legal only after a1: the order of one game holds
        a3 = queue(store, a, 1)  # seat 1 again: not its turn
        a4 = queue(store, a, 0, expect=sa)  # the game moved on (a1, a2): a conflict
        b1 = queue(store, b, 1)  # not its turn
        b2 = queue(store, b, 0, expect=sb)  # the expected seq, right
        b3 = queue(store, b, 1, "race.note", {"text": "well rolled"}, comment="gg")
        g1 = queue(store, g, 1)
        again = (g, f"seat:0/{old}")  # a command answered before, named again
        send_batch(stack, [a1, b1, a2, again, a1, a3, b2, g1, a4, b3])
        stack.start("worker", "worker", "--threads", "2")
        keys = [a1, a2, a3, a4, b1, b2, b3, g1, again]
        wait_for(lambda: all(store.result(gid, key) is not None for gid, key in keys), timeout=30)
        got = {key: store.result(gid, key) for gid, key in keys}
        status = {key: (r or {}).get("status") for key, r in got.items()}
        assert [status[k[1]] for k in (a1, a2, a3, a4)] == ["accepted", "accepted", "rejected", "conflict"]
        assert [status[k[1]] for k in (b1, b2, b3)] == ["rejected", "accepted", "accepted"]
        assert status[g1[1]] == "accepted" and status[again[1]] == "accepted"
        first_a1, last_a1 = got[a1[1]]["seq"]  # type: ignore[index]
        assert first_a1 == sa + 1 and got[a2[1]]["seq"][0] == last_a1 + 1  # type: ignore[index]
        assert got[a4[1]]["code"] == "seq_conflict" and got[a4[1]]["seq"] == got[a2[1]]["seq"][1]  # type: ignore[index]
        assert got[b2[1]]["seq"][0] == sb + 1  # type: ignore[index]
        # Each applied once, in the order sent (a1 listed twice is one roll).
        assert rolls(store, a) == [(0, a1[1]), (1, a2[1])]
        assert rolls(store, b) == [(0, b2[1])]
        # b3's comment right after it, under its own id (once).
        after_b3 = [e.command for e in store.read(b, got[b3[1]]["seq"][1] + 1)]  # type: ignore[index]
        assert after_b3 and set(after_b3) == {f"{b3[1]}.comment"}
        assert rolls(store, g) == [(0, f"seat:0/{old}"), (1, g1[1])]
        for gid, key in keys:
            assert store.pending(gid, key) is None  # settled
        # Games a and b were decided and written as a batch, not handed one by one to `handle`.
        assert "command.batch_again" not in (stack.logdir / "worker.log").read_text()  # type: ignore[operator]
        # The answers read over HTTP as each seat's own.
        r = c.get(f"/v1/games/{a}/commands/{a4[1].split('/')[1]}", headers=bearer(ta[0]))
        assert r.status_code == 409 and r.json()["error"]["code"] == "seq_conflict"
        for gid, token in ((a, ta[0]), (b, tb[0]), (g, tg[0])):
            assert audited(c, gid, token)
        # The games go on from where the batch left them.
        assert command(c, a, ta[0]).status_code == 200 and command(c, b, tb[1]).status_code == 200


def test_a_worker_killed_after_a_batch_write_loses_nothing_and_applies_nothing_twice(
    broker_stack: Stack, store: EventStore
) -> None:
    stack = broker_stack
    stack.stop("worker")
    stack.start("crashy", "worker", "--threads", "1", BOARDLOG_TEST_CRASH_AFTER_APPEND="1")
    with stack.client() as c:
        games = [new_race(c) for _ in range(3)]
        sent = [queue(store, games[0][0], 0, comment="good luck"), queue(store, games[1][0], 0),
                queue(store, games[0][0], 1), queue(store, games[2][0], 1), queue(store, games[2][0], 0)]
        send_batch(stack, sent)
        crashy = stack.procs["crashy"]
        wait_for(lambda: crashy.poll() is not None, timeout=15)
        assert crashy.returncode == -signal.SIGKILL
        # The write landed whole before the kill: every command answered and settled, no worker up.
        answers = [store.result(gid, key) for gid, key in sent]
        assert [(x or {}).get("status") for x in answers] == ["accepted", "accepted", "accepted", "rejected", "accepted"]
        assert all(store.pending(gid, key) is None for gid, key in sent)
        before = {gid: len(store.read(gid)) for gid, _, _ in games}
        stack.stop("crashy")
        # A healthy worker takes the unacknowledged message again and decides nothing again.
        stack.start("worker", "worker", "--threads", "2")
        log = stack.logdir / "worker.log"  # type: ignore[operator]
        wait_for(lambda: log.read_text().count("command.already_answered") >= len(sent), timeout=40, interval=0.2)
        assert {gid: len(store.read(gid)) for gid, _, _ in games} == before
        assert [store.result(gid, key) for gid, key in sent] == answers
        a = games[0][0]
        assert rolls(store, a) == [(0, sent[0][1]), (1, sent[2][1])]
        posts = [e for e in store.read(a) if e.command == f"{sent[0][1]}.comment" and e.type == COMMAND_ACCEPTED]
        assert len(posts) == 1 and posts[0].seq == answers[0]["seq"][1] + 1  # type: ignore[index]
        for gid, tokens, _ in games:
            assert audited(c, gid, tokens[0])
        nxt = command(c, games[1][0], games[1][1][1])
        assert nxt.status_code == 200, nxt.text


# Each (seat, type, args) in order; a dispute names its seq relative to the game's start (+1:
# the first command's CommandAccepted), so it lands on a command of the same batch.
SEQUENCE: list[tuple[int, str, dict[str, Any]]] = [
    (0, "race.roll", {}),
    (1, "boardlog.dispute", {"seq": 1, "note": "that die was loaded"}),
    (1, "race.roll", {}),
    (0, "boardlog.post", {"text": "hello"}),
    (0, "race.roll", {}),
    (1, "boardlog.dispute", {"seq": 3, "note": "and that one"}),
]


def test_a_batch_answers_every_command_as_one_at_a_time_would(store: EventStore) -> None:
    """The same commands in two games: one batch in the first, one message each in the second;
    the same answers (status, code, seqs) and the same kinds of events. A dispute decided in the
    batch reads the game's past at a seq the batch itself decided (not yet written)."""
    load_games(Settings(extra_games=(RACE,)))
    handler = CommandHandler(store)
    games: dict[str, tuple[str, int, list[str]]] = {}
    for how in ("batch", "single"):
        gid = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})["id"]
        start = handler.cache.get(gid).match.seq
        sent = []
        for seat, type_, args in SEQUENCE:
            if type_ == "boardlog.dispute":
                args = {**args, "seq": start + args["seq"]}
            sent.append(queue(store, gid, seat, type_, args))
        if how == "batch":
            handler.handle_batch(sent)
        else:
            for g, key in sent:
                handler.handle(g, key)
        games[how] = (gid, start, [key for _, key in sent])

    def answers(how: str) -> list[tuple[Any, ...]]:
        gid, start, keys = games[how]
        out = []
        for key in keys:
            r = store.result(gid, key) or {}
            seqs = r.get("seq")
            shifted = [s - start for s in seqs] if isinstance(seqs, list) else (seqs or 0) - start
            out.append((r.get("status"), r.get("code"), shifted))
        return out

    assert answers("batch") == answers("single")
    # The dispute on the batch's own first roll was opened (the game then waits for its ruling).
    assert [a[0] for a in answers("batch")][:2] == ["accepted", "accepted"]
    kinds = {how: [e.type for e in store.read(gid, start + 1)] for how, (gid, start, _) in games.items()}
    assert kinds["batch"] == kinds["single"]


class WriteAfter(EventStore):
    """The event store, with something done (another worker's command) just before this worker
    writes its batch: the interleaving two worker processes may meet, made certain."""

    def __init__(self, store: EventStore, first: Callable[[], object]) -> None:
        super().__init__(store.r, store.ns, store.partitions)
        self.first: Callable[[], object] | None = first

    def _other_first(self) -> None:
        if self.first is not None:
            self.first, run = None, self.first
            run()

    def append_games(self, writes: Sequence[GameWrite]) -> list[AppendResult]:
        self._other_first()
        return super().append_games(writes)

    def _send_game(self, links: Links, w: GameWrite) -> tuple[list[Any], list[Any]]:
        # The batch's first game write, sent as soon as that game is decided (GameWrites).
        self._other_first()
        return super()._send_game(links, w)


def test_a_game_another_worker_appended_to_meanwhile_is_decided_again_alone(store: EventStore) -> None:
    """All or nothing per game: the raced game's call writes nothing and its command is decided
    again on the game as it now stands; the other game of the batch is written as decided."""
    load_games(Settings(extra_games=(RACE,)))
    g = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})["id"]
    h = create_match(store, {"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})["id"]
    other = CommandHandler(store)
    z = queue(store, g, 0)  # the other worker's: seat 0 rolls first
    mine = CommandHandler(WriteAfter(store, lambda: other.handle(*z)))
    x, y = queue(store, g, 0), queue(store, h, 0)
    mine.handle_batch([x, y])
    answers = {key: store.result(gid, key) or {} for gid, key in (x, y, z)}
    assert answers[z[1]]["status"] == "accepted" and answers[y[1]]["status"] == "accepted"
    # Decided on the batch's read, x was a roll in turn; decided again, it is seat 1's turn now.
    assert (answers[x[1]]["status"], answers[x[1]]["code"]) == ("rejected", "not_your_turn")
    assert answers[x[1]]["seq"] == answers[z[1]]["seq"][1]
    assert rolls(store, g) == [(0, z[1])] and rolls(store, h) == [(0, y[1])]
    assert verify(store.read(g)) is None and verify(store.read(h)) is None
