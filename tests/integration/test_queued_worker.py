"""The worker and the seats' queued answers against a real Redis, without processes: a queued
answer applies once however many workers look (a redelivery, a second worker), an entry taken by
a worker whose append loses a race goes back to the queue, and a queue changed meanwhile is not
played from the version read before."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from events.domain.match import COMMAND_ACCEPTED
from events.store.private import SeatPrivate
from events.store.store import EventStore
from service.usecases.matches import create_match
from workers.commands import CommandHandler
from workers.conditional import QueuedAnswers

pytestmark = pytest.mark.integration


def _rite(store: EventStore) -> tuple[str, list[str]]:
    gid = create_match(store, {"game": "rite", "seats": ["ann", "bob"]})["id"]
    handler = CommandHandler(store)
    match = handler.cache.refresh(gid).match
    rules = match.rules
    knights = [rules.format_text(c) for c in rules.legal_commands(match.state, 0)
               if rules.format_text(c).startswith("summon")]
    return gid, knights


def _send(store: EventStore, handler: CommandHandler, gid: str, cid: str, text: str, seat: int) -> dict[str, Any]:
    game = handler.cache.refresh(gid).match.rules
    command = game.parse_text(text, seat)
    store.put_pending(gid, cid, {**command.to_json(), "expect": None})
    answer = handler.handle(gid, cid)
    assert answer is not None and answer["status"] == "accepted", answer
    return answer


def _accepted_seqs(store: EventStore, gid: str) -> list[int]:
    return [e.seq for e in store.read(gid) if e.type == COMMAND_ACCEPTED
            and not str(e.data["type"]).startswith("boardlog.")]


def _accepted(store: EventStore, gid: str) -> list[tuple[int | None, str]]:
    return [(e.seat, str(e.command)) for e in store.read(gid) if e.type == COMMAND_ACCEPTED
            and not str(e.data["type"]).startswith("boardlog.")]


def _commands_during(store: EventStore, action: Callable[[], object]) -> list[str]:
    """The commands Redis ran on this test's keys, scripts' own included (MONITOR), while `action` ran."""
    seen: list[str] = []
    stop = f"{store.ns}-monitor-stop"

    def watch(m: Any) -> None:
        while True:
            c = m.next_command()
            if stop in c["command"]:
                return
            if store.ns in c["command"] or c["client_type"] == "lua":
                seen.append(c["command"])

    with store.r.monitor() as m:  # MONITOR is on once this returns
        watcher = threading.Thread(target=watch, args=(m,), daemon=True)
        watcher.start()
        action()
        store.r.echo(stop)
        watcher.join(timeout=10)
    assert not watcher.is_alive()
    return seen


def test_the_queues_are_read_only_in_a_game_where_a_seat_has_written_one(store: EventStore) -> None:
    gid, knights = _rite(store)
    handler = CommandHandler(store)
    private = SeatPrivate(store)
    key = private.key(gid)
    ran = _commands_during(store, lambda: _send(store, handler, gid, "k1", knights[0], 0))
    assert f"EXISTS {key}" in ran and not [c for c in ran if c.startswith("HMGET") and key in c], ran
    # Once a seat has written a queue, every command looks (and this one is played).
    private.put(gid, 0, [{"then": "pass"}], since=handler.cache.refresh(gid).match.seq)
    ran = _commands_during(store, lambda: _send(store, handler, gid, "b1", "summon fighter b3", 1))
    assert [c for c in ran if c.startswith("HMGET") and key in c], ran
    assert [s for s, _ in _accepted(store, gid)] == [0, 1, 0]


def test_a_queue_is_saved_only_at_the_seq_it_was_read_at_so_no_command_passes_it_unseen(store: EventStore) -> None:
    """The PUT's race: the API reads seq N and a command lands before its write. Written with
    since=N, the queue would look set before that command, which the worker (seeing no private
    hash at its append) appended without looking; so it is refused and read again."""
    gid, knights = _rite(store)
    handler = CommandHandler(store)
    private = SeatPrivate(store, links=False)
    read_at = handler.cache.refresh(gid).match.seq
    _send(store, handler, gid, "k1", knights[0], 0)  # lands between the read and the write
    assert private.set_at(gid, 1, [{"then": "pass"}], since=read_at) is None
    assert not store.r.exists(private.key(gid))  # nothing written
    now = handler.cache.refresh(gid).match.seq
    assert now > read_at and private.set_at(gid, 1, [{"then": "pass"}], since=now) == 1
    assert private.queue(gid, 1).since == now
    # saved while it is already seat 1's turn: it waits for the seat's next prompt
    _send(store, handler, gid, "b1", "summon fighter b3", 1)
    assert [s for s, _ in _accepted(store, gid)] == [0, 1]
    assert private.queue(gid, 1).entries == [{"then": "pass"}]


def test_a_queued_answer_applies_once_whoever_looks_again(store: EventStore) -> None:
    gid, knights = _rite(store)
    private = SeatPrivate(store)
    private.put(gid, 1, [{"if": knights[0], "then": "summon fighter g4"}])
    a, b = CommandHandler(store), CommandHandler(store)
    answer = _send(store, a, gid, "k1", knights[0], 0)
    last = answer["seq"][1]
    assert _accepted(store, gid) == [(0, "k1"), (1, store.platform_id(gid, f"auto-{last}-queued-1"))]
    # A redelivery of the same command, and another worker with its own cache, add nothing.
    assert a.handle(gid, "k1") == answer
    b._automatic(gid, b.cache.refresh(gid))
    a._automatic(gid, a.cache.refresh(gid))
    assert len(_accepted(store, gid)) == 2
    assert private.queue(gid, 1).entries == []


def test_an_entry_whose_append_loses_goes_back(store: EventStore) -> None:
    gid, knights = _rite(store)
    private = SeatPrivate(store)
    entries = [{"if": knights[0], "then": "summon fighter g4"}]
    private.put(gid, 1, entries)
    handler = CommandHandler(store)
    handler.queued.due = lambda gid, match: None  # type: ignore[method-assign]
    _send(store, handler, gid, "k1", knights[0], 0)
    stale = handler.cache.refresh(gid)
    # Another worker appends first (a chat message of seat 0), then this one tries from the stale match.
    other = CommandHandler(store)
    other.queued.due = lambda gid, match: None  # type: ignore[method-assign]
    store.put_pending(gid, "m1", {"type": "boardlog.post", "args": {"text": "hm"}, "seat": 0, "expect": None})
    assert (other.handle(gid, "m1") or {})["status"] == "accepted"
    fresh = CommandHandler(store)
    fresh._automatic(gid, stale)  # its append conflicts: the entry is put back
    assert private.queue(gid, 1).entries == entries
    assert len(_accepted(store, gid)) == 1
    fresh._automatic(gid, fresh.cache.refresh(gid))  # on the current match it is played
    assert [s for s, _ in _accepted(store, gid)] == [0, 1]


def test_a_queue_changed_since_it_was_read_is_not_played_from_the_old_one(store: EventStore) -> None:
    gid, knights = _rite(store)
    private = SeatPrivate(store)
    private.put(gid, 1, [{"then": "summon fighter g4"}])
    old = private.queue(gid, 1)
    private.put(gid, 1, [{"then": "summon fighter b3"}])
    assert private.put(gid, 1, [], ver=old.ver) is None  # the compare-and-set refuses the old version
    handler = CommandHandler(store)
    _send(store, handler, gid, "k1", knights[0], 0)
    played = [e for e in store.read(gid) if e.type == COMMAND_ACCEPTED and e.seat == 1]
    assert handler.cache.refresh(gid).match.rules.format_text(
        handler.cache.refresh(gid).match.rules.parse_command(played[0].data["type"], played[0].data["args"], 1)) \
        == "summon fighter b3"


def test_a_queue_answers_prompts_in_turn_and_nothing_but_a_move_sets_it_off(store: EventStore) -> None:
    gid, knights = _rite(store)
    private = SeatPrivate(store)
    handler = CommandHandler(store)
    _send(store, handler, gid, "k1", knights[0], 0)  # bob's prompt now, with no queue yet
    # Set while the prompt is bob's already (as the API sets it: at the game's seq now).
    private.put(gid, 1, [{"then": "summon fighter g4"}, {"then": "pass"}], since=handler.cache.refresh(gid).match.seq)
    # Chat moves no prompt: nothing is played or dropped, whoever writes.
    for cid, seat in (("m0", 0), ("m1", 1)):
        store.put_pending(gid, cid, {"type": "boardlog.post", "args": {"text": "hm"}, "seat": seat, "expect": None})
        assert (handler.handle(gid, cid) or {})["status"] == "accepted"
    assert len(private.queue(gid, 1).entries) == 2 and private.queue(gid, 1).dropped is None
    assert _accepted(store, gid) == [(0, "k1")]
    # Bob plays by hand; when the prompt comes back to him after ann's pass, he has only a pass
    # left: the first entry is not legal there, the second is played, and both leave the queue.
    _send(store, handler, gid, "b1", "summon fighter b3", 1)
    _send(store, handler, gid, "a2", "pass", 0)
    played = [cid for s, cid in _accepted(store, gid) if s == 1]
    assert played[0] == "b1" and played[1].startswith("bl-auto-") and "-queued-1-" in played[1] and len(played) == 2
    assert private.queue(gid, 1).entries == [] and private.queue(gid, 1).dropped is None


# --- takebacks (a TakenBack voids the queues it undid the ground of; guards read what is in force)


def _platform(store: EventStore, handler: CommandHandler, gid: str, cid: str, type_: str, seat: int) -> None:
    store.put_pending(gid, cid, {"type": type_, "args": {}, "seat": seat, "expect": None})
    answer = handler.handle(gid, cid)
    assert answer is not None and answer["status"] == "accepted", answer


def _take_back(store: EventStore, handler: CommandHandler, gid: str, seat: int, other: int) -> int:
    """`seat` takes its last command back and `other` accepts; the TakenBack's to_seq."""
    _platform(store, handler, gid, f"tb-{seat}-{handler.cache.refresh(gid).match.seq}", "boardlog.takeback", seat)
    _platform(store, handler, gid, f"ok-{other}-{handler.cache.refresh(gid).match.seq}", "boardlog.accept", other)
    taken = [e for e in store.read(gid) if e.type == "boardlog.TakenBack"]
    assert taken, [e.type for e in store.read(gid)]
    return int(taken[-1].data["to_seq"])


def _telling(store: EventStore) -> tuple[CommandHandler, list[tuple[Any, ...]]]:
    told: list[tuple[Any, ...]] = []
    return CommandHandler(store, queued=QueuedAnswers(store, tell=lambda *a: told.append(a))), told


def test_a_queued_answer_taken_back_drops_the_rest_of_its_queue(store: EventStore) -> None:
    gid, knights = _rite(store)
    private = SeatPrivate(store)
    private.put(gid, 1, [{"if": knights[0], "then": "summon fighter g4"}, {"then": "pass"}])
    handler, told = _telling(store)
    _send(store, handler, gid, "k1", knights[0], 0)
    assert [s for s, _ in _accepted(store, gid)] == [0, 1]  # bob's answer, from his queue
    assert private.queue(gid, 1).played == [_accepted_seqs(store, gid)[1]]
    _take_back(store, handler, gid, 1, 0)
    # The prompt is bob's again, on the move his queued answer answered: the 'pass' he queued for
    # the prompt after it is not played now; the queue is dropped and bob is told.
    assert [s for s, _ in _accepted(store, gid)] == [0, 1]
    left = private.queue(gid, 1)
    assert left.entries == [] and left.dropped is not None and left.dropped["cause"] == "takeback"
    assert left.dropped["entries"] == [{"then": "pass"}] and left.dropped["told"] is True
    assert [(t[0], t[2], t[3]["cause"]) for t in told] == [(gid, 1, "takeback")]
    assert handler.cache.refresh(gid).match.prompt.seats == (1,)  # type: ignore[union-attr]


def test_a_queue_set_on_the_position_a_takeback_returns_to_waits_for_the_next_prompt(store: EventStore) -> None:
    gid, knights = _rite(store)
    private = SeatPrivate(store)
    handler, told = _telling(store)
    _send(store, handler, gid, "k1", knights[0], 0)
    since = handler.cache.refresh(gid).match.seq
    private.put(gid, 1, [{"then": "pass"}], since=since)  # set on bob's turn: for his next prompt
    _send(store, handler, gid, "b1", "summon fighter b3", 1)
    assert _take_back(store, handler, gid, 1, 0) == since
    # Bob's own move is undone: the last command in force is ann's, made before he set the queue,
    # so it waits (an undone move of his own is no new prompt).
    assert [cid for _, cid in _accepted(store, gid)] == ["k1", "b1"]
    assert private.queue(gid, 1).entries == [{"then": "pass"}] and told == []
    _send(store, handler, gid, "b2", "summon fighter g4", 1)
    _send(store, handler, gid, "a2", "pass", 0)
    assert "-queued-1-" in [cid for _, cid in _accepted(store, gid)][-1]  # the platform's id
    assert private.queue(gid, 1).entries == [] and told == []


def test_a_queue_set_after_the_seq_a_takeback_returns_to_is_dropped_and_told(store: EventStore) -> None:
    gid, knights = _rite(store)
    private = SeatPrivate(store)
    handler, told = _telling(store)
    _send(store, handler, gid, "k1", knights[0], 0)
    _send(store, handler, gid, "b1", "summon fighter b3", 1)
    # Ann queues a pass on the position after bob's summon; bob takes his summon back.
    private.put(gid, 0, [{"then": "pass"}], since=handler.cache.refresh(gid).match.seq)
    to_seq = _take_back(store, handler, gid, 1, 0)
    dropped = private.queue(gid, 0).dropped
    assert private.queue(gid, 0).entries == [] and dropped is not None and dropped["cause"] == "takeback"
    assert f"seq {to_seq}" in dropped["reason"] and [t[2] for t in told] == [0]  # ann's, told at once
    # Bob summons elsewhere: ann's pass, planned for the undone line, is not played for her.
    _send(store, handler, gid, "b2", "summon fighter g4", 1)
    assert [cid for s, cid in _accepted(store, gid) if s == 0] == ["k1"]


def test_a_drop_not_told_before_a_worker_died_is_told_on_the_next_look(store: EventStore) -> None:
    gid, knights = _rite(store)
    private = SeatPrivate(store)
    private.put(gid, 1, [{"if": knights[1], "then": "summon fighter b3"}])
    # A worker that drops the queue and dies before telling (its teller raises, as a kill would stop it).
    def dies(*_: Any) -> None:
        raise RuntimeError("killed")

    dying = CommandHandler(store, queued=QueuedAnswers(store, tell=dies))
    store.put_pending(gid, "k1", {**dying.cache.refresh(gid).match.rules.parse_text(knights[0], 0).to_json(),
                                  "expect": None})
    with pytest.raises(RuntimeError):
        dying.handle(gid, "k1")
    assert private.queue(gid, 1).dropped["told"] is False  # type: ignore[index]
    handler, told = _telling(store)
    assert (handler.handle(gid, "k1") or {})["status"] == "accepted"  # the redelivery
    assert [(t[2], t[3]["cause"]) for t in told] == [(1, "no_fit")]
    assert private.queue(gid, 1).dropped["told"] is True  # type: ignore[index]
    handler.handle(gid, "k1")
    assert len(told) == 1


def test_a_guard_is_never_answered_by_a_move_a_voided_dispute_undid(store: EventStore) -> None:
    gid = create_match(store, {"game": "rite", "seats": ["ann", "bob", "carl"]})["id"]
    private = SeatPrivate(store)
    handler, told = _telling(store)

    def summon(seat: int, n: int = 0) -> str:
        match = handler.cache.refresh(gid).match
        rules = match.rules
        return [rules.format_text(c) for c in rules.legal_commands(match.state, seat)
                if rules.format_text(c).startswith("summon")][n]

    _send(store, handler, gid, "a1", summon(0), 0)
    assert handler.cache.refresh(gid).match.prompt.seats == (1,)  # type: ignore[union-attr]
    since = handler.cache.refresh(gid).match.seq
    _send(store, handler, gid, "b1", summon(1), 1)
    bob_disputed = next(e.seq for e in store.read(gid) if e.command == "b1")
    carl = summon(2)
    # Bob, after his move, queues an answer to carl's coming one, for his next prompt.
    private.put(gid, 1, [{"if": carl, "then": "pass"}], since=since)
    _send(store, handler, gid, "c1", carl, 2)
    assert handler.cache.refresh(gid).match.prompt.seats == (0,)  # type: ignore[union-attr]
    # Ann disputes bob's move; bob and carl vote it void: back to seq `since`, bob to play again.
    store.put_pending(gid, "d1", {"type": "boardlog.dispute", "args": {"seq": bob_disputed, "note": "misclick"},
                                  "seat": 0, "expect": None})
    assert (handler.handle(gid, "d1") or {})["status"] == "accepted"
    for seat in (1, 2):
        store.put_pending(gid, f"v{seat}", {"type": "boardlog.resolve", "args": {"verdict": "voided"},
                                            "seat": seat, "expect": None})
        assert (handler.handle(gid, f"v{seat}") or {})["status"] == "accepted"
    taken = [e for e in store.read(gid) if e.type == "boardlog.TakenBack"]
    assert len(taken) == 1 and taken[0].data["to_seq"] == since
    assert handler.cache.refresh(gid).match.prompt.seats == (1,)  # type: ignore[union-attr]
    # Carl's move, the last in the log before bob's prompt, is undone: it answers no guard (and
    # is no new prompt for a queue set on this position), so nothing is played for bob.
    assert [cid for _, cid in _accepted(store, gid)] == ["a1", "b1", "c1"]
    assert private.queue(gid, 1).entries == [{"if": carl, "then": "pass"}] and told == []
