"""Settings from the environment, read once by each entry point and passed down.

`Settings` is the settings' one definition: each field names its environment variable and says
in a line what it does. `ENV` (field -> variable) and the page docs/settings.md are made from it:
`python -m service.runtime.settings > docs/settings.md` writes the page again."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, fields
from typing import TypeVar

from events.store.layout import DEFAULT_PARTITIONS

T = TypeVar("T")


def setting(default: T, env: str, doc: str, *, secret: bool = False) -> T:
    """A field of `Settings`: its default, its environment variable and what it does, in one
    line (docs/settings.md shows it). A secret is never in a repr (nor so in a log)."""
    return field(default=default, repr=not secret, metadata={"env": env, "doc": doc})


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str = setting(
        "redis://127.0.0.1:6379/0", "REDIS_URL",
        "the event store; `redis+cluster://host:port` names any node of a Redis Cluster; unset, `boardlog serve` "
        "starts an embedded Redis (the parts use the default)")
    broker_url: str = setting(
        "", "BROKER_URL",
        "dramatiq's broker, when it is its own Redis (required with a Cluster store), or RabbitMQ: "
        "`amqp://user:password@host:5672/` (queues `<BOARDLOG_NAMESPACE>.commands` and `.notify`; events stay "
        "in Redis); empty: `REDIS_URL`")
    namespace: str = setting("bl", "BOARDLOG_NAMESPACE", "key prefix of this deployment")
    partitions: int = setting(DEFAULT_PARTITIONS, "BOARDLOG_PARTITIONS",
                              "partitions (hash tags); fixed for a deployment's life")
    extra_games: tuple[str, ...] = setting(
        (), "BOARDLOG_EXTRA_GAMES", "comma-separated `module` or `module:attr` of extra Game objects to register")
    log_format: str = setting("auto", "BOARDLOG_LOG", "`json`, `pretty`, or `auto` (pretty in a terminal)")
    log_level: str = setting(
        "info", "BOARDLOG_LOG_LEVEL",
        "`debug` (with a line for every accepted command), `info`, `warning` or `error`")
    command_wait_seconds: float = setting(
        10.0, "BOARDLOG_WAIT_SECONDS", "how long `?wait=1` waits for a command's answer before 202")
    command_batch: int = setting(
        64, "BOARDLOG_COMMAND_BATCH",
        "most commands one queue message carries: those arriving while an API process's previous hand-off "
        "to the queue is in flight go together (a lone command is never held back)")
    heartbeat_timeout_ms: int = setting(
        15_000, "BOARDLOG_HEARTBEAT_MS", "a worker silent this long has its messages redelivered")
    store_wait_seconds: float = setting(
        30.0, "BOARDLOG_STORE_WAIT_SECONDS",
        "how long a worker waits for an unreachable Redis before letting its message go back on the queue")
    max_retries: int = setting(
        20, "BOARDLOG_MAX_RETRIES", "tries of a command failing outside the rules before it is answered as failed")
    requeue_after_seconds: float = setting(
        60.0, "BOARDLOG_REQUEUE_AFTER_SECONDS",
        "a command unanswered this long after it was queued is queued again (its message may be lost: a broker "
        "Redis restarted without its data)")
    archive_after_seconds: float = setting(
        86_400.0, "BOARDLOG_ARCHIVE_AFTER_SECONDS",
        "a finished game is swapped for its archive record this long after it ended (a day; negative: never)")
    archive_every_seconds: float = setting(
        60.0, "BOARDLOG_ARCHIVE_EVERY_SECONDS", "how often the archiver looks for games to archive")
    maintenance_chance: int = setting(
        10_000, "BOARDLOG_MAINTENANCE_CHANCE", "broker calls in a million that also requeue dead workers' messages")
    wake_consumer: bool = setting(
        True, "BOARDLOG_WAKE_CONSUMER",
        "0 runs dramatiq's own consumer, which sleeps after an empty fetch (the benchmark's baseline)")
    players_per_minute: int = setting(
        10, "BOARDLOG_PLAYERS_PER_MINUTE", "players one client address may create a minute (0: no limit)")
    signins_per_minute: int = setting(
        30, "BOARDLOG_SIGNINS_PER_MINUTE",
        "sign-ins (`POST /v1/sessions`) one client address may make a minute (0: no limit)")
    anon_records_per_minute: int = setting(
        20, "BOARDLOG_ANON_RECORDS_PER_MINUTE",
        "audits and exports one client address may read a minute without a token or session (with one: ten "
        "times; 0: no limit); past it, 429 with `Retry-After`")
    anon_replays_per_minute: int = setting(
        300, "BOARDLOG_ANON_REPLAYS_PER_MINUTE",
        "boards at a past seq (`/view?at=`, the replay page) one client address may read a minute, likewise")
    table_expiry_seconds: float = setting(
        7 * 86400.0, "BOARDLOG_TABLE_EXPIRY_SECONDS",
        "how long a table with open seats waits for players before it expires (7 days; and the longest "
        "`expires_in` a creator may ask for)")
    tables_per_minute: int = setting(
        10, "BOARDLOG_TABLES_PER_MINUTE",
        "games with invited or open seats one client address may create a minute, and forks likewise "
        "(0: no limit)")
    anon_games_per_hour: int = setting(
        20, "BOARDLOG_ANON_GAMES_PER_HOUR",
        "games one client address may create an hour without a session or player key; past it, 429 "
        "`rate_limited` with `Retry-After`, before the request is read (0: no limit)")
    player_games_per_hour: int = setting(
        60, "BOARDLOG_PLAYER_GAMES_PER_HOUR",
        "games one signed-in player may create an hour, tables and plain games alike (0: no limit)")
    untouched_game_seconds: float = setting(
        7 * 86400.0, "BOARDLOG_UNTOUCHED_GAME_SECONDS",
        "a game made with seats by name that no command reached (nobody joined or moved) is removed, every key "
        "of it, this long after it was made (7 days; 0: never)")
    refused_result_seconds: float = setting(
        86400.0, "BOARDLOG_REFUSED_RESULT_SECONDS",
        "a refused command's stored answer is dropped this long after it was refused (a day; the id may then be "
        "sent again), while accepted commands' answers stay with the log (0: kept for ever)")
    sweep_every_seconds: float = setting(
        60.0, "BOARDLOG_SWEEP_EVERY_SECONDS",
        "how often each projector's sweeper drops expired refused answers and untouched games")
    vacation_toggles_per_day: int = setting(
        4, "BOARDLOG_VACATION_TOGGLES_PER_DAY",
        "vacation starts and ends one player may make a day (UTC); past it, 429 `rate_limited` (0: no limit)")
    vacation_toggle_seconds: float = setting(
        60.0, "BOARDLOG_VACATION_TOGGLE_SECONDS",
        "a vacation start or end this soon after the player's last one is refused, 429 `vacation_too_soon` "
        "(0: never)")
    trusted_proxies: tuple[str, ...] = setting(
        (), "BOARDLOG_TRUSTED_PROXIES",
        "addresses of reverse proxies, comma-separated, whose `X-Forwarded-For` names the client that per-address "
        "limits count (empty: the header is ignored, and the peer address counts)")
    messages_per_minute: int = setting(
        20, "BOARDLOG_MESSAGES_PER_MINUTE",
        "messages (and commands' comments) one seat may post to one game a minute; past it, 429 `rate_limited` "
        "with `Retry-After` (0: no limit)")
    # Notifications (issue #19): the address links in notices point at, the SMTP server, and how
    # the notify jobs retry.
    public_url: str = setting(
        "http://127.0.0.1:8000", "BOARDLOG_PUBLIC_URL",
        "the service's address as players reach it: the links in notices and mails (`serve`: its own "
        "`http://host:port`)")
    smtp_host: str = setting(
        "", "BOARDLOG_SMTP_HOST",
        "the SMTP server notices and sign-in links are mailed through (empty: email targets fail, saying so)")
    smtp_port: int = setting(587, "BOARDLOG_SMTP_PORT", "the SMTP server's port")
    smtp_tls: str = setting("starttls", "BOARDLOG_SMTP_TLS", "`starttls`, `tls` (implicit, port 465) or `none`")
    smtp_user: str = setting("", "BOARDLOG_SMTP_USER", "the SMTP server's login, when it asks for one")
    smtp_password: str = setting("", "BOARDLOG_SMTP_PASSWORD", "the password of that login")
    mail_from: str = setting("boardlog <boardlog@localhost>", "BOARDLOG_MAIL_FROM", "the mails' From")
    notify_timeout_seconds: float = setting(
        10.0, "BOARDLOG_NOTIFY_TIMEOUT_SECONDS", "a webhook's or SMTP server's time to answer")
    notify_max_retries: int = setting(
        8, "BOARDLOG_NOTIFY_MAX_RETRIES", "retries of a failing send before its notice is a dead letter")
    notify_backoff_ms: int = setting(
        1000, "BOARDLOG_NOTIFY_BACKOFF_MS", "the first retry's delay, doubling to 10 minutes")
    notify_claim_ms: int = setting(
        10_000, "BOARDLOG_NOTIFY_CLAIM_MS", "feed entries a dead notifier read this long ago are taken over")
    notify_allow: tuple[str, ...] = setting(
        (), "BOARDLOG_NOTIFY_ALLOW",
        "networks webhook and Apprise targets may reach beyond the public ones, comma-separated (`127.0.0.1`, "
        "`10.0.0.0/8`), for receivers inside the deployment or on loopback; a bad item stops `serve` saying "
        "which (empty: public addresses only)")
    digest_seconds: float = setting(86400.0, "BOARDLOG_DIGEST_SECONDS", "how long an email digest gathers notices")
    dispute_reminder_seconds: float = setting(
        86400.0, "BOARDLOG_DISPUTE_REMINDER_SECONDS",
        "how long after a dispute is opened its referee is reminded, once, if it is still unruled (0: never)")
    signin_mails_per_minute: int = setting(
        5, "BOARDLOG_SIGNIN_MAILS_PER_MINUTE",
        "sign-in and sign-up mails (`POST /v1/signin-mail`, `POST /v1/signup`) one client address may ask for a "
        "minute, and confirmation mails one player may (0: no limit)")
    mails_per_address_hour: int = setting(
        5, "BOARDLOG_MAILS_PER_ADDRESS_HOUR",
        "sign-in, sign-up and confirmation mails one email address may be sent in any hour, together, whoever "
        "asks (0: no limit)")
    reply_domain: str = setting(
        "", "BOARDLOG_REPLY_DOMAIN",
        "the domain of the `play+<token>@` reply addresses in turn mails (its MX points at `boardlog mail-in`; "
        "empty: no reply to play)")
    mail_in_host: str = setting("127.0.0.1", "BOARDLOG_MAIL_IN_HOST", "the address `boardlog mail-in` listens on")
    mail_in_port: int = setting(2525, "BOARDLOG_MAIL_IN_PORT", "the port `boardlog mail-in` listens on")
    # Signed records (issue #21).
    data_dir: str = setting(
        "./var", "BOARDLOG_DATA",
        "the data directory (`serve`: its `--data`): the signing keys live in its `signing/` (0700; the private "
        "key 0600), made at first start")
    signing_key: str = setting(
        "", "BOARDLOG_SIGNING_KEY",
        "the Ed25519 signing key, as a PEM text or the path of a PEM file (unencrypted PKCS#8): for API and "
        "workers on several machines; never logged (empty: the data directory's key)", secret=True)
    signing_old_keys: str = setting(
        "", "BOARDLOG_SIGNING_OLD_KEYS",
        "with `BOARDLOG_SIGNING_KEY`: retired public keys (hex, comma-separated) that `/v1/keys` still lists")
    watchers_per_client: int = setting(
        50, "BOARDLOG_WATCHERS_PER_CLIENT",
        "SSE streams (`GET .../stream`) one client address may hold on one API process; past it 429 "
        "`too_many_streams` with `Retry-After` (0: no cap; behind a reverse proxy every client has its address)")
    watchers_total: int = setting(
        2000, "BOARDLOG_WATCHERS_TOTAL",
        "SSE streams one API process holds in all; past it 503 `streams_full` with `Retry-After` (0: no cap)")
    min_seq_wait_seconds: float = setting(
        2.0, "BOARDLOG_MIN_SEQ_WAIT_SECONDS",
        "how long a read with `?min_seq=N` waits for the read model to reach N before 504 `projection_behind` "
        "(422 `seq_not_reached` when the game has not reached N)")
    me_stream_refresh_seconds: float = setting(
        30.0, "BOARDLOG_ME_STREAM_REFRESH_SECONDS",
        "how often a player's `/v1/me/stream` reads their seats again (a game joined in another tab joins it) "
        "and checks their credential")
    metrics_token: str = setting(
        "", "BOARDLOG_METRICS_TOKEN",
        "the bearer token `/metrics` asks for (give Prometheus the same: deploy/prometheus.yml; empty: `/metrics` "
        "answers nobody)", secret=True)
    # Clocks (issue #15).
    clock_min_seconds: int = setting(
        3600, "BOARDLOG_CLOCK_MIN_SECONDS", "the shortest `per_move` a game's `clock` may ask (tests set 1)")
    vacation_days: int = setting(30, "BOARDLOG_VACATION_DAYS", "each player's vacation days a calendar year")
    idle_end_seconds: int = setting(
        30 * 86400, "BOARDLOG_IDLE_END_SECONDS",
        "a game no seat has moved in for this long (30 days) is ended as abandoned, every seat told (0: never)")

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


# Each setting's environment variable (child processes get them back from `env`).
ENV: dict[str, str] = {f.name: f.metadata["env"] for f in fields(Settings)}


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


def markdown_table() -> str:
    """Every setting as a row of a markdown table: setting, variable, default, what it does."""
    rows = ["| setting | variable | default | what it does |", "| --- | --- | --- | --- |"]
    for f in fields(Settings):
        default = getattr(_DEFAULTS, f.name)
        if isinstance(default, float) and default.is_integer():
            default = int(default)  # 86400, not 86400.0 (either reads back)
        shown = _written(default)
        cells = [f"`{f.name}`", f"`{f.metadata['env']}`", f"`{shown}`" if shown else "empty", f.metadata["doc"]]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"


def markdown_page() -> str:
    """docs/settings.md: how the settings are read, then the table."""
    return (
        "# Settings\n\n"
        "<!-- Generated: edit `Settings` in service/runtime/settings.py, not this page. -->\n"
        "This page is generated from `Settings` in `service/runtime/settings.py`, the settings' one\n"
        "definition. After changing a setting there, write it again with\n\n"
        "```sh\n"
        ".venv/bin/python -m service.runtime.settings > docs/settings.md\n"
        "```\n\n"
        "(`tests/unit/test_docs.py` fails while the page and the definition differ.)\n\n"
        "Each entry point reads the environment once; `boardlog serve` passes it to its parts. A\n"
        "variable that is not set keeps its default; one that is set is read as its default's type:\n"
        "a whole or decimal number, `0` or `1` for a switch, a comma-separated list.\n\n"
        + markdown_table()
    )


if __name__ == "__main__":
    sys.stdout.write(markdown_page())
