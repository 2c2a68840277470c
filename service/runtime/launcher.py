"""Running the parts: worker and projector loops, and `serve`, which starts them all."""

from __future__ import annotations

import dataclasses
import faulthandler
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Protocol

import dramatiq
import structlog

from projections.projector import Projector
from service.runtime.bootstrap import Parts, build
from service.runtime.embedded import EmbeddedRedis
from service.runtime.heap import settle_heap
from service.runtime.settings import Settings
from service.stores.signingkeys import SigningKeyError, load_keys
from service.usecases.notifications.egress import networks

log = structlog.get_logger("boardlog.launcher")


def stop_event(dump_after: float | None = 5.0) -> threading.Event:
    """An event set by the first SIGINT or SIGTERM; later ones do nothing. A part still running
    `dump_after` seconds after the signal writes every thread's stack to its stderr (serve's
    log): what it waits for, before serve kills it at 15 s."""
    stop = threading.Event()

    def later(signum: int, _: FrameType | None) -> None:
        pass

    def first(signum: int, _: FrameType | None) -> None:
        # Ctrl-C reaches the whole group and serve then sends SIGTERM: a second signal landing
        # while this handler is inside Event.set, whose lock is not reentrant, hung the process
        # for good. So later signals find a handler that takes no lock.
        signal.signal(signal.SIGINT, later)
        signal.signal(signal.SIGTERM, later)
        if dump_after is not None:
            faulthandler.dump_traceback_later(dump_after, exit=False)
        stop.set()

    signal.signal(signal.SIGINT, first)
    signal.signal(signal.SIGTERM, first)
    return stop


def wait_until_set(stop: threading.Event) -> None:
    """Wait for `stop` in the main thread, waking every 0.2 s. A process-wide signal may be
    delivered to any thread; CPython runs the handler only in the main thread, and one blocked
    in an untimed wait is woken only if the kernel picked it. With the worker's threads, Ctrl-C
    once landed on another thread and the part sat out serve's 15 s until it was killed."""
    while not stop.wait(0.2):
        pass


class Loop(Protocol):
    """A part's main loop (the projector's, the notifier's, the deadlines'): `run` returns once
    `running` is set False."""

    running: bool

    def run(self) -> None: ...


def run_until(stop: threading.Event, loop: Loop) -> None:
    """Run `loop` in this thread until `stop` is set. The loop holds the main thread, so it
    cannot wait for `stop` itself; a daemon thread waits and ends it."""

    def watch() -> None:
        stop.wait()
        loop.running = False

    threading.Thread(target=watch, daemon=True).start()
    loop.run()


def _stop_worker(core: Parts, worker: dramatiq.Worker) -> None:
    core.broker.stopping.set()  # a handler waiting for Redis lets go of its message
    worker.stop(timeout=10_000)
    core.broker.close()


def _follow_beside_worker(core: Parts, stop: threading.Event, loop: Loop, threads: int, queue: str,
                          started: str) -> None:
    """Follow the feeds with `loop` in the main thread while a dramatiq worker runs `queue`'s
    jobs on its threads, until `stop`; `started` is the part's log event."""
    worker = dramatiq.Worker(core.broker, worker_threads=threads, worker_timeout=1000, queues={queue})
    settle_heap()
    worker.start()
    log.info(started, pid=os.getpid(), threads=threads)
    run_until(stop, loop)
    _stop_worker(core, worker)


# How long a command worker's thread may hold the GIL while another waits for it (Python's
# default is 5 ms). The threads mostly wait on Redis; one whose reply has come waited for the GIL
# as long as another thread decided a batch, and its batch's commands with it. At 64 games
# (bench_trips, 2 runs of 3-4 alternating rounds) 0.5 ms gave a p99 0.85-0.88x with `everysec`
# at the same rate and CPU; with `always` the rate was 0.96-0.98x, the p99 the same.
WORKER_SWITCH_INTERVAL = 0.0005


def run_worker(settings: Settings, threads: int) -> None:
    stop = stop_event()
    parts = build(settings, handle=True)
    worker = dramatiq.Worker(parts.broker, worker_threads=threads, worker_timeout=1000)
    settle_heap()
    sys.setswitchinterval(WORKER_SWITCH_INTERVAL)
    worker.start()
    log.info("worker.started", pid=os.getpid(), threads=threads, switch_interval=sys.getswitchinterval())
    wait_until_set(stop)
    _stop_worker(parts, worker)
    log.info("worker.stopped", pid=os.getpid())


def run_projector(settings: Settings) -> None:
    parts = build(settings)
    projector = Projector(parts.store, requeue=parts.actor.send,
                          requeue_after_ms=int(settings.requeue_after_seconds * 1000))
    stop = stop_event()
    if settings.archive_after_seconds >= 0:  # finished games to their archive records (issue #18)
        from workers.archiver import Archiver
        Archiver(parts.store, settings.archive_after_seconds, settings.archive_every_seconds).start(stop)
    from workers.sweeper import Sweeper  # expired refusals and untouched games (issue #42 item 6)

    Sweeper(parts.store, settings.refused_result_seconds, settings.untouched_game_seconds,
            settings.sweep_every_seconds).start(stop)
    settle_heap()
    run_until(stop, projector)


def run_notifier(settings: Settings, threads: int) -> None:
    """Follow the feeds (queueing notify jobs) and run the notify jobs, in one process: a slow
    SMTP server or webhook never holds a command worker's thread."""
    from service.runtime.bootstrap import build_notifier
    from workers.notifications.follower import Notifier
    from workers.notifications.jobs import NOTIFY_QUEUE
    from workers.rabbit import queue_named

    stop = stop_event()
    core, notify, actors = build_notifier(settings)
    notifier = Notifier(core.store, notify.targets, actors.enqueue, claim_idle_ms=settings.notify_claim_ms,
                        dispute_reminder_ms=int(settings.dispute_reminder_seconds * 1000))
    _follow_beside_worker(core, stop, notifier, threads, queue_named(core.broker, NOTIFY_QUEUE),
                          "notifier.worker_started")


def run_deadlines(settings: Settings, threads: int) -> None:
    """Follow the feeds (scheduling each clock's deadlines as delayed messages) and run the
    deadline messages as they fall due, in one process."""
    from service.runtime.bootstrap import build_deadlines
    from workers.deadlines import DEADLINES_QUEUE

    stop = stop_event()
    core, deadlines = build_deadlines(settings)
    _follow_beside_worker(core, stop, deadlines, threads, DEADLINES_QUEUE, "deadlines.worker_started")


def run_mail_in(settings: Settings, host: str, port: int) -> None:
    """The inbound SMTP listener of reply to play, until a signal."""
    from service.runtime.bootstrap import build_reply_player
    from service.runtime.mailservers import MailIn

    if not settings.reply_domain:
        raise SystemExit("boardlog mail-in needs BOARDLOG_REPLY_DOMAIN (the domain of the play+<token>@ addresses)")
    stop = stop_event()
    listener = MailIn(build_reply_player(settings), host, port).start()
    settle_heap()
    log.info("mail_in.started", host=host, port=port, domain=settings.reply_domain)
    wait_until_set(stop)
    listener.stop()


def run_api(settings: Settings, host: str, port: int, processes: int = 1) -> None:
    import uvicorn

    from service.runtime.asgi import create_app
    from service.runtime.transport import JsonHttpTools

    # uvicorn by default believes X-Forwarded-For from loopback, so any local client (or one
    # behind a proxy on this machine) could name its own address for every per-address limit:
    # only the proxies the settings name are believed, and none by default.
    trusted, proxies = bool(settings.trusted_proxies), list(settings.trusted_proxies)
    if processes == 1:
        # log_config=None: uvicorn's records go to the root handler, in this service's format.
        uvicorn.run(create_app(settings, settle=True), host=host, port=port, log_level="warning", access_log=False,
                    log_config=None, timeout_graceful_shutdown=5, http=JsonHttpTools,
                    proxy_headers=trusted, forwarded_allow_ips=proxies)
        return
    # Several processes share the port; each builds its app from the same environment.
    os.environ.update(settings.env())
    uvicorn.run("service.runtime.asgi:served_app", factory=True, host=host, port=port, workers=processes,
                log_level="warning", access_log=False, log_config=None, timeout_graceful_shutdown=5,
                http=JsonHttpTools, proxy_headers=trusted, forwarded_allow_ips=proxies)


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "service.runtime.cli", *args], env=env)


# A part that dies after this long up is started again at once; one that dies sooner waits
# 1 s, doubling to 30 s, so a part that cannot start does not spin.
STEADY_SECONDS = 10.0
MAX_RESTART_DELAY = 30.0


@dataclass
class Part:
    """One supervised process of `serve`: its command line, and when to start it again."""

    name: str
    args: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    quick_exits: int = 0
    restart_at: float | None = None

    def start(self, env: dict[str, str]) -> None:
        self.proc, self.started, self.restart_at = _spawn(self.args, env), time.monotonic(), None

    def exited(self, now: float) -> int | None:
        """The exit code if the process has just been found dead (and schedules its restart)."""
        if self.proc is None or self.restart_at is not None:
            return None
        code = self.proc.poll()
        if code is None:
            return None
        self.quick_exits = self.quick_exits + 1 if now - self.started < STEADY_SECONDS else 0
        delay = 0.0 if not self.quick_exits else min(MAX_RESTART_DELAY, 2.0 ** (self.quick_exits - 1))
        self.restart_at = now + delay
        return code


def _wait_for_api(url: str, children: list[subprocess.Popen[bytes]], stop: threading.Event) -> bool:
    """Wait until the API answers (so the printed URL works when it is printed), or a part
    exits. No deadline while every part runs: on a machine under heavy load the parts took over
    a minute to start, and giving up then stopped a service that was about to answer."""
    import httpx

    started, said = time.monotonic(), 0
    while not stop.is_set():
        if any(c.poll() is not None for c in children):
            return False
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        waited = int(time.monotonic() - started)
        if waited >= 30 and waited // 30 > said:
            said = waited // 30
            log.warning("serve.still_starting", waited_seconds=waited, url=url)
        stop.wait(0.1)
    return False


def port_taken(host: str, port: int) -> str | None:
    """Why the API could not listen on host:port, or None if it can (as uvicorn binds it)."""
    import socket

    try:
        # create_server sets SO_REUSEADDR as uvicorn does, so a port in TIME_WAIT is not "taken".
        with socket.create_server((host, port)):
            pass
    except OSError as e:
        return os.strerror(e.errno) if e.errno else str(e)
    return None


def _prepared(settings: Settings, host: str, port: int, data: Path, fsync: str
              ) -> tuple[Settings, EmbeddedRedis | None]:
    """The settings `serve` hands its parts, and the embedded Redis it started (none when
    REDIS_URL is set). Raises SigningKeyError or ValueError for a setting that cannot work."""
    embedded: EmbeddedRedis | None = None
    if "REDIS_URL" not in os.environ:
        embedded = EmbeddedRedis(data, private=True, fsync=fsync).start()
        settings = Settings.from_env(redis_url=embedded.url)
        log.info("redis.embedded", url=embedded.shown_url, data=str(data.resolve()), fsync=fsync)
    if "BOARDLOG_DATA" not in os.environ:  # the signing keys live beside the embedded Redis's data
        settings = dataclasses.replace(settings, data_dir=str(data.resolve()))
    try:
        networks(settings.notify_allow)  # said here, not in the log of the part that reads it
        load_keys(settings)  # made once here, before the parts that sign start
    except (SigningKeyError, ValueError):
        if embedded is not None:
            embedded.stop()
        raise
    if "BOARDLOG_PUBLIC_URL" not in os.environ:  # the links in mails point at this serve
        settings = dataclasses.replace(settings, public_url=f"http://{host}:{port}")
    return settings, embedded


def _parts(settings: Settings, host: str, port: int, workers: int, threads: int) -> tuple[list[Part], list[Part]]:
    """The parts started at once, and those started once the API answers: on a busy machine
    every process started at once slows them all, and nothing is lost meanwhile (the notifier
    catches up)."""
    now = [Part(f"worker-{i + 1}", ["worker", "--processes", "1", "--threads", str(threads)]) for i in range(workers)]
    now.append(Part("projector", ["projector"]))
    now.append(Part("api", ["api", "--host", host, "--port", str(port)]))
    later = [Part("notifier", ["notifier"]), Part("deadlines", ["deadlines"])]
    if settings.reply_domain:  # reply to play: the inbound listener, its own part
        later.append(Part("mail-in", ["mail-in"]))
    return now, later


def _keep_running(parts: list[Part], embedded: EmbeddedRedis | None, env: dict[str, str],
                  stop: threading.Event) -> None:
    """Start again the embedded Redis and any part that exits, until `stop` is set."""
    redis_down_since: float | None = None
    while not stop.is_set():
        now = time.monotonic()
        if embedded is not None and embedded.proc is not None and embedded.proc.poll() is not None:
            # The parts wait for Redis and reconnect on their own; it comes back from its AOF.
            if redis_down_since is None:
                redis_down_since = now
                log.error("serve.redis_exited", code=embedded.proc.poll())
            try:
                embedded.start()
                log.warning("serve.redis_restarted", down_seconds=round(time.monotonic() - redis_down_since, 2))
                redis_down_since = None
            except RuntimeError as e:
                log.error("serve.redis_start_failed", error=str(e))
                stop.wait(1.0)
                continue
        for part in parts:
            if stop.is_set():
                break  # Ctrl-C reaches the parts too: one may be gone before this loop sees it
            exit_code = part.exited(now)
            if exit_code is not None:
                log.error("serve.part_exited", part=part.name, code=exit_code,
                          restart_in=round((part.restart_at or now) - now, 2))
            if part.restart_at is not None and now >= part.restart_at:
                part.start(env)
                log.warning("serve.part_restarted", part=part.name, pid=part.proc.pid if part.proc else None)
        stop.wait(0.25)


def _stop_parts(parts: list[Part]) -> None:
    """SIGTERM to every running part, last started first; a kill for any still there after 15 s."""
    running = [p.proc for p in reversed(parts) if p.proc is not None and p.proc.poll() is None]
    for proc in running:
        proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for proc in running:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def serve(settings: Settings, host: str, port: int, data: Path, workers: int, threads: int,
          dev_mail: bool = False, fsync: str = "everysec") -> int:
    """Start Redis (embedded unless REDIS_URL is set), workers, projector and API; start a part
    again when it dies; stop them all on a signal."""
    taken = port_taken(host, port)
    if taken:
        # Before anything starts: seconds of Redis, workers and projector for nothing, otherwise.
        print(f"boardlog: cannot listen on {host}:{port}: {taken}. Stop what uses it, or pass --port.",
              file=sys.stderr, flush=True)
        return 1
    stop = stop_event(dump_after=None)  # serve waits on its parts: their stacks tell, not its own
    try:
        settings, embedded = _prepared(settings, host, port, data, fsync)
    except (SigningKeyError, ValueError) as e:
        print(f"boardlog: {e}", file=sys.stderr, flush=True)
        return 1
    # --dev-mail: a local SMTP server that prints every mail it receives; the notices go to it.
    mail_sink = None
    if dev_mail:
        from service.runtime.mailservers import DevMail  # here: aiosmtpd only for --dev-mail

        mail_sink = DevMail().start()
        settings = dataclasses.replace(settings, smtp_host="127.0.0.1", smtp_port=mail_sink.port, smtp_tls="none")
        print(f"dev mail: an SMTP server on 127.0.0.1:{mail_sink.port} prints every mail it receives", flush=True)
    env = {**os.environ, **settings.env(), "PYTHONPATH": os.pathsep.join(sys.path)}
    parts, later = _parts(settings, host, port, workers, threads)
    for part in parts:
        part.start(env)
    code = 0
    if _wait_for_api(f"http://{host}:{port}/v1/health", [p.proc for p in parts if p.proc is not None], stop):
        for part in later:
            part.start(env)
        parts.extend(later)
        print(f"boardlog is up: open http://{host}:{port}/ (Ctrl-C stops it)", flush=True)
    elif not stop.is_set():
        # Not up at all (the port taken, a bad setting): say so and stop, rather than retry.
        log.error("serve.start_failed", codes={p.name: p.proc.poll() for p in parts if p.proc is not None})
        code = 1
        stop.set()
    _keep_running(parts, embedded, env, stop)
    _stop_parts(parts)
    if embedded is not None:
        embedded.stop()
    if mail_sink is not None:
        mail_sink.stop()
    log.info("serve.stopped")
    return code
