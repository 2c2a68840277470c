"""`boardlog serve --fsync`: the embedded Redis's appendfsync, as chosen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import redis

from service.runtime.embedded import FSYNC_MODES, EmbeddedRedis
from tests.conftest import ROOT

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("mode", FSYNC_MODES)
def test_the_embedded_redis_fsyncs_its_aof_as_chosen(mode: str, tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path, fsync=mode).start()
    try:
        r = redis.Redis.from_url(server.url)
        assert r.config_get("appendfsync") == {"appendfsync": mode}
        assert r.config_get("appendonly") == {"appendonly": "yes"}
        r.close()
    finally:
        server.stop()


def test_a_mode_redis_has_not_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="always, everysec"):
        EmbeddedRedis(tmp_path, fsync="no")
    run = subprocess.run([sys.executable, "-m", "service.runtime.cli", "serve", "--fsync", "never", "--data", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.returncode == 2 and "never" in run.stderr
    assert not (tmp_path / "redis.password").exists()  # nothing started
