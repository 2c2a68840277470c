"""Replay: the match or a viewer's board after any seq, from the nearest snapshot."""

from __future__ import annotations

from typing import Any

from events.domain.match import Match, fold_match
from events.redisstore.store import EventStore
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
