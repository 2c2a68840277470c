"""The `boardlog` command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from service.logs import configure
from service.settings import Settings

app = typer.Typer(help="boardlog: event-sourced board game matches.", no_args_is_help=True)


def _settings() -> Settings:
    s = Settings.from_env()
    configure(s.log_format)
    return s


@app.command()
def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    data: Path = Path("./var"),
    workers: Annotated[int, typer.Option(help="worker processes")] = 2,
    threads: Annotated[int, typer.Option(help="threads per worker process")] = 4,
    dev_mail: Annotated[bool, typer.Option("--dev-mail", help="a local SMTP server that prints what it receives")] = False,
) -> None:
    """Run everything: embedded Redis (unless REDIS_URL is set), workers, projector, notifier and API."""
    from service.launcher import serve as run

    raise typer.Exit(run(_settings(), host, port, data, workers, threads, dev_mail))


@app.command()
def api(host: str = "127.0.0.1", port: int = 8000, processes: int = 1) -> None:
    """Run the HTTP API against REDIS_URL (several processes share the port)."""
    from service.launcher import run_api

    run_api(_settings(), host, port, processes)


@app.command()
def worker(processes: int = 1, threads: int = 4) -> None:
    """Run command workers against REDIS_URL (and BROKER_URL when the broker is separate)."""
    from service.launcher import run_worker

    settings = _settings()
    if processes == 1:
        run_worker(settings, threads)
        return
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    args = [sys.executable, "-m", "service.cli", "worker", "--processes", "1", "--threads", str(threads)]
    procs = [subprocess.Popen(args, env=env) for _ in range(processes)]
    try:
        for p in procs:
            p.wait()
    except KeyboardInterrupt:
        for p in procs:
            p.wait()


@app.command()
def projector() -> None:
    """Run the projector against REDIS_URL."""
    from service.launcher import run_projector

    run_projector(_settings())


@app.command()
def notifier(threads: int = 4) -> None:
    """Run the notifier against REDIS_URL: follow the feeds, send the notices (notify jobs)."""
    from service.launcher import run_notifier

    run_notifier(_settings(), threads)


@app.command("mail-in")
def mail_in(host: str | None = None, port: int | None = None) -> None:
    """Run the inbound SMTP listener of reply to play (BOARDLOG_REPLY_DOMAIN's play+ addresses)."""
    from service.launcher import run_mail_in

    settings = _settings()
    run_mail_in(settings, host or settings.mail_in_host, port or settings.mail_in_port)


@app.command()
def rebuild() -> None:
    """Drop every read model and rebuild them all from the event streams."""
    from projections.projector import rebuild as run
    from service.bootstrap import build

    parts = build(_settings())
    n = run(parts.store)
    typer.echo(f"rebuilt read models of {n} games")


@app.command()
def export(gid: str) -> None:
    """Write a game's JSON Lines record to standard output."""
    from events.mapping.export import export_lines
    from service.bootstrap import build

    parts = build(_settings())
    if not parts.store.exists(gid):
        typer.echo(f"no game {gid!r}", err=True)
        raise typer.Exit(2)
    out = sys.stdout.buffer
    for line in export_lines(parts.store.read(gid)):
        out.write(line)
    out.flush()


@app.command()
def audit(file: Path) -> None:
    """Audit an exported record offline (no Redis): chain, seed, every command re-run."""
    from events.domain.audit import audit as run
    from events.mapping.export import read_record
    from service.bootstrap import load_games

    settings = _settings()
    load_games(settings)
    if not file.is_file():
        typer.echo(f"no such file: {file}", err=True)
        raise typer.Exit(2)
    with file.open("rb") as f:
        report = run(read_record(f))
    typer.echo(report.line())
    raise typer.Exit(0 if report.ok else 1)


if __name__ == "__main__":
    app()
