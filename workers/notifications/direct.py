"""The API's notifications port (service/usecases/notifications/ports.py) on the notifier's own
sender: the sends the API makes in a request, at once, by the same channels as the notify jobs."""

from __future__ import annotations

from email.message import EmailMessage

from service.stores.notifications import Target, TargetStore
from service.usecases.notifications.channels import send_mail_async
from service.usecases.notifications.config import NotifyConfig
from service.usecases.notifications.notices import Notice
from workers.notifications.jobs import Sender


class DirectNotifications:
    """Built once per API process by the composition root; its sender's webhook client is made
    on the first webhook test and shared by the thread pool's sends, as the notify jobs share
    theirs."""

    def __init__(self, targets: TargetStore, config: NotifyConfig) -> None:
        self.targets = targets
        self.config = config
        # A test notice is never held for a digest: nothing is ever scheduled from here.
        self._sender = Sender(targets, config, lambda *_: None)

    def send_test(self, target: Target, notice: Notice, key: str) -> None:
        self._sender.send_test(target, notice, key)

    async def mail(self, msg: EmailMessage) -> None:
        await send_mail_async(self.config.mail, msg)
