"""The deadlines worker's decisions in one process over a real Redis, with its clock given: a new
game's first clock is set, each running deadline is scheduled once per clock, a deadline that
arrives early waits again, one set for an older clock is a no-op, and a timeout refused as
early (a command worker whose clock ran behind) is sent again under the next id."""

from __future__ import annotations

import secrets
import time
from typing import Any

import pytest

from events.domain.platform import clock as clockmod
from events.domain.platform.clock import clock_of, to_ms
from events.store.layout import new_game_id
from events.store.store import EventStore
from rules.core import Command, SeatInfo, get_game
from service.usecases.matches import store_match
from tests.conftest import wait_for
from workers.commands import CommandHandler
from workers.deadlines import Deadlines

pytestmark = pytest.mark.integration


class Recorder:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.handler = CommandHandler(store)
        self.submitted: list[tuple[str, Command]] = []
        self.scheduled: list[tuple[int, int, str, int]] = []

    def submit(self, gid: str, cid: str, command: Command) -> None:
        self.submitted.append((cid, command))
        self.store.put_pending(gid, cid, command.to_json())
        self.handler.handle(gid, cid)  # as the commands actor would, at once

    def schedule(self, gid: str, clock_seq: int, seat: int, kind: str, delay_ms: int) -> None:
        self.scheduled.append((clock_seq, seat, kind, delay_ms))


def _game(store: EventStore, clock: dict[str, Any]) -> str:
    clockmod.allow_seconds(1)
    try:
        gid = new_game_id(store.partitions)
        store_match(store, gid, get_game("race"), [SeatInfo(0, "ann"), SeatInfo(1, "bob")],
                    {"target": 1000, "clock": clock}, secrets.token_bytes(32), ["", ""], {}, "2026-12-01T10:00:00.000Z")
    finally:
        clockmod.allow_seconds(clockmod.MIN_SECONDS)
    return gid


def test_the_worker_sets_schedules_and_fires_each_deadline_once(store: EventStore) -> None:
    rec = Recorder(store)
    # The worker's clock runs `shift` seconds from the real one (the command worker's, which
    # stamps the envelopes): None is the real time.
    shift: list[float | None] = [None]
    d = Deadlines(store, rec.submit, rec.schedule, "test",
                  clock=lambda: time.time() if shift[0] is None else shift[0])
    gid = _game(store, {"per_move": 2, "reminder": 1, "on_timeout": "pause"})
    d.catch_up(gid)
    assert [c.type for _, c in rec.submitted] == ["boardlog.clock"]  # the first prompt's clock
    match = d.cache.refresh(gid).match
    clock = clock_of(match)
    deadline = to_ms(dict(clock.deadlines)[0])
    shift[0] = (deadline - 2000) / 1000
    assert d.catch_up(gid) == 2  # the timeout and the reminder
    assert sorted(k for _, _, k, _ in rec.scheduled) == ["remind", "timeout"]
    assert dict((k, ms) for _, _, k, ms in rec.scheduled) == {"timeout": 2050, "remind": 1050}
    assert d.catch_up(gid) == 0  # once per clock
    # Early: it waits again for what is left.
    shift[0] = (deadline - 1000) / 1000
    assert d.fire(gid, clock.seq, 0, "timeout") == "early"
    assert rec.scheduled[-1] == (clock.seq, 0, "timeout", 1050)
    # An older clock's deadline: nothing.
    assert d.fire(gid, clock.seq - 1, 0, "timeout") == "moved_on"
    # Refused as early once (a command worker whose clock ran behind): the next try's id.
    first_id = store.platform_id(gid, f"timeout-{clock.seq}-0")
    store.reject(gid, first_id, {"id": first_id, "status": "rejected",
                                                  "code": "deadline_not_reached", "http": 422, "message": "early"})
    shift[0] = None
    wait_for(lambda: time.time() * 1000 > deadline + 60, timeout=10)
    assert d.fire(gid, clock.seq, 0, "timeout") == "submitted"
    assert rec.submitted[-1][0] == store.platform_id(gid, f"timeout-{clock.seq}-0-2")
    kinds = [e.type for e in store.read(gid, 1)]
    assert kinds.count("boardlog.TurnTimedOut") == 1
    # Fired again (a second worker, a redelivery): the same id, applied once.
    assert d.fire(gid, clock.seq, 0, "timeout") == "moved_on"  # the pause set the clock again
    assert [e.type for e in store.read(gid, 1)].count("boardlog.TurnTimedOut") == 1


def test_an_idle_game_gets_one_message_a_move_and_ends_as_abandoned(store: EventStore) -> None:
    from events.domain.platform.clock import to_iso

    rec = Recorder(store)
    shift: list[float | None] = [None]
    d = Deadlines(store, rec.submit, rec.schedule, "test", idle_after_s=2,
                  clock=lambda: time.time() if shift[0] is None else shift[0])
    gid = new_game_id(store.partitions)
    created = time.time()
    # No clock: a game nobody moves in ends all the same.
    store_match(store, gid, get_game("race"), [SeatInfo(0, "ann"), SeatInfo(1, "bob")], {"target": 1000},
                secrets.token_bytes(32), ["", ""], {}, to_iso(int(created * 1000)))
    shift[0] = created
    d.catch_up(gid)
    assert [(since, seat, kind) for since, seat, kind, _ in rec.scheduled] == [(1, -1, "idle")]
    assert 1900 <= rec.scheduled[0][3] <= 2100  # due 2 s after the game was set up
    d.catch_up(gid)
    assert len(rec.scheduled) == 1  # once a move
    # A move: a new message for it; the old one is a no-op when it fires.
    rec.submit(gid, "roll-1", Command("race.roll", {}, 0))
    moved = next(e for e in store.read(gid, 1) if e.data.get("id") == "roll-1")
    d.catch_up(gid)
    assert rec.scheduled[-1][:3] == (moved.seq, -1, "idle")
    shift[0] = None
    assert d.fire(gid, 1, -1, "idle") == "moved_on"
    # Early (the worker's clock before the move's time plus the idle time): it waits again.
    shift[0] = to_ms(moved.at) / 1000 + 1
    assert d.fire(gid, moved.seq, -1, "idle") == "early"
    shift[0] = None
    wait_for(lambda: time.time() * 1000 > to_ms(moved.at) + 2100, timeout=10)
    assert d.fire(gid, moved.seq, -1, "idle") == "submitted"
    assert rec.submitted[-1][0] == store.platform_id(gid, f"idle-{moved.seq}")
    envs = store.read(gid, 1)
    assert [e.type for e in envs][-2:] == ["boardlog.GameAbandoned", "boardlog.SeedRevealed"]
    ended = envs[-2].data
    assert (ended["since"], ended["moved_at"], ended["after"]) == (moved.seq, moved.at, 2)
    match = d.cache.refresh(gid).match
    out = match.outcome()
    assert out is not None and out.winners == () and out.reason == "abandoned: no seat moved for 2 seconds"
    # Over: fired again it does nothing, and nothing more is scheduled.
    assert d.fire(gid, moved.seq, -1, "idle") == "moved_on"
    n = len(rec.scheduled)
    d.catch_up(gid)
    assert len(rec.scheduled) == n
