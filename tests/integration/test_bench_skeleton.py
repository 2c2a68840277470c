"""The skeleton of `make bench-peers` (bench/skeleton.py) does the path it stands for: each command
posted with `?wait=1` crosses its API, boardlog's broker and its worker, which appends one stream
entry and publishes the reply that answers it (`--inline`: the API appends it itself). Without
this, a skeleton that answered without its worker would make the floor it measures look lower
than it is."""

from __future__ import annotations

import pytest

from bench.bench_spine import run_load, served_redis
from bench.skeleton import SkeletonStack, stream_key

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("inline", [False, True])
def test_every_skeleton_command_is_appended_before_it_is_answered(inline: bool) -> None:
    """Through the broker, by the worker; `--inline`, by the API itself."""
    with served_redis("test-skeleton-") as served:
        skeleton = SkeletonStack(served.server.url, served.ns, 2, served.pid, inline=inline)
        try:
            games = [(f"g{i}", ["a", "b"], 0) for i in range(3)]
            got = run_load(skeleton.port, games, 1.0, warmup=0.5, stack=skeleton)
        finally:
            skeleton.stop()
        assert got.errors == 0 and got.commands > 0
        appended = sum(served.client.xlen(stream_key(served.ns, gid)) for gid, _, _ in games)
        # The warm-up's commands are appended too; each answered command was appended first.
        assert appended >= got.commands
        assert got.cpu_us is not None and got.cpu_us["api"] > 0
        assert ("worker" in got.cpu_us) is not inline and got.cpu_us.get("worker", 1) > 0
