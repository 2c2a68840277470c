"""What the API needs of notifications, as a port: the composition root builds it once (on the
notifier's own sender, workers/notifications/direct.py), so the API never imports the workers."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Protocol

from service.stores.notifications import Target, TargetStore
from service.usecases.notifications.config import NotifyConfig
from service.usecases.notifications.notices import Notice


class Notifications(Protocol):
    """The players' targets and the notifier's records, the config the API's mails and links
    are made with, and the two sends the API makes itself, at once rather than through the
    notify queue: a test notice and its own mails (sign-in and confirmation links)."""

    @property
    def targets(self) -> TargetStore: ...

    @property
    def config(self) -> NotifyConfig: ...

    def send_test(self, target: Target, notice: Notice, key: str) -> None:
        """Send `notice` to `target` now and mark it sent under `key` (an Atom target: add it to
        the feed); raises `SendFailed`, leaving the failure for the caller to record."""
        ...

    async def mail(self, msg: EmailMessage) -> None:
        """Send one of the API's own mails; raises `SendFailed`."""
        ...
