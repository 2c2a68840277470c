"""The lobby's pages, read one after another, give every matching game exactly once in order of
last activity (ties by id), whatever the partitions, ties, page sizes and filters."""

from __future__ import annotations

import fakeredis
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.store.store import EventStore
from projections.lobby import Cursor, lobby_rows


@st.composite
def games_st(draw: st.DrawFn) -> list[tuple[int, int, str, str, bool]]:
    """Up to 150 games in 1 to 8 partitions, with few distinct times (many ties), mostly projected."""
    n, parts, times = draw(st.integers(0, 150)), draw(st.integers(1, 8)), draw(st.integers(1, 60))
    rnd = draw(st.randoms(use_true_random=False))
    return [(rnd.randrange(parts), rnd.randrange(times), rnd.choice(["active", "over", "aborted"]),
             rnd.choice(["rite", "race"]), rnd.random() < 0.9) for _ in range(n)]


def fill(store: EventStore, games: list[tuple[int, int, str, str, bool]]) -> list[tuple[Cursor, dict[str, str]]]:
    out = []
    for i, (part, score, status, game, projected) in enumerate(games):
        gid = f"p{part:02d}-game{i:04d}"
        summary = {"id": gid, "status": status, "game": game}
        if projected:
            store.project(gid, 1, score, {"summary": orjson.dumps(summary)}, b"")
            out.append((Cursor(score, gid), summary))
        else:  # in the lobby, its summary not written yet (a rebuild under way)
            store.r.zadd(store.lobby(part), {gid: score})
    return sorted(out, key=lambda x: x[0], reverse=True)


@settings(max_examples=150, deadline=None)
@given(games_st(), st.integers(1, 30), st.sampled_from([None, "active", "over", "finished"]),
       st.sampled_from([None, "rite"]), st.integers(1, 300))
def test_paging_through_the_lobby_gives_every_matching_game_once_in_order(
    games: list[tuple[int, int, str, str, bool]], limit: int, status: str | None, game: str | None, max_scan: int,
) -> None:
    store = EventStore(fakeredis.FakeRedis(), "lobby", partitions=8)
    # The filter "finished" is every game that ended: over (by its rules) or aborted.
    matches = {None: None, "finished": {"over", "aborted"}}.get(status, {status})
    want = [s["id"] for _, s in fill(store, games)
            if (matches is None or s["status"] in matches) and (game is None or s["game"] == game)]
    got: list[str] = []
    cursor: Cursor | None = None
    for _ in range(len(games) + 2):
        rows, cursor = lobby_rows(store, limit, status, game, cursor, max_scan=max_scan)
        assert len(rows) <= limit
        got += [r["id"] for r in rows]
        if cursor is None:
            break
        cursor = Cursor.decode(cursor.encode())  # as a client sends it back
    assert cursor is None
    assert got == want


def test_a_page_waits_for_the_partition_it_has_not_read_to_the_end() -> None:
    # Partition 0 has 20 recent games, more than one read of it takes; partition 1 three older
    # ones. Its first read's last game bounds what may be shown before reading it again.
    store = EventStore(fakeredis.FakeRedis(), "lobby", partitions=2)
    want = fill(store, [(0, 100 + i, "active", "rite", True) for i in range(20)]
                + [(1, 50 + i, "active", "rite", True) for i in range(3)])
    rows, cursor = lobby_rows(store, 30)
    assert [r["id"] for r in rows] == [s["id"] for _, s in want] and cursor is None


def test_a_full_last_page_says_there_is_no_more() -> None:
    store = EventStore(fakeredis.FakeRedis(), "lobby", partitions=8)
    fill(store, [(p, p, "active", "rite", True) for p in range(8)])
    rows, cursor = lobby_rows(store, 8)
    assert len(rows) == 8 and cursor is None


@pytest.mark.parametrize("text", ["", "12", ":g", "x:g", "12:", "1.5:g"])
def test_a_bad_cursor_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Cursor.decode(text)
