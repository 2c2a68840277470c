"""`boardlog serve --dev-mail`: a local SMTP server (aiosmtpd) that prints every mail it receives,
so that notices and sign-in links can be read on a machine with no mail service."""

from __future__ import annotations

import sys
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any, TextIO

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope

from service.embedded import free_port


class PrintingHandler:
    def __init__(self, out: TextIO) -> None:
        self.out = out

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:
        raw = envelope.content if isinstance(envelope.content, bytes) else str(envelope.content).encode()
        msg = message_from_bytes(raw, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        body = msg.get_body(preferencelist=("plain",))
        text = body.get_content() if body is not None else ""
        self.out.write(f"\n=== mail to {', '.join(envelope.rcpt_tos)}\nSubject: {msg['Subject']}\n"
                       f"List-Unsubscribe: {msg.get('List-Unsubscribe', '')}\n\n{text}\n===\n")
        self.out.flush()
        return "250 OK"


class DevMail:
    """The printing SMTP server on 127.0.0.1 and a free port (or the one given)."""

    def __init__(self, port: int | None = None, out: TextIO | None = None) -> None:
        self.port = port or free_port()
        self.controller = Controller(PrintingHandler(out or sys.stdout), hostname="127.0.0.1", port=self.port)

    def start(self) -> DevMail:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()
