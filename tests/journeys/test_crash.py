"""Journey: the power goes out mid-burst, and every notice still arrives once and in order (issue #36,
"Crash").

ann and bob play one Rite game, cy and dee another; each is told by mail and in a chat (Apprise),
and both the mail server and the chat service are slow. In the middle of a burst of moves, every
process of `boardlog serve` is killed -9. The service is started again on the same data. Each
player's newest notice of each game then arrives by mail and in the chat; no notice arrives
twice unless the second says it is a repeat (and never a third time); none arrives after a newer
one of the same game; and every chat message ends with its notice's id. (How soon after the
service answers again: bench/bench_notice_recovery.py.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import wait_for
from tests.journeys.conftest import settle
from tests.journeys.crash_acts import (
    Arrival,
    Chat,
    Player,
    SlowMailBox,
    chats_of,
    mails_of,
    move,
    player,
    rite,
    serve,
)

pytestmark = pytest.mark.integration

MOVES = 8  # per game


@pytest.fixture
def slow_mail() -> Iterator[SlowMailBox]:
    box = SlowMailBox()
    box.start()
    yield box
    box.stop()


@pytest.fixture
def slow_chat() -> Iterator[Chat]:
    chat = Chat().start()
    yield chat
    chat.stop()


def in_order_once(arrived: list[Arrival]) -> None:
    """Each notice once, or twice with the second named a repeat; never one older than one before."""
    times = Counter(a.key for a in arrived)
    assert all(n <= 2 for n in times.values()), arrived
    seen: set[str] = set()
    for a in arrived:
        if a.key in seen:
            assert a.repeat, f"{a.key} arrived again without saying it is a repeat: {arrived}"
        seen.add(a.key)
    seqs = [a.seq for a in arrived]
    assert seqs == sorted(seqs), f"a notice arrived after a newer one of its game: {arrived}"


def test_every_serve_process_killed_mid_burst_and_each_notice_still_arrives_once_in_order(
        redis_url: str, tmp_path: Path, slow_mail: SlowMailBox, slow_chat: Chat) -> None:
    s = serve(redis_url, tmp_path / "serve", slow_mail.port)
    s.start()
    try:
        s.wait_notifier(1)
        with s.client() as c:
            ann, bob, cy, dee = (player(c, slow_mail, slow_chat, n) for n in ("ann", "bob", "cy", "dee"))
            games: dict[str, tuple[list[str], tuple[Player, Player]]] = {}
            for people in ((ann, bob), (cy, dee)):
                gid, tokens = rite(c, list(people))
                games[gid] = (tokens, people)
            # The notices each player is due: for each seat, the last command of another seat
            # that handed it the turn (its newest "your turn"; older ones may be superseded).
            due: dict[tuple[str, str], int] = {}
            for _ in range(MOVES):
                for gid, (tokens, people) in games.items():
                    mover = c.get(f"/v1/games/{gid}").json()["prompt"]["seats"][0]
                    last = move(c, gid, tokens)
                    now = c.get(f"/v1/games/{gid}", params={"min_seq": last}).json()["prompt"]["seats"][0]
                    if now != mover:
                        due[(gid, people[now].id)] = last

        # The power goes out mid-burst: every process of the serve at once.
        s.kill9()
        s.start()
        s.wait_notifier(2)

        everyone = {p.id: p for _, people in games.values() for p in people}
        heads = {gid: max(seq for (g, _), seq in due.items() if g == gid) for gid in games}

        def newest_arrived() -> bool:
            for (gid, pid), seq in due.items():
                p = everyone[pid]
                if seq not in {a.seq for a in mails_of(slow_mail, p, gid)}:
                    return False
                if seq not in {a.seq for a in chats_of(slow_chat, p, gid, heads[gid])}:
                    return False
            return True

        wait_for(newest_arrived, timeout=90, interval=0.2)
        settle(2.0)  # time for a notice sent twice to arrive twice
        for gid, (_, people) in games.items():
            for p in people:
                in_order_once(mails_of(slow_mail, p, gid))
                in_order_once(chats_of(slow_chat, p, gid, heads[gid]))
    finally:
        s.stop()
