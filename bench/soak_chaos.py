"""Chaos soak (`make soak`): bounded load on games of all three types through `boardlog serve`,
a kill -9 of a random part (a worker, the projector, the API or the embedded Redis) every 20-40 s,
then the checks:

- every command answered 200 (accepted) is in its game exactly once;
- no command id was applied twice;
- every game's export audits (hash chain, seed, every command re-run), the games still playing
  ended first by their admin (before its end a game's admin exports only the log it may see);
- every read model equals a fresh fold (each seat's board and the spectator's);
- no notice was sent more than twice: both players have a signed webhook target on a local
  receiver, which counts deliveries by their `webhook-id` (the notice's idempotency key); a send
  a killed notifier began goes once more under the same id (a repeat, counted), never again.

It prints the figures (commands, kills, recovery time per kill, 503 answers) and exits 1 if a
check failed.

Usage: python -m bench.soak_chaos [--minutes 10] [--games 10] [--clients 6] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil

from events.domain.audit import audit
from events.domain.match import COMMAND_ACCEPTED
from events.records.export import read_record
from events.store.commandids import shown_id
from rules import catalog
from service.runtime.embedded import free_port

ROOT = Path(__file__).resolve().parents[1]
TYPES = ("rite", "factions", "dragondale")
PARTS = ("service.runtime.cli worker", "service.runtime.cli projector", "service.runtime.cli api", "redis-server")


@dataclass
class Game:
    gid: str
    kind: str
    tokens: list[str]
    admin: str
    done: bool = False


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    accepted: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    accepted_at: list[float] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)
    unavailable: int = 0
    transport_errors: int = 0
    kills: list[tuple[str, float]] = field(default_factory=list)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Receiver:
    """A local webhook receiver: counts each delivery by its `webhook-id`."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.last = time.monotonic()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with lock:
                    receiver.seen[self.headers.get("webhook-id") or "?"] += 1
                    receiver.last = time.monotonic()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def players(c: httpx.Client, receiver: Receiver) -> list[tuple[str, str]]:
    """Two players, each with a webhook target on the receiver: (id, key) each."""
    out = []
    for name in ("ann", "bob"):
        r = c.post("/v1/players", json={"name": name})
        assert r.status_code == 201, r.text
        pid, key = r.json()["id"], r.json()["key"]
        t = c.post("/v1/me/targets", headers=bearer(key), json={"kind": "webhook", "address": receiver.url})
        assert t.status_code == 201, t.text
        out.append((pid, key))
    return out


def start_serve(data: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("BOARDLOG_")}
    env.update(PYTHONPATH=str(ROOT), BOARDLOG_LOG="json", BOARDLOG_HEARTBEAT_MS="3000",
               # A soak's clients are all on one address and read far more than a person.
               BOARDLOG_ANON_RECORDS_PER_MINUTE="0", BOARDLOG_ANON_REPLAYS_PER_MINUTE="0",
               BOARDLOG_TABLES_PER_MINUTE="0", BOARDLOG_ANON_GAMES_PER_HOUR="0", BOARDLOG_PLAYER_GAMES_PER_HOUR="0",
               # The webhook receiver listens on loopback, which targets may reach only when allowed.
               BOARDLOG_NOTIFY_ALLOW="127.0.0.1")
    return subprocess.Popen(
        [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port), "--data", str(data), "--workers", "2"],
        env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)


def wait_up(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def call(c: httpx.Client, tally: Tally, method: str, path: str, **kw: Any) -> httpx.Response:
    """One request, tried again (as a client should) through 503s and dropped connections."""
    for _ in range(600):
        try:
            r = c.request(method, path, **kw)
        except httpx.HTTPError:
            with tally.lock:
                tally.transport_errors += 1
            time.sleep(0.2)
            continue
        if r.status_code != 503:
            return r
        with tally.lock:
            tally.unavailable += 1
        time.sleep(0.2)
    raise RuntimeError(f"{method} {path}: no answer in two minutes")


def new_game(c: httpx.Client, tally: Tally, kind: str, seated: list[tuple[str, str]]) -> Game:
    """A game whose seats are the two players' (invited by ann): their keys play them."""
    r = call(c, tally, "POST", "/v1/games", headers=bearer(seated[0][1]),
             json={"game": kind, "seats": [{"player": pid} for pid, _ in seated]})
    assert r.status_code == 201, r.text
    g = r.json()
    return Game(g["id"], kind, [key for _, key in seated], g["admin_token"])


def play(url: str, games: list[Game], glock: threading.Lock, tally: Tally, stop: threading.Event,
         rnd: random.Random, seated: list[tuple[str, str]]) -> None:
    with httpx.Client(base_url=url, timeout=30) as c:
        while not stop.is_set():
            with glock:
                live = [g for g in games if not g.done]
            if not live:
                return
            g = rnd.choice(live)
            summary = call(c, tally, "GET", f"/v1/games/{g.gid}").json()
            prompt = summary.get("prompt")
            if summary.get("status") != "active" or not prompt:
                if summary.get("status") != "active":
                    with glock:
                        if not g.done:
                            g.done = True
                            games.append(new_game(c, tally, g.kind, seated))
                continue
            seat = rnd.choice(prompt["seats"])
            legal = call(c, tally, "GET", f"/v1/games/{g.gid}/legal", headers=bearer(g.tokens[seat]))
            if legal.status_code != 200 or not legal.json()["commands"]:
                continue
            cmd = rnd.choice(legal.json()["commands"])
            cid = str(uuid.uuid4())
            body = {"id": cid, "type": cmd["type"], "args": cmd["args"], "expect": legal.json()["seq"]}
            r = call(c, tally, "POST", f"/v1/games/{g.gid}/commands?wait=1", headers=bearer(g.tokens[seat]), json=body)
            while r.status_code == 202:
                time.sleep(0.2)
                r = call(c, tally, "GET", f"/v1/games/{g.gid}/commands/{cid}", headers=bearer(g.tokens[seat]))
            with tally.lock:
                if r.status_code == 200 and r.json().get("status") == "accepted":
                    tally.accepted[g.gid].append(cid)
                    tally.accepted_at.append(time.monotonic())
                else:
                    # A conflict (another client moved the game first: `expect` is set) or a
                    # refusal; the codes are printed, since a legal command refused is a bug.
                    tally.refused[(r.json().get("error") or {}).get("code", str(r.status_code))] += 1


def chaos(serve: subprocess.Popen[bytes], tally: Tally, stop: threading.Event, rnd: random.Random) -> None:
    while not stop.wait(rnd.uniform(20, 40)):
        part = rnd.choice(PARTS)
        children = [ch for ch in psutil.Process(serve.pid).children()
                    if ch.status() != psutil.STATUS_ZOMBIE and part in " ".join(ch.cmdline())]
        if not children:
            continue
        victim = rnd.choice(children)
        victim.send_signal(signal.SIGKILL)
        with tally.lock:
            tally.kills.append((part.split()[-1], time.monotonic()))
        print(f"  kill -9 {part.split()[-1]} (pid {victim.pid})", flush=True)


def recoveries(tally: Tally) -> list[float]:
    """Per kill: seconds until the next command a client saw accepted."""
    out = []
    for _, at in tally.kills:
        after = [t for t in tally.accepted_at if t > at]
        if after:
            out.append(min(after) - at)
    return out


def settle(c: httpx.Client, tally: Tally, g: Game, timeout: float = 90) -> tuple[list[bytes], int]:
    """The game's record (its lines, by its admin) once the projection has caught up with it."""
    deadline = time.monotonic() + timeout
    while True:
        lines = call(c, tally, "GET", f"/v1/games/{g.gid}/export", headers=bearer(g.admin)).content.splitlines(True)
        head = max((e["seq"] for e in map(orjson.loads, lines) if "seq" in e and "hash" in e), default=0)
        if call(c, tally, "GET", f"/v1/games/{g.gid}").json()["seq"] == head or time.monotonic() > deadline:
            return lines, head
        time.sleep(0.3)


def check(url: str, games: list[Game], tally: Tally) -> list[str]:
    failures: list[str] = []
    with httpx.Client(base_url=url, timeout=60) as c:
        for g in games:
            # A live game's admin exports the log it may see, redacted; the whole record is
            # exported once the game is over, so the games still playing are ended first.
            if call(c, tally, "GET", f"/v1/games/{g.gid}").json()["status"] == "active":
                ended = call(c, tally, "POST", f"/v1/games/{g.gid}/abort", headers=bearer(g.admin))
                if ended.status_code != 200:
                    failures.append(f"{g.gid}: the admin's abort answered {ended.status_code}: {ended.text[:200]}")
            lines, head = settle(c, tally, g)
            record = [orjson.loads(x) for x in lines]
            # the log keys a client's id by its sender (seat:N/<id>): counted as the client sent it
            applied = Counter(shown_id(e["data"]["id"]) for e in record if e.get("type") == COMMAND_ACCEPTED)
            twice = [cid for cid, n in applied.items() if n > 1]
            if twice:
                failures.append(f"{g.gid}: command ids applied twice: {twice[:3]}")
            missing = [cid for cid in tally.accepted[g.gid] if applied[cid] != 1]
            if missing:
                failures.append(f"{g.gid}: {len(missing)} commands answered 200 are not in the game once")
            report = audit(read_record(lines))
            if not report.ok:
                failures.append(f"{g.gid}: the audit failed: {report.to_json()}")
            for who in [*g.tokens, None]:
                headers = bearer(who) if who else {}
                stored = call(c, tally, "GET", f"/v1/games/{g.gid}/view", headers=headers).json()
                fresh = call(c, tally, "GET", f"/v1/games/{g.gid}/view?at={head}", headers=headers).json()
                if stored != fresh:
                    failures.append(f"{g.gid}: the read model of {'a seat' if who else 'the spectator'} "
                                    f"differs from a fresh fold at seq {head}")
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--clients", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    catalog.load()  # the audit below re-runs the games in this process
    tmp = Path(tempfile.mkdtemp(prefix="boardlog-soak-"))
    port, log = free_port(), tmp / "serve.log"
    url = f"http://127.0.0.1:{port}"
    serve = start_serve(tmp / "var", port, log)
    tally = Tally()
    try:
        wait_up(url)
        receiver = Receiver()
        with httpx.Client(base_url=url, timeout=30) as c:
            seated = players(c, receiver)
            games = [new_game(c, tally, TYPES[i % len(TYPES)], seated) for i in range(args.games)]
        print(f"soak: {args.minutes:g} min, {args.games} games, {args.clients} clients, serve log {log}", flush=True)
        glock, stop = threading.Lock(), threading.Event()
        t0 = time.monotonic()
        threads = [threading.Thread(target=play, args=(url, games, glock, tally, stop, random.Random(rnd.random()),
                                                       seated))
                   for _ in range(args.clients)]
        threads.append(threading.Thread(target=chaos, args=(serve, tally, stop, random.Random(rnd.random()))))
        for t in threads:
            t.start()
        stop.wait(args.minutes * 60)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        failures = check(url, games, tally)
        # The notices of the last moves: until the receiver has heard nothing for 15 s.
        while time.monotonic() - receiver.last < 15:
            time.sleep(1)
        # A send a killed notifier began goes once more, under the same webhook-id (the receiver
        # drops it by that id): at most one repeat, counted; a third delivery is a failure.
        thrice = {k: n for k, n in receiver.seen.items() if n > 2}
        if thrice:
            failures.append(f"{len(thrice)} notices delivered more than twice, e.g. {sorted(thrice.items())[:3]}")
    finally:
        os.killpg(serve.pid, signal.SIGINT)
        try:
            serve.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
    rec = recoveries(tally)
    n = sum(len(v) for v in tally.accepted.values())
    kinds = Counter(k for k, _ in tally.kills)
    print(f"commands accepted: {n} ({n / elapsed:.1f}/s over {elapsed:.0f} s); not applied: "
          f"{dict(tally.refused.most_common()) or 0}")
    print(f"games: {len(games)} ({sum(g.done for g in games)} finished)")
    print(f"kills: {len(tally.kills)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
    if rec:
        print(f"recovery to the next accepted command: p50 {statistics.median(rec):.2f} s, max {max(rec):.2f} s")
    print(f"503 answers seen: {tally.unavailable}; dropped connections: {tally.transport_errors}")
    print(f"notices: {len(receiver.seen)} delivered to the webhook receiver, "
          f"{sum(n == 2 for n in receiver.seen.values())} repeated once after a kill (same webhook-id), "
          f"{sum(n > 2 for n in receiver.seen.values())} more than twice")
    for f in failures:
        print(f"FAILED {f}")
    print("all checks passed" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
