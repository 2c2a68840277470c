"""The `boardlog` command line."""

from __future__ import annotations

import os
import subprocess
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from service.runtime.logs import configure
from service.runtime.settings import Settings


class FsyncMode(StrEnum):
    """`serve --fsync`: the embedded Redis's appendfsync (service/runtime/embedded.py, FSYNC_MODES)."""

    always = "always"
    everysec = "everysec"


app = typer.Typer(help="boardlog: event-sourced board game matches.", no_args_is_help=True)


def _settings() -> Settings:
    s = Settings.from_env()
    try:
        configure(s.log_format, s.log_level)
    except ValueError as e:
        raise SystemExit(f"boardlog: {e}") from None
    return s


@app.command()
def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    data: Path = Path("./var"),
    workers: Annotated[int | None, typer.Option(min=1, help="worker processes (default: one per two cores)")] = None,
    threads: Annotated[int, typer.Option(help="threads per worker process")] = 4,
    dev_mail: Annotated[bool, typer.Option("--dev-mail", help="a local SMTP server that prints what it receives")] = False,
    fsync: Annotated[FsyncMode, typer.Option(
        help="the embedded Redis's appendfsync: 'always' loses nothing acknowledged on power loss; "
             "'everysec' (the default) may lose the last second of writes, and is faster")] = FsyncMode.everysec,
) -> None:
    """Run everything: embedded Redis (unless REDIS_URL is set), workers, projector, notifier and API."""
    from service.runtime.launcher import serve as run

    # One process on two cores: each command then meets its game's cached match, where two
    # processes each see half of a game's commands and read the tail they missed, and one
    # dramatiq consumer polls instead of two (bench_spine, alternating: 1,180 and 953 us of
    # server CPU a command at 1 x 4, 1,457 and 1,148 at 2 x 2; bench/RESULTS.md).
    processes = workers if workers is not None else max(1, (os.cpu_count() or 2) // 2)
    raise typer.Exit(run(_settings(), host, port, data, processes, threads, dev_mail, fsync.value))


@app.command()
def api(host: str = "127.0.0.1", port: int = 8000, processes: int = 1) -> None:
    """Run the HTTP API against REDIS_URL (several processes share the port)."""
    from service.runtime.launcher import run_api

    run_api(_settings(), host, port, processes)


@app.command()
def worker(processes: int = 1, threads: int = 4) -> None:
    """Run command workers against REDIS_URL (and BROKER_URL when the broker is separate)."""
    from service.runtime.launcher import run_worker

    settings = _settings()
    if processes == 1:
        run_worker(settings, threads)
        return
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    args = [sys.executable, "-m", "service.runtime.cli", "worker", "--processes", "1", "--threads", str(threads)]
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
    from service.runtime.launcher import run_projector

    run_projector(_settings())


@app.command()
def notifier(threads: int = 4) -> None:
    """Run the notifier against REDIS_URL: follow the feeds, send the notices (notify jobs)."""
    from service.runtime.launcher import run_notifier

    run_notifier(_settings(), threads)


@app.command()
def deadlines(threads: int = 2) -> None:
    """Run the deadlines worker against REDIS_URL: schedule each clock's deadlines, time out."""
    from service.runtime.launcher import run_deadlines

    run_deadlines(_settings(), threads)


@app.command("mail-in")
def mail_in(host: str | None = None, port: int | None = None) -> None:
    """Run the inbound SMTP listener of reply to play (BOARDLOG_REPLY_DOMAIN's play+ addresses)."""
    from service.runtime.launcher import run_mail_in

    settings = _settings()
    run_mail_in(settings, host or settings.mail_in_host, port or settings.mail_in_port)


@app.command()
def rebuild() -> None:
    """Drop every read model and rebuild them all from the event streams (with a progress bar)."""
    from rich.progress import Progress

    from projections.projector import rebuild as run
    from service.runtime.bootstrap import build

    parts = build(_settings())
    with Progress(transient=True) as bar:
        task = bar.add_task("rebuilding read models", total=None)
        n = run(parts.store, lambda done, total: bar.update(task, completed=done, total=total))
    typer.echo(f"rebuilt read models of {n} games")


class ExportFormat(StrEnum):
    jsonl = "jsonl"
    text = "text"


@app.command()
def archive(
    gids: Annotated[list[str] | None, typer.Argument(help="game ids (none: every finished game not archived yet)",
                                                     show_default=False)] = None,
) -> None:
    """Swap finished games for their archive records now (the archiver does it on its own,
    BOARDLOG_ARCHIVE_AFTER_SECONDS after a game ends). Exit 1 if a game named is not finished."""
    from events.store.store import FINISHED
    from service.runtime.bootstrap import build

    store = build(_settings()).store
    named = bool(gids)
    failed = False
    for gid in gids or store.game_ids():
        status = store.status(gid)
        if status is None or status not in FINISHED:
            if named:
                typer.echo(f"{gid}: not archived: " + ("no such game" if status is None else "not finished"), err=True)
                failed = True
            continue
        outcome = store.archives.archive(gid)
        if named or outcome == "archived":
            typer.echo(f"{gid}: {outcome}")
    raise typer.Exit(1 if failed else 0)


@app.command()
def export(
    gids: Annotated[list[str], typer.Argument(help="game ids", show_default=False)],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="jsonl: the signed JSON Lines record; "
                                              "text: the move list")] = ExportFormat.jsonl,
    out: Annotated[Path | None, typer.Option(help="a directory: one <gid>.jsonl (or .txt) a game "
                                             "(needed for several games)")] = None,
) -> None:
    """Write games' records, signed with the service's key (an imported game's with the trailer
    it came with and the countersignatures): one to standard output, or many to --out."""
    from rich.progress import Progress

    from events.records.export import export_lines
    from projections.textrecord import record_text
    from service.runtime.bootstrap import build
    from service.stores.signingkeys import SigningKeyError, load_keys

    settings = _settings()
    try:
        signer = load_keys(settings, create=False).signer
    except SigningKeyError as e:
        typer.echo(f"cannot sign the records: {e}", err=True)
        raise typer.Exit(2) from None
    parts = build(settings)
    if len(gids) > 1 and out is None:
        typer.echo("several games go to a directory: give --out DIR", err=True)
        raise typer.Exit(2)
    missing = [g for g in gids if not parts.store.exists(g)]
    if missing:
        typer.echo(f"no game {', '.join(map(repr, missing))}", err=True)
        raise typer.Exit(2)

    def lines(gid: str) -> list[bytes]:
        head = parts.store.head(gid)
        envs = parts.store.read(gid)
        status = None if head is None else head.status
        origin = parts.store.origin(gid)
        if fmt is ExportFormat.text:
            return [(t + "\n").encode() for t in record_text(envs, signer, status, origin)]
        return list(export_lines(envs, signer, status, origin))

    if out is None:
        sys.stdout.buffer.write(b"".join(lines(gids[0])))
        sys.stdout.buffer.flush()
        return
    out.mkdir(parents=True, exist_ok=True)
    with Progress(transient=True) as bar:
        for gid in bar.track(gids, description="exporting"):
            (out / f"{gid}.{'txt' if fmt is ExportFormat.text else 'jsonl'}").write_bytes(b"".join(lines(gid)))
    typer.echo(f"exported {len(gids)} games to {out}")


@app.command()
def audit(
    files: Annotated[list[Path], typer.Argument(help="exported records (.jsonl)", show_default=False)],
    key: Annotated[list[str] | None, typer.Option(
        help="a trusted public key: 64 hex digits, or a file of /v1/keys's answer or a PEM key (repeatable)")] = None,
    receipt: Annotated[list[Path] | None, typer.Option(
        help="a file of receipts (one, a list, the board page's download); each must match its record")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON report a record")] = False,
) -> None:
    """Audit records offline (no Redis): verified (exit 0), unverifiable or failed (exit 1)."""
    from rich.console import Console

    from service.runtime.auditing import BadInput, read_keys, read_receipts, run_audit
    from service.runtime.bootstrap import load_games

    load_games(_settings())
    for f in files:
        if not f.is_file():
            typer.echo(f"no such file: {f}", err=True)
            raise typer.Exit(2)
    try:
        keys = read_keys(key or [])
        receipts = read_receipts(receipt or [])
    except BadInput as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(run_audit(files, keys, receipts, as_json, Console(soft_wrap=True)))


@app.command("import")
def import_(
    file: Path,
    key: Annotated[list[str] | None, typer.Option(help="a trusted public key (as for audit)")] = None,
    unverified: Annotated[bool, typer.Option("--unverified", help="import a record that is unverifiable "
                                             "(never one that failed)")] = False,
) -> None:
    """Load an audited record into this deployment, for replay (no seat can play it here). Its
    trailer stays as its origin signed it; this deployment's key countersigns what it checked."""
    from service.runtime.auditing import BadInput, import_record, read_keys
    from service.runtime.bootstrap import build
    from service.runtime.logs import printable
    from service.stores.signingkeys import SigningKeyError, load_keys

    settings = _settings()
    try:
        keys = read_keys(key or [])
    except BadInput as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(2) from None
    if not file.is_file():
        typer.echo(f"no such file: {file}", err=True)
        raise typer.Exit(2)
    try:
        signer = load_keys(settings).signer  # made on first use, as `serve` would
    except SigningKeyError as e:
        typer.echo(f"cannot countersign the record: {e}", err=True)
        raise typer.Exit(2) from None
    parts = build(settings)
    code, message = import_record(parts.store, file, keys, unverified, signer)
    typer.echo(printable(message), err=code != 0)  # it names the record's game id: anyone's text
    raise typer.Exit(code)


keys_app = typer.Typer(help="The service's signing keys (in BOARDLOG_DATA/signing).", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


@keys_app.command("list")
def keys_list() -> None:
    """Print the public keys as /v1/keys answers them (made on first use)."""
    from events.records.codec import canonical
    from service.stores.signingkeys import load_keys

    ring = load_keys(_settings())
    typer.echo(canonical({"current": ring.signer.id, "keys": [k.to_json() for k in ring.keys]}).decode())


@keys_app.command("rotate")
def keys_rotate() -> None:
    """Make a new current key; the old one's public half stays listed. Running processes switch within 5 s."""
    from service.stores.signingkeys import SigningKeyError, rotate

    try:
        old, new = rotate(_settings())
    except SigningKeyError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(2) from None
    typer.echo(f"signing key {old} retired, {new} is current: the API and workers sign with it within 5 s")


if __name__ == "__main__":
    app()
