"""`boardlog audit` and `boardlog import` as a person runs them: keys and receipts read from
files or text, one record or many (with a progress bar and a summary table), offline."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_public_key
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from events.domain.match import SEED_REVEALED
from events.domain.verdict import Judgement, judge
from events.domain.wallclock import utcnow
from events.records.export import read_record
from events.records.origin import countersign, origin_lines
from events.records.signing import Signer, key_id, public_key
from events.store.layout import partition_of
from events.store.store import EventStore
from service.runtime.logs import printable


class BadInput(ValueError):
    """A --key or --receipt that cannot be read; the message says which and why."""


def _keys_of(obj: Any) -> Iterable[bytes]:
    if isinstance(obj, dict) and isinstance(obj.get("keys"), list):  # GET /v1/keys saved as is
        obj = obj["keys"]
    items = obj if isinstance(obj, list) else [obj]
    for item in items:
        text = item.get("public_key") if isinstance(item, dict) else item
        if not isinstance(text, str):
            raise BadInput(f"{item!r} is not a key")
        yield public_key(text)


def read_keys(values: Sequence[str]) -> dict[str, bytes]:
    """Each value: 64 hex digits, or a file holding /v1/keys's answer, a key object, a PEM
    public key or the hex."""
    out: dict[str, bytes] = {}
    for v in values:
        path = Path(v)
        try:
            if path.is_file():
                raw = path.read_bytes()
                if raw.lstrip().startswith(b"-----BEGIN"):
                    key = load_pem_public_key(raw)
                    if not isinstance(key, Ed25519PublicKey):
                        raise BadInput(f"{v} holds a {type(key).__name__}, not an Ed25519 public key")
                    found = [key.public_bytes(Encoding.Raw, PublicFormat.Raw)]
                else:
                    try:
                        found = list(_keys_of(json.loads(raw)))
                    except json.JSONDecodeError:
                        found = [public_key(raw.decode().strip())]
            else:
                found = [public_key(v)]
        except (ValueError, UnicodeDecodeError) as e:
            if isinstance(e, BadInput):
                raise
            raise BadInput(f"--key {v[:80]}: neither 64 hex digits of an Ed25519 public key nor a file of "
                           f"keys (/v1/keys's answer, a PEM public key): {e}") from None
        for raw_key in found:
            out[key_id(raw_key)] = raw_key
    return out


def read_receipts(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Receipts from files: one receipt, a list of them, {"receipts": [...]} (the board page's
    download) or one a line; command answers holding a receipt count too."""
    out: list[dict[str, Any]] = []
    for path in paths:
        try:
            text = path.read_text()
        except OSError as e:
            raise BadInput(f"--receipt {path}: {e.strerror}") from None
        try:
            objs: list[Any] = [json.loads(text)]
        except json.JSONDecodeError:
            try:
                objs = [json.loads(line) for line in text.splitlines() if line.strip()]
            except json.JSONDecodeError as e:
                raise BadInput(f"--receipt {path}: not JSON ({e})") from None
        for obj in objs:
            if isinstance(obj, dict) and isinstance(obj.get("receipts"), list):
                obj = obj["receipts"]
            for r in obj if isinstance(obj, list) else [obj]:
                if isinstance(r, dict) and isinstance(r.get("receipt"), dict):
                    r = r["receipt"]
                if not isinstance(r, dict) or "sig" not in r or "seq" not in r:
                    raise BadInput(f"--receipt {path}: {str(r)[:80]} is not a receipt")
                out.append(r)
    return out


def judge_file(path: Path, keys: dict[str, bytes], receipts: Sequence[dict[str, Any]]) -> Judgement:
    with path.open("rb") as f:
        record = read_record(f)
    gid = record.envelopes[0].game if record.envelopes else None
    mine = [r for r in receipts if r.get("game") == gid]
    return judge(record, keys, mine)


def run_audit(files: Sequence[Path], keys: dict[str, bytes], receipts: Sequence[dict[str, Any]],
              as_json: bool, console: Console) -> int:
    """Audit every file; exit 0 only when every one is verified (and every receipt was used)."""
    # A record is anyone's file: its game id and words, and a file's name, print as text (printable,
    # Text), never as escape sequences or Rich markup.
    results: list[tuple[Path, Judgement]] = []
    games: set[str | None] = set()
    many = len(files) > 1
    with Progress(TextColumn("auditing {task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, transient=True, disable=not many or as_json) as bar:
        task = bar.add_task("", total=len(files))
        for path in files:
            bar.update(task, description=printable(path.name))
            j = judge_file(path, keys, receipts)
            games.add(j.game)
            results.append((path, j))
            bar.advance(task)
    unused = [r for r in receipts if r.get("game") not in games]
    if as_json:
        for path, j in results:
            console.print(json.dumps({"file": str(path), **j.to_json()}), markup=False, highlight=False,
                          soft_wrap=True)
    elif not many:
        console.print(printable(results[0][1].line()), markup=False, highlight=False, soft_wrap=True)
    else:
        table = Table(title=f"{len(files)} records")
        table.add_column("file", overflow="fold")
        table.add_column("game", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("events", justify="right")
        table.add_column("what", overflow="fold")
        colours = {"verified": "green", "unverifiable": "yellow", "failed": "red"}
        for path, j in results:
            # Text, not markup: a file named "[green]…" or a record's game id prints as it is.
            table.add_row(Text(printable(path.name)), Text(printable(j.game or "?")), f"[{colours[j.verdict]}]{j.verdict}[/]",
                          f"{j.events:,}", Text(printable(j.short())))
        console.print(table)
        counts = {v: sum(j.verdict == v for _, j in results) for v in colours}
        console.print(", ".join(f"{n} {v}" for v, n in counts.items()), highlight=False)
    for r in unused:
        console.print(printable(f"the receipt for game {r.get('game')!r} seq {r.get('seq')!r} matches none of the records "
                            "given"),
                      markup=False, highlight=False)
    return 0 if all(j.verified for _, j in results) and not unused else 1


def import_record(store: EventStore, path: Path, keys: dict[str, bytes], unverified: bool,
                  signer: Signer) -> tuple[int, str]:
    """Store a record's events as they are, byte for byte, under its own game id: (exit code,
    message). A failed record is refused always, an unverifiable one unless `unverified`. Its
    trailer is kept as it came, and `signer` countersigns beside it what was checked."""
    with path.open("rb") as f:
        record = read_record(f)
    j = judge(record, keys)
    if j.verdict == "failed" or (j.verdict == "unverifiable" and not unverified):
        hint = " (give --key from the service's /v1/keys, or --unverified to import it anyway)" \
            if j.verdict == "unverifiable" else ""
        return 1, f"not imported: {j.summary()}{hint}"
    envs = record.envelopes
    gid = envs[0].game
    if partition_of(gid) >= store.partitions:
        return 1, (f"not imported: game {gid} is of partition {partition_of(gid)}, and this deployment has "
                   f"{store.partitions} (BOARDLOG_PARTITIONS)")
    if store.exists(gid):
        return 1, f"not imported: a game {gid} is already here"
    seed = next((e.data["seed"] for e in envs if e.type == SEED_REVEALED), "")
    at = utcnow()
    # No tokens: nobody plays an imported game here; it is there to be replayed and read. The
    # mark and the record's own trailer go beside the log (its bytes stay those its own
    # deployment signed): this key did not see the game played, so it signs only its check.
    mine = countersign(signer, record, j.verdict, j.checked, at)
    imported = {"at": at, "verdict": j.verdict, "key": j.key, "countersigned_by": signer.id}
    res = store.create(gid, envs, j.status or "active", bytes.fromhex(seed), {}, envs[0].at, imported,
                       origin_lines(record, mine))
    if res.status != "ok":
        return 1, f"not imported: the store refused it ({res.status})"
    return 0, (f"imported {gid}: {len(envs)} events, {j.verdict}; signed by key {j.key or 'none'}, imported and "
               f"countersigned by key {signer.id}; replay it at /games/{gid}/replay")
