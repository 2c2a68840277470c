"""Notifications: notice latency per channel, and the CPU the notices add per command.

Ten race games are played at once through the real API, worker, projector and notifier, each
seat claimed by a player; with targets, every player has an email target (a local aiosmtpd, its
address confirmed by the link mailed to it), an Apprise json:// target and a signed webhook (a
local HTTP server). Latency runs from the moment
the command's answer reaches the player to the moment the receiver has the notice. The same load
runs once more with no targets, for the CPU the notices add per accepted command.

Run with `python -m bench.bench_notify [--runs 3] [--seconds 8] [--pause 0.2]`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil

from bench.bench_spine import Conn
from service.runtime.embedded import EmbeddedRedis, free_port
from service.runtime.logs import configure
from tests.support.receivers import MailBox, Web

ROOT = Path(__file__).resolve().parent.parent
RACE = "tests.support.racegame"
GAMES = 10
configure("json", logging.WARNING)
_KEY = re.compile(r"(p\d+-[a-z0-9]+)(?::|.*?step )(\d+)", re.S)


class Stack:
    """API, worker, projector and notifier over one Redis and namespace."""

    def __init__(self, redis_url: str, mail_port: int) -> None:
        self.port = free_port()
        env = {**os.environ, "REDIS_URL": redis_url, "BOARDLOG_NAMESPACE": f"b{uuid.uuid4().hex[:8]}",
               "BOARDLOG_EXTRA_GAMES": RACE, "BOARDLOG_LOG": "json", "PYTHONPATH": str(ROOT),
               "BOARDLOG_SMTP_HOST": "127.0.0.1", "BOARDLOG_SMTP_PORT": str(mail_port), "BOARDLOG_SMTP_TLS": "none",
               "BOARDLOG_PLAYERS_PER_MINUTE": "0", "BOARDLOG_SIGNINS_PER_MINUTE": "0",
               # The receivers listen on loopback, which targets may reach only when allowed.
               "BOARDLOG_NOTIFY_ALLOW": "127.0.0.1"}
        self.log = tempfile.NamedTemporaryFile(prefix="bench-notify-", suffix=".log", delete=False)  # noqa: SIM115
        cmd = [sys.executable, "-m", "service.runtime.cli"]
        self.roles = ["worker", "projector", "notifier", "api"]
        args = {"worker": ["worker", "--threads", "4"], "projector": ["projector"],
                "notifier": ["notifier", "--threads", "8"], "api": ["api", "--port", str(self.port)]}
        self.procs = [subprocess.Popen([*cmd, *args[r]], env=env, stdout=self.log, stderr=self.log) for r in self.roles]
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.2)
        while b"notifier.started" not in Path(self.log.name).read_bytes():
            if time.monotonic() > deadline:
                raise RuntimeError("the notifier did not start")
            time.sleep(0.2)

    def cpu(self, redis_pid: int) -> dict[str, float]:
        out = {}
        for role, p in [*zip(self.roles, (p.pid for p in self.procs), strict=True), ("redis", redis_pid)]:
            t = psutil.Process(p).cpu_times()
            out[role] = t.user + t.system
        return out

    def stop(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.wait(timeout=20)


def setup(url: str, mail: MailBox, web: Web, targets: bool) -> list[tuple[str, list[str]]]:
    games = []
    with httpx.Client(base_url=url, timeout=30) as c:
        for _ in range(GAMES):
            g = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"target": 10**6}}).json()
            tokens = [s["token"] for s in g["seats"]]
            for token in tokens:
                p = c.post("/v1/players", json={"name": "p"}).json()
                h = {"Authorization": f"Bearer {p['key']}"}
                assert c.post(f"/v1/games/{g['id']}/claim", json={"token": token}, headers=h).status_code == 200
                if targets:
                    for body in ({"kind": "email", "address": f"{p['id']}@example.org"},
                                 {"kind": "apprise", "address": f"json://127.0.0.1:{web.port}/apprise"},
                                 {"kind": "webhook", "address": web.url("/hook")}):
                        assert c.post("/v1/me/targets", json=body, headers=h).status_code == 201
                    # The address's confirmation link, used as its reader would (mailed before the 201).
                    token = mail.confirmations(f"{p['id']}@example.org")[-1]
                    assert c.post("/v1/confirmations", json={"token": token}).status_code == 200
            games.append((g["id"], tokens))
    return games


async def _play(port: int, gid: str, tokens: list[str], seat: int, stop_at: float, pause: float,
                answered: dict[tuple[str, int], float], count: list[int]) -> None:
    conn = await Conn("127.0.0.1", port).open()
    try:
        while time.perf_counter() < stop_at:
            body = orjson.dumps({"id": uuid.uuid4().hex, "type": "race.roll", "args": {}})
            status, raw = await conn.request("POST", f"/v1/games/{gid}/commands?wait=1", body, tokens[seat])
            if status == 200:
                seq = orjson.loads(raw)["seq"]
                answered[(gid, int(seq[-1] if isinstance(seq, list) else seq))] = time.time()
                count[0] += 1
                seat = 1 - seat
            await asyncio.sleep(pause)
    finally:
        conn.close()


def load(port: int, games: list[tuple[str, list[str]]], seats: dict[str, int], seconds: float,
         pause: float) -> tuple[dict[tuple[str, int], float], int]:
    answered: dict[tuple[str, int], float] = {}
    count = [0]

    async def main() -> None:
        stop_at = time.perf_counter() + seconds
        await asyncio.gather(*(_play(port, g, t, seats[g], stop_at, pause, answered, count) for g, t in games))

    asyncio.run(main())
    return answered, count[0]


def whose_turn(url: str, games: list[tuple[str, list[str]]]) -> dict[str, int]:
    with httpx.Client(base_url=url, timeout=30) as c:
        return {g: 0 if c.get(f"/v1/games/{g}/legal", headers={"Authorization": f"Bearer {t[0]}"}).json()["commands"]
                else 1 for g, t in games}


def received(mail: MailBox, web: Web) -> dict[str, dict[tuple[str, int], float]]:
    """When each receiver first had each notice, by (game, seq)."""
    out: dict[str, dict[tuple[str, int], float]] = {"email": {}, "apprise": {}, "webhook": {}}
    for m in list(mail.mails):
        if m["X-Boardlog-Notice"] is None:  # an address's confirmation mail
            continue
        gid, seq = m["X-Boardlog-Notice"].split(":")[:2]
        out["email"].setdefault((gid, int(seq)), float(m["X-Received-At"]))
    for h in web.at("/hook"):
        d = orjson.loads(h.body)
        out["webhook"].setdefault((d["game"], d["seq"]), float(h.headers["X-Received-At"]))
    for h in web.at("/apprise"):
        d = orjson.loads(h.body)
        found = _KEY.search(d["title"] + "\n" + d["message"])
        if found:
            out["apprise"].setdefault((found.group(1), int(found.group(2))), float(h.headers["X-Received-At"]))
    return out


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))] if s else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--pause", type=float, default=0.2, help="each game's pause between commands (s)")
    args = ap.parse_args()
    mail, web = TimedMailBox().start(), TimedWeb().start()
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="bench-notify-redis-")), appendonly=False).start()
    assert server.proc is not None
    figures: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    try:
        for targets in (False, True):
            stack = Stack(server.url, mail.port)
            try:
                url = f"http://127.0.0.1:{stack.port}"
                games = setup(url, mail, web, targets)
                for _ in range(args.runs):
                    seats = whose_turn(url, games)
                    before = stack.cpu(server.proc.pid)
                    answered, n = load(stack.port, games, seats, args.seconds, args.pause)
                    time.sleep(3.0)  # the last notices land
                    after = stack.cpu(server.proc.pid)
                    cpu = {k: (after[k] - before[k]) * 1e6 / max(1, n) for k in after}
                    lat: dict[str, list[float]] = {}
                    if targets:
                        got = received(mail, web)
                        for ch, times in got.items():
                            lat[ch] = [(times[k] - t) * 1000 for k, t in answered.items() if k in times]
                            missing = sum(1 for k in answered if k not in times)
                            if missing:
                                print(f"  {ch}: {missing} of {len(answered)} notices not in within 3 s", flush=True)
                    figures[targets].append({"n": n, "seconds": args.seconds, "cpu": cpu, "lat": lat})
                    print(f"targets={targets}: {n} commands ({n / args.seconds:.0f}/s), CPU µs/command "
                          + ", ".join(f"{k} {v:.0f}" for k, v in cpu.items())
                          + "".join(f"; {ch} p50 {pct(v, 50):.0f} ms p99 {pct(v, 99):.0f} ms (n={len(v)})"
                                    for ch, v in lat.items()), flush=True)
            finally:
                stack.stop()
    finally:
        server.stop()
        mail.stop()
        web.stop()
    print("\nmedians over runs:")
    for targets in (False, True):
        rows = figures[targets]
        cpu = {k: statistics.median(r["cpu"][k] for r in rows) for k in rows[0]["cpu"]}
        total = sum(v for k, v in cpu.items())
        print(f"  {'with' if targets else 'without'} targets: {statistics.median(r['n'] for r in rows) / args.seconds:.0f} "
              f"cmd/s, CPU per command {total:.0f} µs (" + ", ".join(f"{k} {v:.0f}" for k, v in cpu.items()) + ")")
        if targets:
            for ch in ("email", "apprise", "webhook"):
                p50 = statistics.median(pct(r["lat"][ch], 50) for r in rows)
                p99 = statistics.median(pct(r["lat"][ch], 99) for r in rows)
                print(f"  {ch}: notice latency p50 {p50:.0f} ms, p99 {p99:.0f} ms")


class TimedMailBox(MailBox):
    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        envelope.content = f"X-Received-At: {time.time()!r}\r\n".encode() + envelope.content
        return await super().handle_DATA(server, session, envelope)


class TimedWeb(Web):
    def start(self) -> TimedWeb:
        super().start()
        handler = self.server.RequestHandlerClass
        original = handler.do_POST  # type: ignore[attr-defined]

        def do_post(h: Any) -> None:
            h.headers["X-Received-At"] = repr(time.time())
            original(h)

        handler.do_POST = do_post  # type: ignore[attr-defined]
        return self


if __name__ == "__main__":
    main()
