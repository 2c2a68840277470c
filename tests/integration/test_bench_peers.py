"""The boardgame.io peer of `make bench-peers` (bench/peers/): its server starts with each storage,
and the driver's every move is answered by the server's update with the next state id, with no
move left unanswered. Slow (Node start-up, a FlatFile directory): it runs with `make bench`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.bench_peers import PEERS, Peer

pytestmark = pytest.mark.slow

needs_peer = pytest.mark.skipif(
    shutil.which("node") is None or not (PEERS / "node_modules" / "boardgame.io").is_dir(),
    reason="Node or bench/peers/node_modules missing (make bench-peers runs npm ci)",
)


@needs_peer
@pytest.mark.parametrize("storage", ["inmemory", "flatfile"])
def test_every_move_of_the_peer_is_answered(storage: str, tmp_path: Path) -> None:
    peer = Peer(storage, tmp_path)
    try:
        got = peer.run(games=2, seconds=1.0)  # raises when a move goes unanswered
    finally:
        peer.stop()
    assert got.rate > 0 and got.p99 > 0 and got.cpu_us > 0
    if storage == "flatfile":
        assert any((tmp_path / "flatfile").iterdir())  # the matches were written to its files


@needs_peer
def test_bench_peers_runs_every_path_at_two_counts_of_games(capsys: pytest.CaptureFixture[str]) -> None:
    """The smoke run of `make bench-peers` (one short round, two counts of games): every path
    answers every command (bench_peers raises otherwise) and the report names each path at each
    count, its CPU by process, the batch sizes (or n/a) and the growth between the counts."""
    from bench.bench_peers import main

    main(["--rounds", "1", "--seconds", "1", "--games", "2,3"])
    out = capsys.readouterr().out
    medians = out[out.index("medians of 1 rounds"):]
    for path in ("boardlog everysec", "skeleton everysec", "inline everysec", "boardlog always",
                 "bgio InMemory", "bgio FlatFile"):
        for n in (2, 3):
            assert f"{path:18} {n:3} games" in medians
    assert "api " in medians and "worker " in medians and "redis " in medians and "projector " in medians
    assert "batches " in medians
    assert "growth with concurrency (rate at 3 games / rate at 2" in out
