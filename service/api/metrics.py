"""`/metrics` in Prometheus' text format: the command path of this API process (accepted,
rejected, conflict counts and latency), and the notices of the whole deployment (queued, sent,
failed, retried, superseded and repeated per channel, and notice latency), which the notifier processes count in Redis
(service/stores/notifications.py) so that any API process answers for all of them.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from events.store.groupcommit import SIZE_BUCKETS, BatchSizes
from service.api.credentials import bearer_token
from service.api.errors import ApiError
from service.api.parts import parts
from service.stores.notifications import LATENCY_BUCKETS, TargetStore

router = APIRouter()

CHANNELS = ("email", "apprise", "webhook", "atom")
_OUTCOMES = {200: "accepted", 202: "queued", 409: "conflict", 422: "rejected", 500: "failed"}


class CommandMetrics:
    """This process's command path, on a registry of the app's own (no global state)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.commands = Counter("boardlog_commands", "Commands posted, by their answer", ["outcome"], registry=registry)
        self.latency = Histogram("boardlog_command_seconds", "Time to answer a posted command", ["outcome"],
                                 registry=registry,
                                 buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))
        # Each status's two labelled children, looked up once: `labels()` takes the metric's lock
        # and builds its key on every call, the most of what observing a command cost.
        self._children: dict[int, tuple[Any, Any]] = {}

    def observe(self, status: int, seconds: float) -> None:
        children = self._children.get(status)
        if children is None:
            outcome = _OUTCOMES.get(status, "other")
            children = self._children[status] = (self.commands.labels(outcome), self.latency.labels(outcome))
        children[0].inc()
        children[1].observe(seconds)


class NoticeCollector(Collector):
    """The notices' counters, read from Redis at each scrape."""

    def __init__(self, targets: TargetStore) -> None:
        self.targets = targets

    def collect(self) -> Iterator[CounterMetricFamily | HistogramMetricFamily]:
        c = self.targets.counters()
        families = {
            "queued": CounterMetricFamily("boardlog_notices_queued", "Notify jobs queued", labels=["channel"]),
            "sent": CounterMetricFamily("boardlog_notices_sent", "Notices delivered", labels=["channel"]),
            "failed": CounterMetricFamily("boardlog_notices_failed", "Notices given up on after every retry "
                                          "(dead letters)", labels=["channel"]),
            "retried": CounterMetricFamily("boardlog_notices_retried", "Failed sends tried again", labels=["channel"]),
            "superseded": CounterMetricFamily("boardlog_notices_superseded", "Notices dropped: a newer one of the "
                                              "same game had gone to the same target", labels=["channel"]),
            "repeated": CounterMetricFamily("boardlog_notices_repeated", "Notices sent again after a send "
                                            "cut off by a crash (named a repeat)", labels=["channel"]),
        }
        latency = HistogramMetricFamily("boardlog_notify_latency_seconds",
                                        "From the accepted command to the notice delivered", labels=["channel"])
        for ch in CHANNELS:
            errors, failed = c.get(f"error|{ch}", 0.0), c.get(f"failed|{ch}", 0.0)
            for what in ("queued", "sent", "failed", "superseded", "repeated"):
                families[what].add_metric([ch], c.get(f"{what}|{ch}", 0.0))
            families["retried"].add_metric([ch], max(0.0, errors - failed))
            count = c.get(f"latency_count|{ch}", 0.0)
            running, buckets = 0.0, []
            for b in LATENCY_BUCKETS:
                running += c.get(f"latency_in|{ch}|{b}", 0.0)
                buckets.append((str(b), running))
            buckets.append(("+Inf", count))
            latency.add_metric([ch], buckets, c.get(f"latency_sum|{ch}", 0.0))
        yield from families.values()
        yield latency


class BatchCollector(Collector):
    """`boardlog_command_batch_size`: how many commands each queue message of this API process
    carried (events.store.groupcommit counts them as they go; read at each scrape)."""

    def __init__(self, sizes: BatchSizes) -> None:
        self.sizes = sizes

    def collect(self) -> Iterator[HistogramMetricFamily]:
        s = self.sizes
        buckets: list[tuple[str, float]] = []
        total = 0
        for bound, n in zip(SIZE_BUCKETS, s.buckets, strict=True):
            total += n
            buckets.append((str(bound), total))
        buckets.append(("+Inf", total + s.over))
        yield HistogramMetricFamily("boardlog_command_batch_size", "Commands a queue message carried (group commit)",
                                    buckets=buckets, sum_value=s.sum)


def command_metrics(request: Request) -> CommandMetrics:
    """The app's metrics, made on first use."""
    state = request.app.state
    got = getattr(state, "metrics", None)
    if not isinstance(got, CommandMetrics):
        state.metrics_registry = CollectorRegistry()
        got = state.metrics = CommandMetrics(state.metrics_registry)
    return got


@router.get("/metrics", summary="Prometheus metrics: the command path and the notices", include_in_schema=True)
async def metrics(request: Request) -> Response:
    """Only `Authorization: Bearer <BOARDLOG_METRICS_TOKEN>` is answered (Prometheus:
    `authorization: {credentials: ...}` in the scrape config): the counters tell who plays what
    and how much, so without the setting nobody is."""
    wanted = parts(request).settings.metrics_token
    if not wanted:
        raise ApiError(401, "metrics_token_required", "/metrics answers only a scraper holding the token this "
                       "service is given in BOARDLOG_METRICS_TOKEN, which is not set", {"WWW-Authenticate": "Bearer"})
    given = bearer_token(request) or ""
    if not hmac.compare_digest(given.encode(), wanted.encode()):
        raise ApiError(401, "metrics_token_required", "send 'Authorization: Bearer <BOARDLOG_METRICS_TOKEN>'",
                       {"WWW-Authenticate": "Bearer"})
    command_metrics(request)
    registry: CollectorRegistry = request.app.state.metrics_registry
    if not getattr(request.app.state, "notice_collector", None):
        registry.register(NoticeCollector(parts(request).notifications.targets))
        sizes = getattr(parts(request).queue, "sizes", None)
        if isinstance(sizes, BatchSizes):
            registry.register(BatchCollector(sizes))
        request.app.state.notice_collector = True
    body = await run_in_threadpool(generate_latest, registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
