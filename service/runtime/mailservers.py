"""SMTP servers of boardlog's own (aiosmtpd): `boardlog serve --dev-mail`'s, which prints every
mail it receives (notices and sign-in links, on a machine with no mail service); and the inbound
listener of reply to play (`boardlog mail-in`), which takes only mail to a live
`play+<token>@<reply domain>` address and plays its first line."""

from __future__ import annotations

import sys
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any, TextIO

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope

from service.runtime.embedded import free_port
from workers.notifications.play import ReplyPlayer, reply_text, token_of


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


class ReplyHandler:
    """Refuses, at RCPT, any address but a live reply token's (so forged or stale mail is never
    even taken); plays each taken mail's first line for each of its tokens."""

    def __init__(self, player: ReplyPlayer) -> None:
        self.player = player

    async def handle_RCPT(self, server: Any, session: Any, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        import asyncio

        token = token_of(address, self.player.domain)
        if token is None or not await asyncio.to_thread(self.player.known, token):
            return "550 5.1.1 no such mailbox (a reply address works once, for its turn)"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:
        import asyncio

        raw = envelope.content if isinstance(envelope.content, bytes) else str(envelope.content).encode()
        msg = message_from_bytes(raw, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        line = reply_text(msg)
        for address in envelope.rcpt_tos:
            token = token_of(address, self.player.domain)
            if token is not None:
                await asyncio.to_thread(self.player.play, token, line)
        return "250 OK"


class MailIn:
    """The reply-to-play listener on host:port."""

    def __init__(self, player: ReplyPlayer, host: str, port: int) -> None:
        self.controller = Controller(ReplyHandler(player), hostname=host, port=port)

    def start(self) -> MailIn:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()
