"""Settings from the environment, read once by each entry point and passed down."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from events.redisstore.keys import DEFAULT_PARTITIONS


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
        env = os.environ
        extra = tuple(x for x in env.get("BOARDLOG_EXTRA_GAMES", "").split(",") if x.strip())
        values: dict[str, object] = {
            "redis_url": env.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            "broker_url": env.get("BROKER_URL", ""),
            "namespace": env.get("BOARDLOG_NAMESPACE", "bl"),
            "partitions": int(env.get("BOARDLOG_PARTITIONS", DEFAULT_PARTITIONS)),
            "extra_games": extra,
            "log_format": env.get("BOARDLOG_LOG", "auto"),
            "command_wait_seconds": float(env.get("BOARDLOG_WAIT_SECONDS", 10.0)),
            "heartbeat_timeout_ms": int(env.get("BOARDLOG_HEARTBEAT_MS", 15_000)),
            "store_wait_seconds": float(env.get("BOARDLOG_STORE_WAIT_SECONDS", 30.0)),
            "max_retries": int(env.get("BOARDLOG_MAX_RETRIES", 20)),
            "requeue_after_seconds": float(env.get("BOARDLOG_REQUEUE_AFTER_SECONDS", 60.0)),
            "archive_after_seconds": float(env.get("BOARDLOG_ARCHIVE_AFTER_SECONDS", 86_400.0)),
            "archive_every_seconds": float(env.get("BOARDLOG_ARCHIVE_EVERY_SECONDS", 60.0)),
            "maintenance_chance": int(env.get("BOARDLOG_MAINTENANCE_CHANCE", 10_000)),
            "wake_consumer": env.get("BOARDLOG_WAKE_CONSUMER", "1") != "0",
            "players_per_minute": int(env.get("BOARDLOG_PLAYERS_PER_MINUTE", 10)),
            "signins_per_minute": int(env.get("BOARDLOG_SIGNINS_PER_MINUTE", 30)),
            "anon_records_per_minute": int(env.get("BOARDLOG_ANON_RECORDS_PER_MINUTE", 20)),
            "anon_replays_per_minute": int(env.get("BOARDLOG_ANON_REPLAYS_PER_MINUTE", 300)),
            "public_url": env.get("BOARDLOG_PUBLIC_URL", "http://127.0.0.1:8000"),
            "smtp_host": env.get("BOARDLOG_SMTP_HOST", ""),
            "smtp_port": int(env.get("BOARDLOG_SMTP_PORT", 587)),
            "smtp_tls": env.get("BOARDLOG_SMTP_TLS", "starttls"),
            "smtp_user": env.get("BOARDLOG_SMTP_USER", ""),
            "smtp_password": env.get("BOARDLOG_SMTP_PASSWORD", ""),
            "mail_from": env.get("BOARDLOG_MAIL_FROM", "boardlog <boardlog@localhost>"),
            "notify_timeout_seconds": float(env.get("BOARDLOG_NOTIFY_TIMEOUT_SECONDS", 10.0)),
            "notify_max_retries": int(env.get("BOARDLOG_NOTIFY_MAX_RETRIES", 8)),
            "notify_backoff_ms": int(env.get("BOARDLOG_NOTIFY_BACKOFF_MS", 1000)),
            "notify_claim_ms": int(env.get("BOARDLOG_NOTIFY_CLAIM_MS", 10_000)),
            "digest_seconds": float(env.get("BOARDLOG_DIGEST_SECONDS", 86400.0)),
            "signin_mails_per_minute": int(env.get("BOARDLOG_SIGNIN_MAILS_PER_MINUTE", 5)),
            "reply_domain": env.get("BOARDLOG_REPLY_DOMAIN", ""),
            "mail_in_host": env.get("BOARDLOG_MAIL_IN_HOST", "127.0.0.1"),
            "mail_in_port": int(env.get("BOARDLOG_MAIL_IN_PORT", 2525)),
            "data_dir": env.get("BOARDLOG_DATA", "./var"),
            "signing_key": env.get("BOARDLOG_SIGNING_KEY", ""),
            "signing_old_keys": env.get("BOARDLOG_SIGNING_OLD_KEYS", ""),
            "watchers_per_client": int(env.get("BOARDLOG_WATCHERS_PER_CLIENT", 50)),
            "watchers_total": int(env.get("BOARDLOG_WATCHERS_TOTAL", 2000)),
            "min_seq_wait_seconds": float(env.get("BOARDLOG_MIN_SEQ_WAIT_SECONDS", 2.0)),
            "table_expiry_seconds": float(env.get("BOARDLOG_TABLE_EXPIRY_SECONDS", 7 * 86400.0)),
            "tables_per_minute": int(env.get("BOARDLOG_TABLES_PER_MINUTE", 10)),
            "messages_per_minute": int(env.get("BOARDLOG_MESSAGES_PER_MINUTE", 20)),
            "clock_min_seconds": int(env.get("BOARDLOG_CLOCK_MIN_SECONDS", 3600)),
            "vacation_days": int(env.get("BOARDLOG_VACATION_DAYS", 30)),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def env(self) -> dict[str, str]:
        """These settings as environment variables, for child processes."""
        return {
            "REDIS_URL": self.redis_url,
            "BROKER_URL": self.broker_url,
            "BOARDLOG_NAMESPACE": self.namespace,
            "BOARDLOG_PARTITIONS": str(self.partitions),
            "BOARDLOG_EXTRA_GAMES": ",".join(self.extra_games),
            "BOARDLOG_LOG": self.log_format,
            "BOARDLOG_WAIT_SECONDS": str(self.command_wait_seconds),
            "BOARDLOG_HEARTBEAT_MS": str(self.heartbeat_timeout_ms),
            "BOARDLOG_STORE_WAIT_SECONDS": str(self.store_wait_seconds),
            "BOARDLOG_MAX_RETRIES": str(self.max_retries),
            "BOARDLOG_REQUEUE_AFTER_SECONDS": str(self.requeue_after_seconds),
            "BOARDLOG_ARCHIVE_AFTER_SECONDS": str(self.archive_after_seconds),
            "BOARDLOG_ARCHIVE_EVERY_SECONDS": str(self.archive_every_seconds),
            "BOARDLOG_MAINTENANCE_CHANCE": str(self.maintenance_chance),
            "BOARDLOG_WAKE_CONSUMER": "1" if self.wake_consumer else "0",
            "BOARDLOG_PLAYERS_PER_MINUTE": str(self.players_per_minute),
            "BOARDLOG_SIGNINS_PER_MINUTE": str(self.signins_per_minute),
            "BOARDLOG_ANON_RECORDS_PER_MINUTE": str(self.anon_records_per_minute),
            "BOARDLOG_ANON_REPLAYS_PER_MINUTE": str(self.anon_replays_per_minute),
            "BOARDLOG_PUBLIC_URL": self.public_url,
            "BOARDLOG_SMTP_HOST": self.smtp_host,
            "BOARDLOG_SMTP_PORT": str(self.smtp_port),
            "BOARDLOG_SMTP_TLS": self.smtp_tls,
            "BOARDLOG_SMTP_USER": self.smtp_user,
            "BOARDLOG_SMTP_PASSWORD": self.smtp_password,
            "BOARDLOG_MAIL_FROM": self.mail_from,
            "BOARDLOG_NOTIFY_TIMEOUT_SECONDS": str(self.notify_timeout_seconds),
            "BOARDLOG_NOTIFY_MAX_RETRIES": str(self.notify_max_retries),
            "BOARDLOG_NOTIFY_BACKOFF_MS": str(self.notify_backoff_ms),
            "BOARDLOG_NOTIFY_CLAIM_MS": str(self.notify_claim_ms),
            "BOARDLOG_DIGEST_SECONDS": str(self.digest_seconds),
            "BOARDLOG_SIGNIN_MAILS_PER_MINUTE": str(self.signin_mails_per_minute),
            "BOARDLOG_REPLY_DOMAIN": self.reply_domain,
            "BOARDLOG_MAIL_IN_HOST": self.mail_in_host,
            "BOARDLOG_MAIL_IN_PORT": str(self.mail_in_port),
            "BOARDLOG_DATA": self.data_dir,
            "BOARDLOG_SIGNING_KEY": self.signing_key,
            "BOARDLOG_SIGNING_OLD_KEYS": self.signing_old_keys,
            "BOARDLOG_WATCHERS_PER_CLIENT": str(self.watchers_per_client),
            "BOARDLOG_WATCHERS_TOTAL": str(self.watchers_total),
            "BOARDLOG_MIN_SEQ_WAIT_SECONDS": str(self.min_seq_wait_seconds),
            "BOARDLOG_TABLE_EXPIRY_SECONDS": str(self.table_expiry_seconds),
            "BOARDLOG_TABLES_PER_MINUTE": str(self.tables_per_minute),
            "BOARDLOG_MESSAGES_PER_MINUTE": str(self.messages_per_minute),
            "BOARDLOG_CLOCK_MIN_SECONDS": str(self.clock_min_seconds),
            "BOARDLOG_VACATION_DAYS": str(self.vacation_days),
        }
