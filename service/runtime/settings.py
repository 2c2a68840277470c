"""Settings from the environment, read once by each entry point and passed down."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields

from events.store.layout import DEFAULT_PARTITIONS

# Each setting's environment variable (child processes get them back from `env`).
ENV: dict[str, str] = {
    "redis_url": "REDIS_URL",
    "broker_url": "BROKER_URL",
    "namespace": "BOARDLOG_NAMESPACE",
    "partitions": "BOARDLOG_PARTITIONS",
    "extra_games": "BOARDLOG_EXTRA_GAMES",
    "log_format": "BOARDLOG_LOG",
    "command_wait_seconds": "BOARDLOG_WAIT_SECONDS",
    "heartbeat_timeout_ms": "BOARDLOG_HEARTBEAT_MS",
    "store_wait_seconds": "BOARDLOG_STORE_WAIT_SECONDS",
    "max_retries": "BOARDLOG_MAX_RETRIES",
    "requeue_after_seconds": "BOARDLOG_REQUEUE_AFTER_SECONDS",
    "archive_after_seconds": "BOARDLOG_ARCHIVE_AFTER_SECONDS",
    "archive_every_seconds": "BOARDLOG_ARCHIVE_EVERY_SECONDS",
    "maintenance_chance": "BOARDLOG_MAINTENANCE_CHANCE",
    "wake_consumer": "BOARDLOG_WAKE_CONSUMER",
    "players_per_minute": "BOARDLOG_PLAYERS_PER_MINUTE",
    "signins_per_minute": "BOARDLOG_SIGNINS_PER_MINUTE",
    "anon_records_per_minute": "BOARDLOG_ANON_RECORDS_PER_MINUTE",
    "anon_replays_per_minute": "BOARDLOG_ANON_REPLAYS_PER_MINUTE",
    "table_expiry_seconds": "BOARDLOG_TABLE_EXPIRY_SECONDS",
    "tables_per_minute": "BOARDLOG_TABLES_PER_MINUTE",
    "messages_per_minute": "BOARDLOG_MESSAGES_PER_MINUTE",
    "public_url": "BOARDLOG_PUBLIC_URL",
    "smtp_host": "BOARDLOG_SMTP_HOST",
    "smtp_port": "BOARDLOG_SMTP_PORT",
    "smtp_tls": "BOARDLOG_SMTP_TLS",
    "smtp_user": "BOARDLOG_SMTP_USER",
    "smtp_password": "BOARDLOG_SMTP_PASSWORD",
    "mail_from": "BOARDLOG_MAIL_FROM",
    "notify_timeout_seconds": "BOARDLOG_NOTIFY_TIMEOUT_SECONDS",
    "notify_max_retries": "BOARDLOG_NOTIFY_MAX_RETRIES",
    "notify_backoff_ms": "BOARDLOG_NOTIFY_BACKOFF_MS",
    "notify_claim_ms": "BOARDLOG_NOTIFY_CLAIM_MS",
    "notify_allow": "BOARDLOG_NOTIFY_ALLOW",
    "digest_seconds": "BOARDLOG_DIGEST_SECONDS",
    "signin_mails_per_minute": "BOARDLOG_SIGNIN_MAILS_PER_MINUTE",
    "reply_domain": "BOARDLOG_REPLY_DOMAIN",
    "mail_in_host": "BOARDLOG_MAIL_IN_HOST",
    "mail_in_port": "BOARDLOG_MAIL_IN_PORT",
    "data_dir": "BOARDLOG_DATA",
    "signing_key": "BOARDLOG_SIGNING_KEY",
    "signing_old_keys": "BOARDLOG_SIGNING_OLD_KEYS",
    "watchers_per_client": "BOARDLOG_WATCHERS_PER_CLIENT",
    "watchers_total": "BOARDLOG_WATCHERS_TOTAL",
    "min_seq_wait_seconds": "BOARDLOG_MIN_SEQ_WAIT_SECONDS",
    "me_stream_refresh_seconds": "BOARDLOG_ME_STREAM_REFRESH_SECONDS",
    "metrics_token": "BOARDLOG_METRICS_TOKEN",
    "clock_min_seconds": "BOARDLOG_CLOCK_MIN_SECONDS",
    "vacation_days": "BOARDLOG_VACATION_DAYS",
}


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    broker_url: str = ""
    namespace: str = "bl"
    partitions: int = DEFAULT_PARTITIONS
    extra_games: tuple[str, ...] = field(default_factory=tuple)
    log_format: str = "auto"  # auto | json | pretty
    command_wait_seconds: float = 10.0
    heartbeat_timeout_ms: int = 15_000
    # How long a command's handler waits for an unreachable Redis before letting its message
    # go back on the queue.
    store_wait_seconds: float = 30.0
    # Tries of a command that fails (outside the rules) before it is answered as failed.
    max_retries: int = 20
    # A command still unanswered this long after it was queued is queued again (its message
    # may be lost: a broker Redis restarted without its data).
    requeue_after_seconds: float = 60.0
    # A finished game is swapped for its archive record this long after it ended (negative:
    # never); the archiver looks for such games every archive_every_seconds.
    archive_after_seconds: float = 86_400.0
    archive_every_seconds: float = 60.0
    # Broker calls out of a million that also requeue dead workers' unacked messages.
    maintenance_chance: int = 10_000
    # False runs dramatiq's own consumer (sleeps after an empty fetch): the bench's baseline.
    wake_consumer: bool = True
    # Players created, and sign-ins, per client (peer address) a minute; 0: no limit.
    players_per_minute: int = 10
    signins_per_minute: int = 30
    # Expensive reads (audit and export: "records"; the board at a past seq: "replays") a minute
    # per client address without a token or session; seats, admins and players get ten times.
    anon_records_per_minute: int = 20
    anon_replays_per_minute: int = 300
    # A table with open seats that nobody fills in this long is closed (expired).
    table_expiry_seconds: float = 7 * 86400.0
    # Games with invited or open seats one client address may create a minute; 0: no limit.
    tables_per_minute: int = 10
    # Table talk: messages (and commands' comments) one seat may post to a game a minute; 0: no limit.
    messages_per_minute: int = 20
    # Notifications (issue #19): the address links in notices point at, the SMTP server, and
    # how the notify jobs retry. No SMTP host: email targets fail, saying so.
    public_url: str = "http://127.0.0.1:8000"
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_tls: str = "starttls"  # starttls | tls | none
    smtp_user: str = ""
    smtp_password: str = ""
    mail_from: str = "boardlog <boardlog@localhost>"
    notify_timeout_seconds: float = 10.0
    notify_max_retries: int = 8
    notify_backoff_ms: int = 1000
    notify_claim_ms: int = 10_000
    # Webhook and Apprise targets reach public addresses only; these networks (comma-separated,
    # like 127.0.0.1 or 10.0.0.0/8) too, for receivers inside the deployment or on loopback.
    notify_allow: tuple[str, ...] = ()
    digest_seconds: float = 86400.0
    signin_mails_per_minute: int = 5
    # Reply to play: turn mails carry play+<token>@reply_domain, received by `boardlog mail-in`.
    reply_domain: str = ""
    mail_in_host: str = "127.0.0.1"
    mail_in_port: int = 2525
    # Signed records (issue #21): the data directory holds the signing keys (signing/) unless
    # BOARDLOG_SIGNING_KEY gives one (a PEM text or file); BOARDLOG_SIGNING_OLD_KEYS lists the
    # retired public keys (hex, comma-separated) that /v1/keys still publishes.
    data_dir: str = "./var"
    signing_key: str = field(default="", repr=False)  # a private key: never in a repr or a log
    signing_old_keys: str = ""
    # Server-sent event streams one API process holds: per client address, and in all (0: no
    # cap). Past them, 429 (that client) or 503 (the process), each with Retry-After.
    watchers_per_client: int = 50
    watchers_total: int = 2000
    # How long a read with ?min_seq=N waits for the projection to reach N before 504.
    min_seq_wait_seconds: float = 2.0
    # A player's stream of the games waiting on them (/v1/me/stream) reads their seats again
    # this often, so a game they join in another tab joins it.
    me_stream_refresh_seconds: float = 30.0
    # Set: /metrics answers only `Authorization: Bearer <it>` (a secret: never in a repr or a log).
    metrics_token: str = field(default="", repr=False)
    # Clocks (issue #15): the shortest per-move time a game may ask (an hour; tests set 1), and
    # each player's vacation days a year.
    clock_min_seconds: int = 3600
    vacation_days: int = 30

    @property
    def broker(self) -> str:
        return self.broker_url or self.redis_url

    @property
    def broker_is_amqp(self) -> bool:
        """The broker is RabbitMQ (workers/rabbit.py), not a Redis."""
        return self.broker.startswith(("amqp://", "amqps://"))

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """The settings the environment names (ENV), each read as its default's type; the
        overrides that are not None on top."""
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = os.environ.get(ENV[f.name])
            if raw is not None:
                values[f.name] = _read(raw, getattr(_DEFAULTS, f.name))
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def env(self) -> dict[str, str]:
        """These settings as environment variables, for child processes."""
        return {ENV[f.name]: _written(getattr(self, f.name)) for f in fields(self)}


def _read(raw: str, default: object) -> object:
    if isinstance(default, bool):
        return raw != "0"
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, tuple):
        return tuple(x for x in raw.split(",") if x.strip())
    return raw


def _written(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


_DEFAULTS = Settings()
