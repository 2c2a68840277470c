"""A stack on either broker: dramatiq's Redis broker, or RabbitMQ (BROKER_URL=amqp://...).

`broker_stack` is parametrized over both; the RabbitMQ case skips when nothing answers at
RABBITMQ_URL (default amqp://guest:guest@127.0.0.1:5672/). Its queues carry the test's own
namespace (workers/rabbit.py names them `<namespace>.<queue>`), and are deleted afterwards, so
a test never touches a queue it did not make.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from tests.conftest import Stack, child_env, running_stack

RABBITMQ_URL = os.environ.get("RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/")


def rabbitmq_reachable(url: str = RABBITMQ_URL) -> bool:
    u = urlparse(url)
    try:
        with socket.create_connection((u.hostname or "127.0.0.1", u.port or 5672), timeout=1):
            return True
    except OSError:
        return False


def delete_queues(url: str, prefix: str) -> None:
    """Every queue of this namespace (and its delay and dead-letter queues)."""
    import pika

    conn = pika.BlockingConnection(pika.URLParameters(url))
    try:
        ch = conn.channel()
        # The commands went through RabbitMQ: their queue is there (passive: an error if not).
        ch.queue_declare(f"{prefix}.commands", passive=True)
        for queue in ("commands", "notify"):
            for suffix in ("", ".DQ", ".XQ"):
                ch.queue_delete(f"{prefix}.{queue}{suffix}")
    finally:
        conn.close()


@pytest.fixture(params=["redis", "rabbitmq"])
def broker_stack(request: pytest.FixtureRequest, redis_url: str, namespace: str, tmp_path: Path) -> Iterator[Stack]:
    # Every accepted command's line too (a debug line): the match-flow test reads them all.
    extra: dict[str, str] = {"BOARDLOG_LOG_LEVEL": "debug"}
    if request.param == "rabbitmq":
        if not rabbitmq_reachable():
            pytest.skip(f"RabbitMQ is not reachable at {urlparse(RABBITMQ_URL).netloc.split('@')[-1]}")
        extra["BROKER_URL"] = RABBITMQ_URL
    try:
        with running_stack(child_env(redis_url, namespace, **extra), tmp_path) as s:
            yield s
    finally:
        if request.param == "rabbitmq":
            delete_queues(RABBITMQ_URL, namespace)


def broker_of(env: dict[str, str]) -> Any:
    """A broker on a stack's own (its BROKER_URL, else its Redis), for a test that sends messages
    itself: a batch of its choosing, or a message of the shape queued before batches."""
    from workers.broker import make_broker
    from workers.rabbit import make_rabbit_broker

    url, ns = env.get("BROKER_URL") or env["REDIS_URL"], env["BOARDLOG_NAMESPACE"]
    if url.startswith("amqp"):
        return make_rabbit_broker(url, prefix=ns)
    return make_broker(url, namespace=f"{ns}-dramatiq")
