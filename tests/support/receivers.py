"""Real local receivers for the notification tests: an SMTP server (aiosmtpd) keeping every mail,
and an HTTP server keeping every request (Apprise's json:// posts and webhooks), whose paths can
be told to fail."""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller

from service.runtime.embedded import free_port

CONFIRM_SUBJECT = "boardlog: confirm your email address"  # service/api/mails.py's


class MailBox:
    """aiosmtpd on 127.0.0.1: every message it receives, parsed."""

    def __init__(self) -> None:
        self.port = free_port()
        self.mails: list[EmailMessage] = []
        self.lock = threading.Lock()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        with self.lock:
            self.mails.append(msg)
        return "250 OK"

    def start(self) -> MailBox:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    def to(self, address: str) -> list[EmailMessage]:
        """The mails to `address`, but for the address's confirmation mails (`confirmations`)."""
        with self.lock:
            return [m for m in self.mails if m["To"] == address and m["Subject"] != CONFIRM_SUBJECT]

    def confirmations(self, address: str) -> list[str]:
        """The tokens of the confirmation links mailed to `address`, oldest first."""
        with self.lock:
            mails = [m for m in self.mails if m["To"] == address and m["Subject"] == CONFIRM_SUBJECT]
        out = []
        for m in mails:
            found = re.search(r"/confirm#token=([\w-]+)", m.get_body(("plain",)).get_content())  # type: ignore[union-attr]
            assert found, m
            out.append(found.group(1))
        return out


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Web:
    """An HTTP server on 127.0.0.1 keeping every POST; `fail[path] = n` answers 500 to the next n
    (-1: for ever); `redirect[path] = url` answers 307 to it."""

    port: int = field(default_factory=free_port)
    hits: dict[str, list[Hit]] = field(default_factory=lambda: defaultdict(list))
    fail: dict[str, int] = field(default_factory=dict)
    redirect: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Web:
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length)
                if len(body) < length:
                    # The sender was killed mid-request: a real receiver would not act on a
                    # cut-off body, and the sender, with no answer, sends it again.
                    return
                with web.lock:
                    if self.path in web.redirect:
                        self.send_response(307)
                        self.send_header("Location", web.redirect[self.path])
                        self.end_headers()
                        return
                    left = web.fail.get(self.path, 0)
                    if left:
                        web.fail[self.path] = left - 1 if left > 0 else -1
                        web.hits[self.path + "#failed"].append(Hit(self.path, dict(self.headers), body))
                        self.send_response(500)
                        self.end_headers()
                        return
                    web.hits[self.path].append(Hit(self.path, dict(self.headers), body))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def at(self, path: str) -> list[Hit]:
        with self.lock:
            return list(self.hits.get(path, []))

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"
