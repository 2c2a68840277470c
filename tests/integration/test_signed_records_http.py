"""Issue #21 items 1, 2, 7 and 8 through a real stack: receipts in the command answers, the
signed export, /v1/keys, `boardlog audit --key/--receipt` on real files, the text move list,
`boardlog import` into another deployment, the audit of many records."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from events.domain.match import fold_match
from events.records.codec import loads
from events.records.compact import result_json
from events.records.export import read_record
from events.records.signing import RECEIPT, valid
from events.store.store import EventStore
from projections.projector import Projector
from projections.replay import match_at
from service.api.games import current_summary
from tests.conftest import ROOT, Stack, child_env, running_stack, start_api
from tests.integration.helpers import bearer, command, new_race
from tests.support.clirun import Ran, run_cli

pytestmark = pytest.mark.integration

Finished = tuple[str, Path, list[dict[str, Any]], list[str]]


def _drop(redis_url: str, ns: str) -> None:
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i: i + 500])
    client.close()


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    with running_stack(child_env(redis_url, ns), tmp_path_factory.mktemp("signed")) as s:
        yield s
    _drop(redis_url, ns)


def real_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m service.runtime.cli` itself (tests/integration/test_cli.py runs export and audit so)."""
    return subprocess.run([sys.executable, "-m", "service.runtime.cli", *args], env=env, cwd=ROOT,
                          capture_output=True, timeout=120, text=True)


def cli(env: dict[str, str], *args: str) -> Ran:
    """The same typer app in this process (tests/support/clirun.py): no second import of the app."""
    return run_cli(env, *args)


def play(c: httpx.Client, gid: str, tokens: list[str], commands: int | None = None) -> list[dict[str, Any]]:
    """Roll in turn (to the end, or `commands` times); the accepted answers."""
    answers: list[dict[str, Any]] = []
    seat = 0
    while commands is None or len(answers) < commands:
        r = command(c, gid, tokens[seat])
        if r.status_code == 409 and r.json()["error"]["code"] == "game_over":
            break
        assert r.status_code == 200, r.text
        answers.append(r.json())
        seat = 1 - seat
        assert len(answers) < 300
    return answers


@pytest.fixture(scope="module")
def keys_file(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Path:
    with stack.client() as c:
        r = c.get("/v1/keys")
    assert r.status_code == 200
    path = tmp_path_factory.mktemp("keys") / "keys.json"
    path.write_bytes(r.content)
    return path


@pytest.fixture(scope="module")
def finished(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Finished:
    """A finished game, its HTTP export on disk, its command answers and seat tokens."""
    with stack.client() as c:
        gid, tokens, _ = new_race(c, target=12)
        answers = play(c, gid, tokens)
        r = c.get(f"/v1/games/{gid}/export")
    assert r.status_code == 200
    path = tmp_path_factory.mktemp("records") / f"{gid}.jsonl"
    path.write_bytes(r.content)
    return gid, path, answers, tokens


def test_keys_are_published_and_every_answer_carries_a_receipt(
        redis_url: str, stack: Stack, keys_file: Path, finished: Finished) -> None:
    ring = json.loads(keys_file.read_text())
    current = next(k for k in ring["keys"] if k["current"])
    assert ring["current"] == current["id"] and current["algorithm"] == "Ed25519"
    public = bytes.fromhex(current["public_key"])
    gid, path, answers, tokens = finished
    envs = read_record(path.read_bytes().splitlines()).envelopes
    for a in answers:
        rec = a["receipt"]
        assert rec["game"] == gid and rec["seq"] == a["seq"][1] and rec["key"] == current["id"]
        assert rec["head"] == envs[rec["seq"] - 1].hash and rec["at"] == envs[rec["seq"] - 1].at
        assert valid(RECEIPT, rec, public)
    with stack.client() as c:  # the stored answer carries it too
        first = answers[0]
        stored = c.get(f"/v1/games/{gid}/commands/{first['id']}", headers=bearer(tokens[first["seat"]]))
    assert stored.status_code == 200 and stored.json()["receipt"] == first["receipt"]
    # ... signed again on that read: Redis keeps no receipt, only what the record cannot give
    client = redis.Redis.from_url(redis_url)
    key = f"seat:{first['seat']}/{first['id']}"  # kept per principal (events.store.commandids)
    raw = client.hget(EventStore(client, stack.env["BOARDLOG_NAMESPACE"], partitions=8).keys(gid).results, key)
    client.close()
    assert raw is not None and b"receipt" not in raw and bytes.fromhex(first["receipt"]["sig"]) not in raw
    assert loads(result_json(raw)) == {**{k: v for k, v in first.items() if k != "receipt"}, "id": key}
    # the private key is in the data directory, 0600, and never in a log
    key_files = list((Path(stack.env["BOARDLOG_DATA"]) / "signing").glob("*.key"))
    assert len(key_files) == 1 and key_files[0].stat().st_mode & 0o777 == 0o600
    pem_body = key_files[0].read_text().splitlines()[1]
    assert pem_body not in stack.logs()


def test_a_record_verified_with_the_key_from_v1_keys(
        stack: Stack, keys_file: Path, finished: Finished) -> None:
    gid, path, _, _ = finished
    ok = cli(stack.env, "audit", str(path), "--key", str(keys_file))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith(f"VERIFIED {gid}: verified: hash chain, seed commitment")
    current = json.loads(keys_file.read_text())["keys"][0]["public_key"]
    assert cli(stack.env, "audit", str(path), "--key", current).returncode == 0
    # the key in the file itself proves nothing
    self_signed = cli(stack.env, "audit", str(path))
    assert self_signed.returncode == 1 and self_signed.stdout.startswith("UNVERIFIABLE")
    assert "no key was given" in self_signed.stdout
    # a changed byte fails, naming its seq
    lines = path.read_bytes().splitlines(keepends=True)
    pos = lines[5].index(b'"at":"') + 6
    lines[5] = lines[5][:pos] + b"1999" + lines[5][pos + 4:]
    bad = path.with_name("bad.jsonl")
    bad.write_bytes(b"".join(lines))
    fail = cli(stack.env, "audit", str(bad), "--key", str(keys_file))
    assert fail.returncode == 1 and fail.stdout.startswith("FAILED") and "seq 6" in fail.stdout
    # the API's own audit trusts its own key
    with stack.client() as c:
        report = c.get(f"/v1/games/{gid}/audit").json()
    assert report["verdict"] == "verified" and report["complete"] and report["ok"]
    assert cli(stack.env, "audit", str(path), "--key", "not-a-key").returncode == 2


def test_a_game_in_progress_and_a_receipt_that_proves_a_cut(stack: Stack, keys_file: Path, tmp_path: Path) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, target=1000)
        answers = play(c, gid, tokens, commands=8)
        report = c.get(f"/v1/games/{gid}/audit").json()
    seq = answers[-1]["seq"][1]
    assert report["verdict"] == "verified" and not report["complete"]
    assert report["summary"].startswith(f"verified up to seq {seq}, draws not yet checkable")
    out = cli(stack.env, "export", gid)  # the operator's export of the live game, signed
    assert out.returncode == 0, out.stderr
    live = tmp_path / "live.jsonl"
    live.write_text(out.stdout)
    ok = cli(stack.env, "audit", str(live), "--key", str(keys_file))
    assert ok.returncode == 0, ok.stdout
    assert f"verified up to seq {seq}, draws not yet checkable" in ok.stdout
    # a receipt from seq N, and the record cut before N (its trailer dropped)
    kept = answers[5]["receipt"]
    receipts = tmp_path / "receipts.json"
    receipts.write_text(json.dumps({"receipts": [a["receipt"] for a in answers[:6]]}))
    lines = live.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:kept["seq"] - 2]))
    alone = cli(stack.env, "audit", str(cut), "--key", str(keys_file))
    assert alone.returncode == 1 and alone.stdout.startswith("UNVERIFIABLE")
    proved = cli(stack.env, "audit", str(cut), "--key", str(keys_file), "--receipt", str(receipts))
    assert proved.returncode == 1 and proved.stdout.startswith("FAILED"), proved.stdout
    assert f"seq {kept['seq']}" in proved.stdout and "cut short" in proved.stdout
    # the whole live record matches every receipt
    whole = cli(stack.env, "audit", str(live), "--key", str(keys_file), "--receipt", str(receipts))
    assert whole.returncode == 0 and "6 receipts match" in whole.stdout, whole.stdout + whole.stderr


def test_the_text_move_list(stack: Stack, finished: Finished) -> None:
    gid, path, answers, _tokens = finished
    trailer = loads(path.read_bytes().splitlines()[-1])["trailer"]
    with stack.client() as c:
        r = c.get(f"/v1/games/{gid}/export.txt")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    assert text.startswith(f"# boardlog record of game {gid} (race)")
    assert "# seats: 0 p0, 1 p1" in text and "# result: over; won by" in text
    assert f"# signed by key: {trailer['key']}" in text
    assert f"# signature: {trailer['sig']}" in text and f"hash {trailer['head']}" in text
    assert "\n1. p0: roll  {" in text and f"\n{len(answers)}. " in text
    out = cli(stack.env, "export", gid, "--format", "text")
    assert out.returncode == 0 and out.stdout == text


def test_import_into_another_deployment(redis_url: str, stack: Stack, keys_file: Path,
                                        finished: Finished, tmp_path: Path) -> None:
    gid, path, _, _ = finished
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_DATA=str(tmp_path / "other"))
    try:
        refused = real_cli(env, "import", str(path))
        assert refused.returncode == 1 and "unverifiable" in refused.stderr and "--unverified" in refused.stderr
        ok = cli(env, "import", str(path), "--key", str(keys_file))
        assert ok.returncode == 0, ok.stderr
        assert ok.stdout.startswith(f"imported {gid}")
        client = redis.Redis.from_url(redis_url)
        store = EventStore(client, ns, partitions=8)
        envs = read_record(path.read_bytes().splitlines()).envelopes
        assert store.read(gid) == envs
        # replayable there: the board after any seq, the end the same as the record's fold
        assert match_at(store, gid, len(envs)) == fold_match((e.event for e in envs), gid)
        assert match_at(store, gid, 5).seq == 5 and store.head(gid).status == "over"  # type: ignore[union-attr]
        # marked imported, beside the log: the store's meta, then the projected summary
        trailer = loads(path.read_bytes().splitlines()[-1])["trailer"]
        mark = store.imported(gid)
        assert mark is not None and mark["verdict"] == "verified" and mark["key"] == trailer["key"], mark
        assert mark["countersigned_by"] not in (None, trailer["key"])  # the second deployment's own key
        assert current_summary(store, gid)["imported"] == mark  # folded live: no read model yet
        projector = Projector(store, block_ms=10)
        assert projector.project(gid)
        assert loads(store.read_model(gid, "summary") or b"{}")["imported"] == mark
        client.close()
        with stack.client() as c:  # a game made here is not
            assert c.get(f"/v1/games/{gid}").json()["imported"] is None
        again = cli(env, "import", str(path), "--key", str(keys_file))
        assert again.returncode == 1 and "already here" in again.stderr
        lines = path.read_bytes().splitlines(keepends=True)
        tampered = tmp_path / "t.jsonl"
        tampered.write_bytes(b"".join(lines[:3] + lines[4:]))
        never = cli(env, "import", str(tampered), "--unverified")
        assert never.returncode == 1 and "failed" in never.stderr
    finally:
        _drop(redis_url, ns)


def test_an_imported_record_keeps_its_origin(redis_url: str, stack: Stack, keys_file: Path,
                                             finished: Finished, tmp_path: Path) -> None:
    """Issue #37 item 6: a second deployment (its own data dir and key) imports the first's
    record; its export keeps the first's trailer byte for byte with its countersignature beside,
    and every audit (the CLI with only the first's key, its text and JSON, the second's HTTP
    audit) is verified and names both keys."""
    gid, path, _, _ = finished
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_DATA=str(tmp_path / "second"))
    origin_key = json.loads(keys_file.read_text())["current"]
    try:
        ok = cli(env, "import", str(path), "--key", str(keys_file))
        assert ok.returncode == 0, ok.stderr
        second_key = json.loads(cli(env, "keys", "list").stdout)["current"]
        assert second_key != origin_key
        both = f"signed by key {origin_key}, imported and countersigned by key {second_key}"
        assert both in ok.stdout
        out = cli(env, "export", gid)
        assert out.returncode == 0, out.stderr
        again = tmp_path / "again.jsonl"
        again.write_text(out.stdout)
        original, exported = path.read_bytes().splitlines(keepends=True), again.read_bytes().splitlines(keepends=True)
        assert exported[:-1] == original  # the events and the origin's trailer, byte for byte
        counter = loads(exported[-1])["countersignature"]
        assert counter["key"] == second_key and counter["origin_key"] == origin_key
        assert counter["verdict"] == "verified" and counter["at"].endswith("Z")
        audited = cli(env, "audit", str(again), "--key", str(keys_file))  # the first's key alone
        assert audited.returncode == 0 and audited.stdout.startswith(f"VERIFIED {gid}: verified: hash chain")
        assert both in audited.stdout, audited.stdout
        js = json.loads(cli(env, "audit", str(again), "--key", str(keys_file), "--json").stdout)
        assert js["verdict"] == "verified" and js["key"] == origin_key and js["countersigned_by"] == [second_key]
        text = cli(env, "export", gid, "--format", "text").stdout
        assert f"# signed by key: {origin_key}" in text and f"# imported and countersigned by key: {second_key}" in text
        # a tampered countersignature is named as such
        forged = tmp_path / "forged.jsonl"
        forged.write_bytes(b"".join(exported[:-1]) + exported[-1].replace(b'"verified"', b'"unverifiable"'))
        bad = cli(env, "audit", str(forged), "--key", str(keys_file))
        assert bad.returncode == 1 and f"the countersignature of key {second_key} is not valid" in bad.stdout
        # the second deployment's own API: its export and audit, with only its own key trusted
        second = Stack("", env, logdir=tmp_path)
        start_api(second, ns)
        try:
            with second.client() as c:
                assert c.get(f"/v1/games/{gid}/export").content == again.read_bytes()
                report = c.get(f"/v1/games/{gid}/audit").json()
                assert report["verdict"] == "verified" and report["key"] == origin_key, report
                assert both in report["summary"] and "trusted through the countersignature" in report["summary"]
                assert f"# imported and countersigned by key: {second_key}" in c.get(f"/v1/games/{gid}/export.txt").text
        finally:
            second.stop("api")
    finally:
        _drop(redis_url, ns)


def test_audit_of_many_records_shows_a_table(stack: Stack, keys_file: Path,
                                             finished: Finished, tmp_path: Path) -> None:
    gid, path, _, _ = finished
    unsigned = tmp_path / "old.jsonl"
    unsigned.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-1]))
    out = cli(stack.env, "audit", str(path), str(unsigned), "--key", str(keys_file))
    assert out.returncode == 1
    assert "2 records" in out.stdout and "1 verified, 1 unverifiable, 0 failed" in out.stdout
    assert out.stdout.count(gid) >= 2
    js = cli(stack.env, "audit", str(path), str(unsigned), "--key", str(keys_file), "--json")
    assert [json.loads(line)["verdict"] for line in js.stdout.splitlines()] == ["verified", "unverifiable"]


def test_export_of_many_games_to_a_directory(stack: Stack, keys_file: Path, finished: Finished,
                                             tmp_path: Path) -> None:
    gid, path, _, _ = finished
    with stack.client() as c:
        other, tokens, _ = new_race(c, target=1000)
        play(c, other, tokens, commands=2)
    out = cli(stack.env, "export", gid, other, "--out", str(tmp_path / "records"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"exported 2 games to {tmp_path / 'records'}"
    assert (tmp_path / "records" / f"{gid}.jsonl").read_bytes() == path.read_bytes()  # the same signed bytes
    audit = cli(stack.env, "audit", *(str(p) for p in sorted((tmp_path / "records").glob("*.jsonl"))),
                "--key", str(keys_file))
    assert audit.returncode == 0 and "2 verified, 0 unverifiable, 0 failed" in audit.stdout, audit.stdout
    assert cli(stack.env, "export", gid, other).returncode == 2  # several games need --out
    # a tool run where there is no key makes none: it says where it looked
    lost = cli({**stack.env, "BOARDLOG_DATA": str(tmp_path / "elsewhere")}, "export", gid)
    assert lost.returncode == 2 and "no signing key" in lost.stderr
    assert not (tmp_path / "elsewhere").exists()
