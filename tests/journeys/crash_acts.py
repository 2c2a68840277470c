"""What the crash journey needs beyond acts.py: slow receivers (a mail server and a chat service
that take their time, so a kill finds notices mid-send), a `boardlog serve` that can be killed -9
as a whole and started again on the same data, players told by mail and Apprise, a burst of legal
moves, and each player's notices as they arrived, in order."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import orjson

from service.runtime.embedded import free_port
from tests.conftest import ROOT, child_env, wait_for, wait_http
from tests.integration.helpers import bearer
from tests.journeys.acts import accepted, send
from tests.support.receivers import MailBox

SLOW = 0.4  # seconds each receiver takes over a notice


class SlowMailBox(MailBox):
    """aiosmtpd that takes its time over each mail (and keeps it only once it has it all)."""

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(SLOW)
        return await super().handle_DATA(server, session, envelope)


@dataclass
class Chat:
    """A chat service Apprise posts to (json://): keeps each message body as it arrives, then
    takes its time to answer, as a busy service does."""

    port: int = field(default_factory=free_port)
    said: dict[str, list[str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Chat:
        chat = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length)
                if len(body) < length:
                    return
                with chat.lock:
                    chat.said.setdefault(self.path, []).append(str(orjson.loads(body)["message"]))
                time.sleep(SLOW)
                try:
                    self.send_response(200)
                    self.end_headers()
                except OSError:  # the sender was killed meanwhile
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def at(self, path: str) -> list[str]:
        with self.lock:
            return list(self.said.get(path, []))


@dataclass
class Serve:
    """One `boardlog serve` over a namespace and data directory, killed -9 and started again."""

    env: dict[str, str]
    root: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mail_in_port(self) -> int:
        return int(self.env["BOARDLOG_MAIL_IN_PORT"])

    def start(self) -> float:
        """Start it; the monotonic time at which its API answered."""
        log = self.root / "serve.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(self.port), "--data",
             str(self.root / "var"), "--workers", "1"],
            env=self.env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
        if not wait_http(self.url, timeout=120, namespace=self.env["BOARDLOG_NAMESPACE"], proc=self.proc):
            raise RuntimeError(f"serve did not start: {log.read_text()[-3000:]}")
        return time.monotonic()

    def wait_notifier(self, starts: int) -> None:
        log = self.root / "serve.log"
        wait_for(lambda: log.read_bytes().count(b"notifier.started") >= starts, timeout=90, interval=0.2)

    def kill9(self) -> None:
        """kill -9 of every process of the serve (its process group), as a power cut does."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        wait_for(lambda: not _group_alive(self.proc.pid if self.proc else 0), timeout=20, interval=0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def serve(redis_url: str, root: Path, mail_port: int) -> Serve:
    """A serve with production's broker timings (a dead worker's messages come back from
    dramatiq's own maintenance only after 15 s, and by chance), so what brings them back sooner
    is boardlog's own; mail to `mail_port`."""
    env = child_env(redis_url, f"j{uuid.uuid4().hex[:12]}", BOARDLOG_DATA=str(root / "data"),
                    BOARDLOG_HEARTBEAT_MS="15000", BOARDLOG_MAINTENANCE_CHANCE="10000",
                    BOARDLOG_NOTIFY_BACKOFF_MS="100", BOARDLOG_NOTIFY_CLAIM_MS="1000",
                    BOARDLOG_PLAYERS_PER_MINUTE="0", BOARDLOG_SIGNIN_MAILS_PER_MINUTE="0",
                    BOARDLOG_SMTP_HOST="127.0.0.1", BOARDLOG_SMTP_PORT=str(mail_port), BOARDLOG_SMTP_TLS="none",
                    BOARDLOG_REPLY_DOMAIN="play.test", BOARDLOG_MAIL_IN_PORT=str(free_port()))
    root.mkdir(parents=True, exist_ok=True)
    return Serve(env, root)


@dataclass
class Player:
    name: str
    id: str
    key: str
    address: str
    chat: str  # the chat service's path
    targets: dict[str, str]  # kind -> target id


def player(c: httpx.Client, mailbox: MailBox, chat: Chat, name: str) -> Player:
    """A player told by mail (the address confirmed by its link) and by a chat through Apprise."""
    r = c.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    made = r.json()
    address = f"{name}-{made['id']}@example.org"
    r = c.post("/v1/me/targets", json={"kind": "email", "address": address}, headers=bearer(made["key"]))
    assert r.status_code == 201, r.text
    mail_target = r.json()["target"]["id"]
    wait_for(lambda: mailbox.confirmations(address), timeout=30)
    ok = c.post("/v1/confirmations", json={"token": mailbox.confirmations(address)[-1]})
    assert ok.status_code == 200, ok.text
    path = f"/chat/{made['id']}"
    r = c.post("/v1/me/targets", json={"kind": "apprise", "address": f"json://127.0.0.1:{chat.port}{path}"},
               headers=bearer(made["key"]))
    assert r.status_code == 201, r.text
    return Player(name, made["id"], made["key"], address, path,
                  {"email": mail_target, "apprise": r.json()["target"]["id"]})


def rite(c: httpx.Client, seats: list[Player]) -> tuple[str, list[str]]:
    """A two-seat Rite game whose seats the players claim: its id and seat tokens."""
    r = c.post("/v1/games", json={"game": "rite", "seats": [p.name for p in seats]})
    assert r.status_code == 201, r.text
    made = r.json()
    tokens = [s["token"] for s in made["seats"]]
    for p, token in zip(seats, tokens, strict=True):
        claimed = c.post(f"/v1/games/{made['id']}/claim", json={"token": token}, headers=bearer(p.key))
        assert claimed.status_code == 200, claimed.text
    wait_for(lambda: (c.get(f"/v1/games/{made['id']}").json() or {}).get("prompt"), timeout=15)
    return str(made["id"]), tokens


def move(c: httpx.Client, gid: str, tokens: list[str]) -> int:
    """The seat to move plays its first legal command; the last seq it wrote."""
    game = c.get(f"/v1/games/{gid}").json()
    seat = game["prompt"]["seats"][0]
    legal = c.get(f"/v1/games/{gid}/legal", params={"min_seq": game["seq"]},
                  headers=bearer(tokens[seat])).json()["commands"]
    m = next((x for x in legal if not x["type"].endswith(".pass")), legal[0])
    return accepted(send(c, gid, tokens[seat], m["type"], m["args"]))[1]


# --- what arrived ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arrival:
    seq: int
    key: str
    repeat: bool


def mails_of(mailbox: MailBox, p: Player, gid: str) -> list[Arrival]:
    """`p`'s notice mails of game `gid`, in the order they arrived."""
    out = []
    for m in mailbox.to(p.address):
        key = str(m["X-Boardlog-Notice"] or "")
        if key.startswith(f"{gid}:"):
            out.append(Arrival(int(key.split(":")[1]), key, str(m["X-Boardlog-Repeat"] or "") == "yes"))
    return out


_TAG = re.compile(r"\(notice ([0-9a-f]{10})(, a repeat)?\)\s*$")


def chats_of(chat: Chat, p: Player, gid: str, head: int) -> list[Arrival]:
    """`p`'s Apprise messages of game `gid`, in arrival order, each known by the notice id at its
    end (every key the game's first `head` seqs could make)."""
    tid = p.targets["apprise"]
    keys = {hashlib.sha256(k.encode()).hexdigest()[:10]: (s, k)
            for s in range(1, head + 1) for k in [f"{gid}:{s}:{p.id}:{tid}"]}
    out = []
    for text in chat.at(p.chat):
        found = _TAG.search(text)
        assert found, f"an Apprise message without its notice id: {text!r}"
        if found.group(1) in keys:
            seq, key = keys[found.group(1)]
            out.append(Arrival(seq, key, found.group(2) is not None))
    return out
