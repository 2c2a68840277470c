"""The lobby: game summaries by last activity, merged from the partitions' sorted sets a page
at a time, reading only as many summaries as the page needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from events.mapping.codec import loads
from events.redisstore.store import EventStore

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
    pipe = store.r.pipeline(transaction=False)
    for p in range(store.partitions):
        key = store.lobby(p)
        if cursor is None:
            pipe.zrevrangebyscore(key, "+inf", "-inf", start=0, num=per, withscores=True)
        else:
            # Same last activity as the cursor: only ids below it (they sort after it).
            pipe.zrangebyscore(key, cursor.score, cursor.score, withscores=True)
            pipe.zrevrangebyscore(key, f"({cursor.score}", "-inf", start=0, num=per, withscores=True)
    replies = pipe.execute()
    merged: list[Cursor] = []
    bound: Cursor | None = None  # entries below it may be missing: a partition filled its page
    step = 1 if cursor is None else 2
    for i in range(0, len(replies), step):
        rows = replies[i + step - 1]
        if cursor is not None:
            merged += [c for gid, s in replies[i] if (c := Cursor(int(s), gid.decode())) < cursor]
        merged += [Cursor(int(s), gid.decode()) for gid, s in rows]
        if len(rows) == per:
            last = Cursor(int(rows[-1][1]), rows[-1][0].decode())
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
    per = max(8, limit // 4) if not filtered else 100
    rows: list[dict[str, Any]] = []
    scanned = 0
    while True:
        candidates, more = _after(store, cursor, per)
        i = 0
        while i < len(candidates):
            chunk = candidates[i:i + (limit if filtered else limit - len(rows))]
            i += len(chunk)
            pipe = store.r.pipeline(transaction=False)
            for c in chunk:
                pipe.hget(store.keys(c.gid).rm, "summary")
            for c, raw in zip(chunk, pipe.execute(), strict=True):
                cursor = c
                scanned += 1
                if raw is None:
                    continue  # in the lobby, not projected yet (a rebuild under way)
                s = loads(raw)
                if (status is None or s["status"] == status) and (game is None or s["game"] == game):
                    rows.append(s)
                    if len(rows) == limit:
                        end = more is None and c == candidates[-1]
                        return rows, None if end else cursor
            if scanned >= max_scan and (i < len(candidates) or more is not None):
                return rows, cursor
        if more is None:
            return rows, None
