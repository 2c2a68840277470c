"""The lobby: game summaries by last activity, merged from the partitions' sorted sets a page
at a time, reading only as many summaries as the page needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from events.records.codec import loads
from events.store.store import EventStore

# Candidates looked at in one request before it answers with what it found and a cursor
# (a filter that matches few games must not make one request read every summary).
MAX_SCAN = 2000


@dataclass(frozen=True, slots=True, order=True)
class Cursor:
    """A place in the lobby's order (last activity, then game id, both descending)."""

    score: int
    gid: str

    def encode(self) -> str:
        return f"{self.score}:{self.gid}"

    @classmethod
    def decode(cls, text: str) -> Cursor:
        score, sep, gid = text.partition(":")
        if not sep or not gid or not score.lstrip("-").isdigit():
            raise ValueError(f"not a lobby cursor: {text!r}")
        return cls(int(score), gid)


def _after(store: EventStore, cursor: Cursor | None, per: int) -> tuple[list[Cursor], Cursor | None]:
    """Up to `per` entries of each partition after `cursor`, merged in lobby order, cut where a
    partition may hold entries not read yet; and whether (and from where) more may follow."""
    merged: list[Cursor] = []
    bound: Cursor | None = None  # entries below it may be missing: a partition filled its page
    for ties, rows in store.lobby_below(None if cursor is None else cursor.score, per):
        if cursor is not None:  # same last activity as the cursor: only ids below it (they sort after it)
            merged += [c for gid, s in ties if (c := Cursor(s, gid)) < cursor]
        merged += [Cursor(s, gid) for gid, s in rows]
        if len(rows) == per:
            last = Cursor(rows[-1][1], rows[-1][0])
            bound = last if bound is None or last > bound else bound
    merged.sort(reverse=True)
    if bound is not None:
        merged = [c for c in merged if c >= bound]
    return merged, bound


def lobby_rows(
    store: EventStore, limit: int, status: str | None = None, game: str | None = None,
    cursor: Cursor | None = None, max_scan: int = MAX_SCAN,
) -> tuple[list[dict[str, Any]], Cursor | None]:
    """Up to `limit` summaries after `cursor` that match the filters, and the cursor of the
    next page (None: no more games)."""
    filtered = status is not None or game is not None
    # "finished": over (the rules ended it) or aborted (its admin did).
    statuses = None if status is None else {"over", "aborted"} if status == "finished" else {status}
    per = max(8, limit // 4) if not filtered else 100
    rows: list[dict[str, Any]] = []
    scanned = 0
    while True:
        candidates, more = _after(store, cursor, per)
        i = 0
        while i < len(candidates):
            chunk = candidates[i:i + (limit if filtered else limit - len(rows))]
            i += len(chunk)
            for c, raw in zip(chunk, store.summaries([c.gid for c in chunk]), strict=True):
                cursor = c
                scanned += 1
                if raw is None:
                    continue  # in the lobby, not projected yet (a rebuild under way)
                s = loads(raw)
                if (statuses is None or s["status"] in statuses) and (game is None or s["game"] == game):
                    rows.append(s)
                    if len(rows) == limit:
                        end = more is None and c == candidates[-1]
                        return rows, None if end else cursor
            if scanned >= max_scan and (i < len(candidates) or more is not None):
                return rows, cursor
        if more is None:
            return rows, None
