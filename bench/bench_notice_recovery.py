"""How soon the notices due at a crash go out once the service is up again (issue #36 item 5: within
10 s).

A `boardlog serve` over its own Redis (which survives), a slow mail server and a slow chat service
(0.4 s a notice), four players told by mail and Apprise in two Rite games. A burst of moves; every
serve process killed -9 mid-burst; serve started again with production's broker timings (a dead
worker's messages come back by dramatiq's maintenance only after 15 s, by chance). Measured per
run: from the restarted API's first answer to the arrival of the last notice due (each player's
newest "your turn" of each game, by mail and in the chat). Prints each run and the median.

Usage: python -m bench.bench_notice_recovery [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from service.runtime.embedded import EmbeddedRedis
from tests.journeys.crash_acts import (
    Chat,
    SlowMailBox,
    chats_of,
    mails_of,
    move,
    player,
    rite,
    serve,
)


def one_run(redis_url: str, root: Path, moves: int = 8) -> tuple[float, int]:
    """Seconds from the API answering again to the last due notice; how many were due."""
    mail, chat = SlowMailBox(), Chat().start()
    mail.start()
    s = serve(redis_url, root, mail.port)
    s.start()
    try:
        s.wait_notifier(1)
        with s.client() as c:
            people = [player(c, mail, chat, n) for n in ("ann", "bob", "cy", "dee")]
            games = {}
            for pair in (people[:2], people[2:]):
                gid, tokens = rite(c, pair)
                games[gid] = (tokens, pair)
            due: dict[tuple[str, int], int] = {}
            for _ in range(moves):
                for gid, (tokens, _pair) in games.items():
                    mover = c.get(f"/v1/games/{gid}").json()["prompt"]["seats"][0]
                    last = move(c, gid, tokens)
                    now = c.get(f"/v1/games/{gid}", params={"min_seq": last}).json()["prompt"]["seats"][0]
                    if now != mover:
                        due[(gid, now)] = last
        s.kill9()
        up = s.start()
        left = dict(due)
        while left and time.monotonic() - up < 120:
            for (gid, seat), seq in list(left.items()):
                p = games[gid][1][seat]
                head = max(v for (g, _), v in due.items() if g == gid)
                if seq in {a.seq for a in mails_of(mail, p, gid)} and seq in {a.seq for a in chats_of(chat, p, gid, head)}:
                    del left[(gid, seat)]
            time.sleep(0.05)
        if left:
            raise SystemExit(f"notices never arrived after the crash: {left}")
        return time.monotonic() - up, len(due) * 2
    finally:
        s.stop()
        mail.stop()
        chat.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        try:
            seconds = []
            for i in range(args.runs):
                took, n = one_run(server.url, Path(tmp) / f"run{i}")
                seconds.append(took)
                print(f"run {i + 1}: the last of {n} due notices arrived {took:.2f} s after the API answered again")
            print(f"notice recovery after kill -9 of every serve process: median {statistics.median(seconds):.2f} s "
                  f"(target: 10 s)")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
