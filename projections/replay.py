"""Replay: the match or a viewer's board after any seq, from the nearest snapshot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.domain.match import COMMAND_ACCEPTED, SEED_REVEALED, Match, fold_match
from events.records.envelope import Envelope
from events.store.store import EventStore
from projections.changes import board_changes, merged_view
from projections.draws import noted_in_words, rederive_command, rederive_setup, seed_matches
from projections.readmodels import redact_envelope, view_of


def match_at(store: EventStore, gid: str, at: int | None = None) -> Match:
    """The match after `at` events (None: the head); KeyError for an unknown game."""
    head = store.head(gid)
    if head is None:
        raise KeyError(gid)
    target = head.seq if at is None else min(at, head.seq)
    if target < 1:
        raise ValueError("seq starts at 1")
    snap = store.load_snapshot(gid, target)
    base, start = (None, 1) if snap is None else (snap[1], snap[0] + 1)
    tail = store.read(gid, start, target)
    return fold_match((e.event for e in tail), gid, base)


def replay(store: EventStore, gid: str, at: int | None, viewer: int | None) -> dict[str, Any]:
    return view_of(match_at(store, gid, at), viewer)


def events_for(
    store: EventStore, gid: str, viewer: int | None, start: int = 1, end: int | None = None
) -> list[dict[str, Any]]:
    """The log between two seqs as `viewer` may see it."""
    start = max(start, 1)
    envelopes = store.read(gid, start, end)
    if not envelopes:
        return []
    # Redaction may depend on the state (who holds what), so fold alongside.
    match = match_at(store, gid, start - 1) if start > 1 else None
    out = []
    for env in envelopes:
        match = fold_match([env.event], gid, match)
        seen = redact_envelope(match, env, viewer)
        if seen is not None:
            out.append(seen)
    return out


def full_view(match: Match) -> dict[str, Any]:
    """The board with everything shown (after the end, or for a referee): each seat's pieces and
    rows as their owner sees them (`projections.changes.merged_view`)."""
    out = view_of(match, None)
    if match.state is not None and match.seats:
        rules = match.rules
        out["board"] = merged_view(out["board"], [rules.view(match.state, i) for i in range(len(match.seats))])
    out["full"] = True
    return out


def step_view(store: EventStore, gid: str, seq: int, viewer: int | None, full: bool) -> dict[str, Any]:
    match = match_at(store, gid, seq)
    return full_view(match) if full else view_of(match, viewer)


def replay_step(store: EventStore, gid: str, entries: Sequence[dict[str, Any]], step: int,
                viewer: int | None, full: bool, sub: int | None = None) -> dict[str, Any]:
    """Step `step` (from 1) of the move list `entries` as `viewer` sees it (everything, `full`):
    the entry, the board after it, what changed since the step before, and its draws. With
    `sub` (a seq inside the step), the board after that one event, and what it changed."""
    entry = entries[step - 1]
    first, last = int(entry["seq_from"]), int(entry["seq_to"])
    if sub is not None and not first <= sub <= last:
        raise ValueError(f"step {step} holds seqs {first} to {last}")
    upto = last if sub is None else sub
    since = first - 1 if sub is None else sub - 1
    after = step_view(store, gid, upto, viewer, full)
    before = step_view(store, gid, since, viewer, full) if since >= 1 else None
    changes = board_changes(before, after, entry.get("cells") or [])
    return {"step": step, "steps": len(entries), "seq": upto, "sub": sub, "entry": entry, "view": after,
            "changes": changes, "draws": step_draws(store, gid, entry)}


def step_draws(store: EventStore, gid: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The draws of the command (or set-up) the step's events came from: their index range, the
    outcomes its events record, and, once the seed is revealed, each draw re-derived from it."""
    rng = entry.get("rng")
    out: dict[str, Any] = {"outcomes": list(entry.get("draws") or []), "from": None, "to": None,
                           "status": "none", "noted": []}
    if not isinstance(rng, dict):
        return out
    start, end, seq = int(rng["from"]), int(rng["to"]), int(rng["seq"])
    out.update({"from": start, "to": end})
    if end <= start:
        return out
    head = store.head(gid)
    revealed = _revealed_seed(store, gid) if head is not None and head.status != "active" else None
    if revealed is None:
        out["status"] = "committed"  # drawn from the committed seed; checkable when it is revealed
        return out
    created = store.read(gid, 1, 1)[0]
    if not seed_matches(created, revealed):
        out.update(status="failed", why="the revealed seed does not match the commitment in seq 1")
        return out
    seed = bytes.fromhex(revealed)
    own = one_command(store, gid, seq)
    if seq == 1:
        got = rederive_setup(created, own[1:], seed)
    else:
        got = rederive_command(match_at(store, gid, seq - 1), own[0], own[1:], seed)
    out.update(status="verified" if got["checked"] else "failed", why=got["why"],
               noted=[{**n, "text": noted_in_words(n)} for n in got["draws"]])
    return out


def _revealed_seed(store: EventStore, gid: str) -> str | None:
    head = store.head(gid)
    if head is None:
        return None
    # The reveal is near the end (the command that ended the game appends it last; only what
    # may follow the end, table talk, comes after it): look back from the head a window at a time.
    hi = head.seq
    while hi >= 1:
        lo = max(1, hi - 255)
        for env in reversed(store.read(gid, lo, hi)):
            if env.type == SEED_REVEALED:
                return str(env.data.get("seed", ""))
        hi = lo - 1
    return None


def one_command(store: EventStore, gid: str, seq: int, window: int = 256) -> list[Envelope]:
    """The events one append wrote, from its first (`seq`: a CommandAccepted, or GameCreated)
    up to the next command's."""
    out: list[Envelope] = []
    start = seq
    while True:
        chunk = store.read(gid, start, start + window - 1)
        for env in chunk:
            if env.seq != seq and env.type == COMMAND_ACCEPTED:
                return out
            out.append(env)
        if len(chunk) < window:
            return out
        start += window
