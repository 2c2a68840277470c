"""Handling one queued command: load the match, decide, append with the expected seq."""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from typing import Any

import structlog

from events.domain.match import Match, automatic, decide_and_fold, fold_match
from events.domain.platform import Context
from events.domain.platform.talk import POST
from events.domain.wallclock import utcnow
from events.records.chain import seal
from events.records.envelope import Envelope
from events.records.signing import Receipts
from events.records.snapshot import SnapshotError
from events.store.cache import Loaded, MatchCache, Memo
from events.store.store import SNAPSHOT_EVERY, Answered, EventStore, GameWrite
from rules.core import Command, IllegalCommand, InvalidCommand
from workers.conditional import Due, QueuedAnswers

log = structlog.get_logger("boardlog.worker")

MAX_TRIES = 100
AUTOMATIC_LIMIT = 100


class _Game:
    """One game's commands of a batch as they are decided: the match as it stands after those
    decided so far (`item`), and what the game's one write will hold."""

    __slots__ = ("answers", "base", "first", "gid", "item", "logs", "sealed", "seed")

    def __init__(self, gid: str, item: Loaded, seed: bytes) -> None:
        self.gid, self.item, self.seed = gid, item, seed
        self.first = item.match  # the match at `base`, as the stream holds it
        self.base = item.match.seq
        self.sealed: list[Envelope] = []  # the events decided so far, not yet written
        self.answers: list[Answered] = []
        self.logs: list[tuple[str, str, dict[str, Any]]] = []  # level, event, fields: said once the write stands


class CommandHandler:
    """Runs queued commands; safe to run twice for the same command id."""

    def __init__(self, store: EventStore, cache: MatchCache | None = None, signer: Receipts | None = None,
                 queued: QueuedAnswers | None = None) -> None:
        self.store = store
        self.cache = cache or MatchCache(store)
        self.signer = signer  # signs each accepted command's receipt
        # The seats' conditional moves (private, not in the log), telling a seat of its queue dropped.
        self.queued = queued or QueuedAnswers(store)
        # the games' secret seeds, for the games worked on last (a game's seed never changes)
        self.seed: Memo[str, bytes] = Memo(store.seed)
        # Fault injection for the crash-after-append test; never set in production.
        self._crash_after_append = os.environ.get("BOARDLOG_TEST_CRASH_AFTER_APPEND") == "1"

    def handle(self, gid: str, cid: str) -> dict[str, Any] | None:
        cached = self.cache.peek(gid)
        # With several workers the cached match is often a command or two behind: read the
        # tail with the command, so the first decide is on the current state.
        pending, answer, tail = self.store.pending_and_tail(gid, cid, None if cached is None else cached.match.seq)
        if answer is not None or pending is None:
            # Already answered (a redelivery after the append) or never queued.
            log.info("command.already_answered", game=gid, command=cid, found=answer is not None,
                     seq=(answer or {}).get("seq"))
            if answer is not None and pending is not None:
                self._comment(gid, cid, pending, answer, self.cache.refresh(gid))
                self._settle_late(gid, cid, answer, pending.get("reply") or "")
            if answer is not None:
                # A redelivery after a crash between the append and the platform's own answers.
                self._automatic(gid, self.cache.refresh(gid))
            return answer
        if cached is not None:
            self.cache.catch_up(gid, cached, tail)
        bound = log.bind(game=gid, command=cid, type=pending.get("type"))
        command = Command(pending["type"], pending.get("args") or {}, pending.get("seat"))
        expect = pending.get("expect")
        reply = pending.get("reply") or ""  # the API channel its waiter listens on, if any
        item = self.cache.get(gid)
        seed = self.seed(gid)
        for _ in range(MAX_TRIES):
            match = item.match
            if expect is not None and expect != match.seq:
                fresh = self.cache.refresh(gid)
                if fresh.match.seq != match.seq:
                    item = fresh
                    continue
                bound.info("command.conflict", seq=match.seq, expect=expect)
                return self.store.reject(gid, cid, {
                    "id": cid, "seat": command.seat, "status": "conflict", "code": "seq_conflict", "http": 409,
                    "message": f"expected seq {expect}, the game is at seq {match.seq}",
                    "seq": match.seq,
                }, reply)
            at = utcnow()  # one time for the envelopes and for a platform command's own reading
            try:
                events, after = decide_and_fold(match, command, cid, seed, self._context(gid, at))
            except (IllegalCommand, InvalidCommand) as e:
                fresh = self.cache.refresh(gid)
                if fresh.match.seq != match.seq:
                    item = fresh  # the rules may say yes on the current state
                    continue
                bound.info("command.rejected", seq=match.seq, code=e.code)
                return self.store.reject(gid, cid, {
                    "id": cid, "seat": command.seat, "status": "rejected", "code": e.code, "message": e.message,
                    "http": 422, "seq": match.seq,
                }, reply)
            except Exception:
                # A bug in the rules. decide and evolve are pure, so a retry on this state fails
                # the same way and only keeps the client waiting: answer now, change nothing.
                bound.exception("command.failed", seq=match.seq)
                return self.store.reject(gid, cid, {
                    "id": cid, "seat": command.seat, "status": "failed", "code": "internal_error", "http": 500,
                    "message": "the rules failed on this command (a bug, logged); it changed nothing",
                    "seq": match.seq,
                }, reply)
            first = match.seq + 1
            envelopes = seal(gid, first, item.hash, events, cid, at)
            # The seat it came from: GET .../commands/{cid} shows a seat only its own commands.
            result = self._signed({"id": cid, "seat": command.seat, "status": "accepted", "http": 200,
                                   "seq": [first, envelopes[-1].seq]}, gid, envelopes[-1], reply)
            # Settled by the append itself unless something must come between: a comment, posted
            # before the queued body goes (a worker killed between the two posts it on the
            # redelivery), or a new status, which `settle` records before the waiter hears.
            inline = not isinstance(pending.get("comment"), str) and after.status == match.status
            res = self.store.append(gid, match.seq, envelopes, cid, result, reply if inline else None)
            if res.status == "ok":
                if self._crash_after_append:
                    os.kill(os.getpid(), signal.SIGKILL)
                private = res.private
                done = Loaded(after, envelopes[-1].hash, envelopes[-1].at)
                if not inline:
                    done, commented = self._comment(gid, cid, pending, result, done)
                    private = private or commented
                    self.store.settle(gid, cid, result, reply, done.match.status if done.match.status != match.status
                                      else None)
                self.cache.put(gid, done)
                if done.match.seq // SNAPSHOT_EVERY > match.seq // SNAPSHOT_EVERY:
                    self._snapshot(gid, done.match)
                bound.debug("command.accepted", seq=after.seq, events=len(events))  # debug: see _decide
                self._automatic(gid, done, private)
                return result
            if res.status == "dup":
                assert res.prior is not None
                self._settle_late(gid, cid, res.prior, reply)
                bound.info("command.duplicate", seq=res.prior.get("seq"))
                return res.prior
            item = self.cache.refresh(gid)  # someone else appended first: decide again
        raise RuntimeError(f"command {cid} on {gid} kept conflicting after {MAX_TRIES} tries")

    def handle_batch(self, commands: Sequence[tuple[str, str]]) -> None:
        """A batch of commands (the API's group commit) in arrival order: each decided against its
        game as the commands before it left it; each game's events, answers and wake-ups are
        written by one all-or-nothing call, sent as soon as that game is decided (its waiters
        hear while the next game is decided), and the calls' replies read after the last one
        (`GameWrites`: one wait for the batch, as one round trip). A game whose call wrote
        nothing (another worker appended first, or a command of it was answered meanwhile), or
        whose commands are not all fresh (a redelivery), is handled one command at a time, in
        order, by `handle`, exactly as a message of one command."""
        order: dict[tuple[str, str], None] = dict.fromkeys(commands)  # a repeated id: its first place
        pairs = list(order)
        log.debug("command.batch", size=len(pairs))
        games: dict[str, list[int]] = {}
        for i, (gid, _) in enumerate(pairs):
            games.setdefault(gid, []).append(i)
        cached = {gid: self.cache.peek(gid) for gid in games}
        heads = self.store.batch_heads(pairs, {gid: None if c is None else c.match.seq for gid, c in cached.items()})
        # Each game's write goes as soon as it is decided; the outcomes are read after the last.
        writes = self.store.game_writes()
        decided: list[_Game] = []
        one_by_one: list[str] = []
        for gid, at in games.items():
            if any(heads.answers[i] is not None or heads.pending[i] is None for i in at):
                one_by_one.append(gid)  # answered already (a redelivery) or never queued
                continue
            c = cached[gid]
            try:
                item = self.cache.get(gid) if c is None else self.cache.catch_up(gid, c, heads.tails[gid])
            except KeyError:
                one_by_one.append(gid)  # no such game: `handle` answers each as it always did
                continue
            game = _Game(gid, item, self.seed(gid))
            for i in at:
                pending = heads.pending[i]
                assert pending is not None
                self._decide(game, pairs[i][1], pending)
            decided.append(game)
            status = game.item.match.status
            writes.send(GameWrite(gid, game.base, game.answers, status if status != item.match.status else None))
        outcomes = writes.outcomes()
        if self._crash_after_append and any(o.status == "ok" for o in outcomes):
            os.kill(os.getpid(), signal.SIGKILL)
        for game, res in zip(decided, outcomes, strict=True):
            if res.status != "ok":
                # Nothing of it was written; the cached match is the stream's as read, not as decided.
                log.info("command.batch_again", game=game.gid, found=res.status, seq=res.seq)
                one_by_one.append(game.gid)
                continue
            for level, event, fields in game.logs:
                getattr(log, level)(event, game=game.gid, **fields)
            done = game.item
            self.cache.put(game.gid, done)
            if done.match.seq // SNAPSHOT_EVERY > game.base // SNAPSHOT_EVERY:
                self._snapshot(game.gid, done.match)
            if res.private:
                # A seat's queued conditional move (read from its private hash): after the write,
                # as after any command whose worker another's command raced.
                self._automatic(game.gid, done, True)
        for gid in one_by_one:
            for i in games[gid]:
                self.handle(gid, pairs[i][1])

    def _decide(self, game: _Game, cid: str, pending: dict[str, Any]) -> None:
        """Decide one command of a batch on `game` as it stands, adding its answer (and with an
        accepted one its comment and the platform's automatic commands) to the game's write."""
        gid, match = game.gid, game.item.match
        command = Command(pending["type"], pending.get("args") or {}, pending.get("seat"))
        expect, reply = pending.get("expect"), pending.get("reply") or ""
        if expect is not None and expect != match.seq:
            game.logs.append(("info", "command.conflict", {"command": cid, "seq": match.seq, "expect": expect}))
            game.answers.append(Answered(cid, {
                "id": cid, "seat": command.seat, "status": "conflict", "code": "seq_conflict", "http": 409,
                "message": f"expected seq {expect}, the game is at seq {match.seq}", "seq": match.seq,
            }, reply, refused=True))
            return
        at = utcnow()
        try:
            events, after = decide_and_fold(match, command, cid, game.seed, self._batch_context(game, at))
        except (IllegalCommand, InvalidCommand) as e:
            game.logs.append(("info", "command.rejected", {"command": cid, "seq": match.seq, "code": e.code}))
            game.answers.append(Answered(cid, {
                "id": cid, "seat": command.seat, "status": "rejected", "code": e.code, "message": e.message,
                "http": 422, "seq": match.seq,
            }, reply, refused=True))
            return
        except Exception:
            log.exception("command.failed", game=gid, command=cid, seq=match.seq)
            game.answers.append(Answered(cid, {
                "id": cid, "seat": command.seat, "status": "failed", "code": "internal_error", "http": 500,
                "message": "the rules failed on this command (a bug, logged); it changed nothing", "seq": match.seq,
            }, reply, refused=True))
            return
        first = match.seq + 1
        envelopes = seal(gid, first, game.item.hash, events, cid, at)
        last = envelopes[-1]
        result = self._signed({"id": cid, "seat": command.seat, "status": "accepted", "http": 200,
                               "seq": [first, last.seq]}, gid, last, reply)
        game.answers.append(Answered(cid, result, reply, envelopes))
        game.sealed += envelopes
        game.item = Loaded(after, last.hash, last.at)
        # At debug, refusals at info: the event log already holds every accepted command, and a
        # JSON line each cost ~11 us of the worker's CPU a command (BOARDLOG_LOG_LEVEL=debug).
        game.logs.append(("debug", "command.accepted", {"command": cid, "type": command.type, "seq": after.seq,
                                                        "events": len(events)}))
        text = pending.get("comment")
        if isinstance(text, str) and command.seat is not None:
            # The seat's message beside it, right after it, under `<cid>.comment` (see `_comment`).
            self._platform(game, f"{cid}.comment", Command(POST, {"text": text, "on": first}, command.seat),
                           "command.comment_refused", cid)
        for _ in range(AUTOMATIC_LIMIT):
            due = automatic(game.item.match)
            if due is None:
                break
            part, auto = due
            mid = self.store.platform_id(gid, f"auto-{game.item.match.seq}-{part}")
            if not self._platform(game, mid, auto, "command.automatic_refused", mid):
                break

    def _platform(self, game: _Game, mid: str, command: Command, refused: str, about: str) -> bool:
        """A command of the platform's own in a batch (a comment, an automatic command): added
        to the game's write when the rules take it; a refusal only logged (nobody waits on it)."""
        match, at = game.item.match, utcnow()
        try:
            events, after = decide_and_fold(match, command, mid, game.seed, self._batch_context(game, at))
        except (IllegalCommand, InvalidCommand) as e:
            log.warning(refused, game=game.gid, command=about, type=command.type, code=e.code)
            return False
        first = match.seq + 1
        envelopes = seal(game.gid, first, game.item.hash, events, mid, at)
        game.answers.append(Answered(mid, {"id": mid, "seat": command.seat, "status": "accepted", "http": 200,
                                           "seq": [first, envelopes[-1].seq]}, "", envelopes))
        game.sealed += envelopes
        game.item = Loaded(after, envelopes[-1].hash, envelopes[-1].at)
        return True

    def _batch_context(self, game: _Game, at: str) -> Context:
        """`_context` for a command of a batch: a past match (a takeback's, a dispute's) after a
        seq the batch decided but has not written yet is folded from the batch's own events, not
        read from the store (which would answer its head for a seq past it)."""
        def match_at(seq: int) -> Match:
            if seq <= game.base:
                from projections.replay import match_at as load  # the store's past

                return load(self.store, game.gid, seq)
            return fold_match((e.event for e in game.sealed if e.seq <= seq), game.gid, game.first)

        return Context(at=at, match_at=match_at)

    def _context(self, gid: str, at: str) -> Context:
        def match_at(seq: int) -> Match:
            from projections.replay import match_at as load  # the store's past, for takebacks

            return load(self.store, gid, seq)

        return Context(at=at, match_at=match_at)

    def _automatic(self, gid: str, item: Loaded, private: bool = True, limit: int = 100) -> None:
        """Append the commands the platform sends by itself after a command (a resigned seat's
        pass, a queued conditional move), each its own CommandAccepted with a stable id (the
        platform's, `bl-auto-<seq>-<part>-<mac>`), until
        none is due. A race lost to another command stops here: its worker does the same.
        `private`: whether the game's private hash existed after the last append (False: no seat
        has a queue to read)."""
        seed = self.seed(gid)
        for _ in range(limit):
            due = automatic(item.match)
            queued: Due | None = None
            if due is None:
                if not private:
                    return
                # A seat's conditional move: read from its private queue (I/O), hence not a rule.
                queued = self.queued.due(gid, item.match)
                if queued is None:
                    return
                due = queued.part, queued.command
            part, command = due
            # Derived with the deployment's secret (events.store.commandids): no seat can post
            # under it first and have its refusal answer the platform's command.
            match, cid, at = item.match, self.store.platform_id(gid, f"auto-{item.match.seq}-{part}"), utcnow()
            try:
                events, after = decide_and_fold(match, command, cid, seed, self._context(gid, at))
            except (IllegalCommand, InvalidCommand) as e:
                log.warning("command.automatic_refused", game=gid, command=cid, type=command.type, code=e.code)
                if queued is not None:
                    queued.undo()
                return
            first = match.seq + 1
            envelopes = seal(gid, first, item.hash, events, cid, at)
            result = {"id": cid, "seat": command.seat, "status": "accepted", "http": 200,
                      "seq": [first, envelopes[-1].seq]}
            # Nobody waits on an automatic command and it has no queued body: only a new status
            # needs `settle`.
            res = self.store.append(gid, match.seq, envelopes, cid, result)
            if res.status != "ok":
                if queued is not None:
                    queued.undo()
                return
            if after.status != match.status:
                self.store.settle(gid, cid, result, "", after.status)
            private = res.private
            item = Loaded(after, envelopes[-1].hash, envelopes[-1].at)
            self.cache.put(gid, item)
            log.info("command.automatic", game=gid, command=cid, type=command.type, seq=after.seq)

    def _comment(self, gid: str, cid: str, pending: dict[str, Any], answer: dict[str, Any],
                 item: Loaded) -> tuple[Loaded, bool]:
        """The message sent beside an accepted command (`"comment"`), appended as that seat's
        `boardlog.post` right after it, under the id `<cid>.comment` (so at most once: no client id
        holds a dot, so none can take it first); and
        whether the game's private hash existed after that append (False when it made none)."""
        text, seat, seqs = pending.get("comment"), pending.get("seat"), answer.get("seq")
        if not isinstance(text, str) or seat is None or answer.get("status") != "accepted" or not seqs:
            return item, False
        match, mid, at = item.match, f"{cid}.comment", utcnow()
        command = Command(POST, {"text": text, "on": int(seqs[0])}, seat)
        try:
            events, after = decide_and_fold(match, command, mid, self.seed(gid), self._context(gid, at))
        except (IllegalCommand, InvalidCommand) as e:
            log.warning("command.comment_refused", game=gid, command=cid, code=e.code)
            return item, False
        envelopes = seal(gid, match.seq + 1, item.hash, events, mid, at)
        # Unsigned: nobody waits on the comment's own answer (_signed).
        result = {"id": mid, "seat": seat, "status": "accepted", "http": 200,
                  "seq": [match.seq + 1, envelopes[-1].seq]}
        res = self.store.append(gid, match.seq, envelopes, mid, result)
        if res.status != "ok":
            return self.cache.refresh(gid), True  # posted already (a redelivery), or lost to a race
        return Loaded(after, envelopes[-1].hash, envelopes[-1].at), res.private

    def _signed(self, result: dict[str, Any], gid: str, last: Envelope, reply: str) -> dict[str, Any]:
        """The accepted answer with its receipt: the game stood at this seq with this head hash,
        signed, so a player can later prove a record that lacks it was cut or altered.

        Signed only for a waiter (`reply`, the channel its answer is published on): answers are
        stored without their receipts (events.records.compact.result_value), and a read signs
        one again (service/api/receipts.py), so a receipt made for nobody, for a command sent
        with ?wait=0, an automatic one or a comment, was an Ed25519 signature thrown away."""
        if self.signer is not None and reply:
            result["receipt"] = self.signer.receipt(gid, last.seq, last.hash, last.at)
        return result

    def _snapshot(self, gid: str, match: Match) -> None:
        try:
            self.store.save_snapshot(gid, match.seq, match)
        except SnapshotError:
            # A state the codec cannot write (a bug in a game's state types): the command is
            # applied and answered; the game is only folded from its events until it is fixed.
            log.exception("snapshot.unwritable", game=gid, seq=match.seq)

    def _settle_late(self, gid: str, cid: str, answer: dict[str, Any], reply: str) -> None:
        """Settle a command another worker applied and may have stopped before settling,
        recording the game's status as it stands (the command may have ended the game)."""
        self.store.settle(gid, cid, answer, reply, self.cache.refresh(gid).match.status)

    def give_up(self, gid: str, cid: str, tries: int) -> dict[str, Any]:
        """Answer a command whose every try failed (the first answer stands if it has one)."""
        pending = self.store.pending(gid, cid) or {}
        log.error("command.gave_up", game=gid, command=cid, tries=tries, type=pending.get("type"))
        return self.store.reject(gid, cid, {
            "id": cid, "seat": pending.get("seat"), "status": "failed", "code": "internal_error", "http": 500,
            "message": f"the command failed {tries} times (a bug, logged); it changed nothing",
        }, pending.get("reply") or "")
