"""How notifications go out in this deployment: the public URL their links start with, the SMTP
server, the timeouts and retries of a send, the digest's period, the reply-to-play domain and
where webhook and Apprise targets may connect. Plain data, made from settings by the runtime."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.stores.notifications import Target
from service.usecases.notifications.channels import MailSettings
from service.usecases.notifications.egress import Egress


@dataclass(frozen=True, slots=True)
class NotifyConfig:
    public_url: str = "http://127.0.0.1:8000"
    mail: MailSettings = field(default_factory=MailSettings)
    timeout: float = 10.0
    digest_seconds: float = 86400.0
    max_retries: int = 8
    min_backoff_ms: int = 1000
    max_backoff_ms: int = 600_000
    reply_domain: str = ""  # set: turn mails carry a reply-to-play address at this domain
    egress: Egress = field(default_factory=Egress)  # where webhook and Apprise targets may connect

    def unsubscribe_url(self, t: Target) -> str:
        return f"{self.public_url.rstrip('/')}/unsubscribe/{t.unsubscribe}"
