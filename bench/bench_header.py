"""The header's count of waiting games: what signed-in pages cost one API process, polled as the
pages did before `/v1/me/stream` (each page asking `/v1/me/games?waiting=1` every second) and
pushed as they do now (each page holding the stream), in alternating rounds of one run.

One stack (API, 1 worker x 4 threads, projector, an embedded Redis), PLAYERS players each seated
in GAMES race games (paired, so every game has two of them), one open page a player. In each
round, for `--seconds`, the pages either poll or hold their streams while a mover plays
`--moves` commands a second spread over the games. Measured: the API process's CPU a second
(psutil, user + system), the requests it answered, and for the streams the time from a command's
answer to the mover's opponent's stream saying the game waits on them.

    python -m bench.bench_header [--rounds 3] [--seconds 8] [--players 200] [--moves 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid
from dataclasses import dataclass, field

import httpx
import orjson

from bench.bench_spine import Conn, Stack, served_redis, sse_chunks

GAMES = 5  # games a player sits in


@dataclass
class Table:
    players: list[dict[str, str]]  # id, key
    games: list[tuple[str, list[str], list[str]]]  # gid, seat tokens, the seats' player ids
    seat: dict[str, int] = field(default_factory=dict)  # each game's seat to move
    next_game: int = 0


def setup(url: str, players: int) -> Table:
    with httpx.Client(base_url=url, timeout=30) as c:
        made = []
        for i in range(players):
            r = c.post("/v1/players", json={"name": f"p{i}"})
            r.raise_for_status()
            made.append(r.json())
        games = []
        for i in range(players * GAMES // 2):
            a, b = made[(2 * i) % players], made[(2 * i + 1 + 2 * (i // players)) % players]
            if a["id"] == b["id"]:
                b = made[(2 * i + 1) % players]
            r = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"target": 1_000_000}})
            r.raise_for_status()
            g = r.json()
            tokens = [s["token"] for s in g["seats"]]
            for p, token in ((a, tokens[0]), (b, tokens[1])):
                c.post(f"/v1/games/{g['id']}/claim", json={"token": token},
                       headers={"Authorization": f"Bearer {p['key']}"}).raise_for_status()
            games.append((g["id"], tokens, [a["id"], b["id"]]))
    return Table(made, games)


@dataclass
class Round:
    api_cpu_per_s: float
    requests_per_s: float
    pushed_ms: list[float] = field(default_factory=list)
    turns: int = 0


async def _poller(port: int, key: str, stop: float, count: list[int]) -> None:
    conn = await Conn("127.0.0.1", port).open()
    try:
        while time.perf_counter() < stop:
            status, _ = await conn.request("GET", "/v1/me/games?waiting=1", token=key)
            if status != 200:
                raise RuntimeError(f"/v1/me/games answered {status}")
            count[0] += 1
            await asyncio.sleep(1.0)
    finally:
        conn.close()


async def _streamer(port: int, pid: str, key: str, ready: asyncio.Event, opened: list[int], want: int,
                    appeared: dict[tuple[str, str], list[float]], stop: asyncio.Event) -> None:
    """Hold the player's stream; when each game came to wait on them (it appeared in the list)."""
    def counted() -> None:
        opened[0] += 1
        if opened[0] == want:
            ready.set()

    buf = b""
    waiting: set[str] = set()
    async for got in sse_chunks(port, "/v1/me/stream", stop, token=key, opened=counted):
        buf += got
        while b"\n\n" in buf:
            frame, buf = buf.split(b"\n\n", 1)
            for line in frame.split(b"\n"):
                if line.startswith(b"data: "):
                    now = time.perf_counter()
                    gids = {g["id"] for g in orjson.loads(line[6:])["games"]}
                    for gid in gids - waiting:
                        appeared.setdefault((pid, gid), []).append(now)
                    waiting = gids


async def _mover(port: int, t: Table, moves: float, stop: float, answered: list[tuple[str, str, float]]) -> None:
    """Commands at `moves` a second over the games, each seat in turn; (opponent, game, when answered)."""
    conn = await Conn("127.0.0.1", port).open()
    seat = t.seat
    try:
        while time.perf_counter() < stop:
            gid, tokens, pids = t.games[t.next_game % len(t.games)]
            t.next_game += 1
            seat.setdefault(gid, 0)
            body = orjson.dumps({"id": uuid.uuid4().hex, "type": "race.roll", "args": {}})
            status, raw = await conn.request("POST", f"/v1/games/{gid}/commands?wait=1", body, tokens[seat[gid]])
            if status != 200:
                raise RuntimeError(f"a command answered {status}: {raw[:300]!r}")
            s = seat[gid] = 1 - seat[gid]
            answered.append((pids[s], gid, time.perf_counter()))
            await asyncio.sleep(1.0 / moves)
    finally:
        conn.close()


def round_of(stack: Stack, t: Table, mode: str, seconds: float, moves: float) -> Round:
    async def main() -> Round:
        stop_at = time.perf_counter() + 1.0 + seconds
        answered: list[tuple[str, str, float]] = []
        appeared: dict[tuple[str, str], list[float]] = {}
        count = [0]
        stop = asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        if mode == "poll":
            tasks = [asyncio.create_task(_poller(stack.port, p["key"], stop_at, count)) for p in t.players]
        else:
            ready, opened = asyncio.Event(), [0]
            tasks = [asyncio.create_task(_streamer(stack.port, p["id"], p["key"], ready, opened, len(t.players),
                                                   appeared, stop)) for p in t.players]
            await asyncio.wait_for(ready.wait(), 60)
        await asyncio.sleep(1.0)  # settled: every page polling, or every stream open
        cpu0, t0 = stack.cpu()["api"], time.perf_counter()
        c0 = count[0]
        await _mover(stack.port, t, moves, time.perf_counter() + seconds, answered)
        took = time.perf_counter() - t0
        cpu = stack.cpu()["api"] - cpu0
        requests = count[0] - c0 + len(answered)
        await asyncio.sleep(0.5)
        stop.set()
        if mode == "poll":
            for task in tasks:
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        pushed = []  # each turn: from the command's answer to the game's appearing on the opponent's stream
        for pid, gid, at in answered:
            later = [x for x in appeared.get((pid, gid), []) if at - 0.05 <= x <= at + 5]
            if later:
                pushed.append((later[0] - at) * 1000)
        return Round(cpu / took, requests / took, pushed, len(answered))

    return asyncio.run(main())


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))] if s else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--moves", type=float, default=20.0)
    args = ap.parse_args()
    os.environ.update(BOARDLOG_PLAYERS_PER_MINUTE="0", BOARDLOG_TABLES_PER_MINUTE="0",
                      BOARDLOG_WATCHERS_PER_CLIENT="0", BOARDLOG_WATCHERS_TOTAL="0")
    out: dict[str, list[Round]] = {"poll": [], "stream": []}
    with served_redis("bench-header-") as served, \
            Stack(served.server.url, served.ns, 1, 4, redis_pid=served.pid) as stack:
        t = setup(f"http://127.0.0.1:{stack.port}", args.players)
        for r in range(args.rounds):
            for mode in (("poll", "stream") if r % 2 == 0 else ("stream", "poll")):
                out[mode].append(round_of(stack, t, mode, args.seconds, args.moves))
    print(f"the header's count: {args.players} signed-in pages (one a player, {GAMES} games each), "
          f"{args.moves:g} moves/s, {args.rounds} rounds x {args.seconds:g} s, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    for mode, label in (("poll", "polled each second (before)"), ("stream", "pushed by /v1/me/stream (now)")):
        rs = out[mode]
        cpus = [r.api_cpu_per_s * 100 for r in rs]
        line = (f"  {label:32} API CPU {statistics.median(cpus):5.1f} % of a core "
                f"[{', '.join(f'{c:.1f}' for c in cpus)}], {statistics.median(r.requests_per_s for r in rs):6.1f} requests/s")
        if mode == "stream":
            pushed = [x for r in rs for x in r.pushed_ms]
            heard = sum(len(r.pushed_ms) for r in rs)
            line += (f"; a turn reaches the opponent's stream p50 {pct(pushed, 50):.1f} ms, p99 {pct(pushed, 99):.1f} ms, "
                     f"min {min(pushed, default=float('nan')):.1f}, max {max(pushed, default=float('nan')):.1f} "
                     f"({heard} of {sum(r.turns for r in rs)} turns)")
        print(line)
    ratio = statistics.median(r.api_cpu_per_s for r in out["stream"]) / statistics.median(
        r.api_cpu_per_s for r in out["poll"])
    print(f"  pushed / polled API CPU: {ratio:.2f}x")


if __name__ == "__main__":
    main()
