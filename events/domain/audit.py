"""The offline audit of an exported game: chain, seed commitment, and every command re-run."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from events.domain.match import (
    COMMAND_ACCEPTED,
    GAME_CREATED,
    SEED_REVEALED,
    Match,
    command_of,
    decide_and_fold,
    fold_match,
)
from events.domain.platform import Context
from events.domain.versions import opening, rules_for
from events.records.chain import verify
from events.records.envelope import Envelope
from events.records.export import Record
from rules.core import Event, IllegalCommand, InvalidCommand


@dataclass
class AuditReport:
    ok: bool
    game: str | None = None
    events: int = 0
    seq: int | None = None  # the first seq that does not hold
    reason: str = ""
    checked: list[str] = field(default_factory=list)
    # Why the commands were not re-run when this build lacks the record's rules version (not a
    # divergence: the record says nothing wrong, this build cannot check it).
    not_rerun: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "game": self.game, "events": self.events, "seq": self.seq,
                "reason": self.reason, "checked": self.checked, "not_rerun": self.not_rerun}

    def line(self) -> str:
        if self.ok:
            return f"OK {self.game}: {self.events} events; checked {', '.join(self.checked)}"
        where = f"seq {self.seq}" if self.seq is not None else "record"
        return f"FAIL {self.game or '?'} at {where}: {self.reason}"


def _same(env: Envelope, e: Event) -> bool:
    # The data as upcast (events/records/upcast.py): an older record reads in today's format.
    return env.type == e.type and dict(env.event.data) == dict(e.data) and env.seat == e.seat


def _describe(env: Envelope, e: Event) -> str:
    return (f"the log has {env.type} {env.data} (seat {env.seat}) where the rules give "
            f"{e.type} {dict(e.data)} (seat {e.seat})")


def audit(record: Record) -> AuditReport:
    rep = AuditReport(ok=False, events=len(record.envelopes))
    if record.problem:
        rep.reason = record.problem
        return rep
    envs = record.envelopes
    if not envs:
        rep.reason = "the record holds no events"
        return rep
    gid = envs[0].game
    rep.game = gid
    brk = verify(envs, gid)
    if brk is not None:
        rep.seq, rep.reason = brk.seq, brk.reason
        return rep
    rep.checked.append("hash chain")
    if record.trailer is not None and (
        record.trailer.get("events") != len(envs) or record.trailer.get("head") != envs[-1].hash
    ):
        rep.reason = "the trailer's event count or head hash does not match the events"
        return rep
    created = envs[0]
    if created.type != GAME_CREATED:
        rep.seq, rep.reason = 1, f"the first event must be {GAME_CREATED}"
        return rep
    reveals = [e for e in envs if e.type == SEED_REVEALED]
    if not reveals:
        rep.ok = True
        rep.reason = "the seed is not revealed yet: draws and commands can be re-run only after the end"
        return rep
    reveal = reveals[0]
    try:
        seed = bytes.fromhex(reveal.data["seed"])
    except (ValueError, KeyError, TypeError):
        rep.seq, rep.reason = reveal.seq, "the revealed seed is not hex"
        return rep
    if hashlib.sha256(seed).hexdigest() != created.data.get("commitment"):
        rep.seq, rep.reason = reveal.seq, "the revealed seed does not match the commitment in seq 1"
        return rep
    if record.trailer is not None and record.trailer.get("seed") not in (None, reveal.data["seed"]):
        rep.reason = "the trailer's seed differs from the revealed one"
        return rep
    rep.checked.append("seed commitment")
    return _rerun(rep, envs, gid, seed)


def _context(envs: list[Envelope], env: Envelope, gid: str) -> Context:
    """What a platform command read when it ran: its envelope's time, and the match after any
    earlier seq folded from the record itself (envs[k] holds seq k + 1)."""
    return Context(at=env.at, match_at=lambda seq: fold_match((e.event for e in envs[:seq]), gid))


def _rerun(rep: AuditReport, envs: list[Envelope], gid: str, seed: bytes) -> AuditReport:
    d = envs[0].event.data
    try:
        game = rules_for(d)  # exactly the rules version the record names
        if isinstance(game, str):
            rep.not_rerun = rep.reason = game
            return rep
        expected = opening(gid, game, d, seed, [e.event for e in envs[:2]])
    except (InvalidCommand, KeyError, TypeError, ValueError) as err:
        rep.seq, rep.reason = 1, f"set-up cannot be re-run: {err}"
        return rep
    for i, e in enumerate(expected):
        if i >= len(envs) or not _same(envs[i], e):
            rep.seq = i + 1
            rep.reason = "set-up differs: " + (_describe(envs[i], e) if i < len(envs) else "events missing")
            return rep
    match: Match = fold_match(expected, gid)
    i = len(expected)
    commands = 0
    while i < len(envs):
        env = envs[i]
        if env.type != COMMAND_ACCEPTED:
            rep.seq, rep.reason = env.seq, f"{env.type} is not the result of any recorded command"
            return rep
        cid = str(env.data.get("id"))
        try:
            produced, after = decide_and_fold(match, command_of(env.event), cid, seed, _context(envs, env, gid))
        except (IllegalCommand, InvalidCommand) as err:
            rep.seq, rep.reason = env.seq, f"the rules reject this command ({err.code}): {err.message}"
            return rep
        except Exception as err:  # a crafted record can feed the rules anything
            rep.seq, rep.reason = env.seq, f"the rules could not run this command: {err!r}"
            return rep
        for j, e in enumerate(produced):
            k = i + j
            if k >= len(envs):
                rep.seq, rep.reason = envs[-1].seq + 1, f"the log ends before {e.type}"
                return rep
            if not _same(envs[k], e):
                rep.seq, rep.reason = envs[k].seq, _describe(envs[k], e)
                return rep
            if envs[k].command != cid:
                rep.seq, rep.reason = envs[k].seq, "event attributed to another command"
                return rep
        match = after  # the rules folded their events as they made them
        i += len(produced)
        commands += 1
    rep.ok = True
    rep.checked += [f"{commands} commands re-run", f"{match.draws} random draws re-derived"]
    return rep
