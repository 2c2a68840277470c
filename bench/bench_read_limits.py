"""Health while twenty anonymous auditors hammer a finished game's audit: the p99 of
`GET /v1/health`, timed from a process of its own, one call after another, with the twenty
clients running (each bounded to 50 calls in 4 s) and, in alternating runs, without them (the
baseline of the same run). Target: p99 under 50 ms with the auditors (they mostly get 429s).
The integration test (tests/integration/test_read_limits.py) checks the limits' answers; this
figure was its assertion and is a latency, so it lives here.

    python -m bench.bench_read_limits [--runs 3] [--seconds 4]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid

import httpx
import orjson

from bench.bench_spine import Stack, served_redis

TARGET_P99_MS = 50.0

# Times GET /v1/health one call after another for the given seconds; prints the seconds each took.
HEALTH_SAMPLER = """
import sys, time, httpx, orjson
with httpx.Client(base_url=sys.argv[1], timeout=30) as c:
    c.get("/v1/health")
    took, end = [], time.monotonic() + float(sys.argv[2])
    while time.monotonic() < end:
        t0 = time.perf_counter()
        assert c.get("/v1/health").status_code == 200
        took.append(time.perf_counter() - t0)
        time.sleep(0.01)
print(orjson.dumps(took).decode())
"""


def finished_race(base: str) -> str:
    with httpx.Client(base_url=base, timeout=30) as c:
        g = c.post("/v1/games", json={"game": "race", "seats": ["a", "b"], "options": {"target": 30}}).json()
        tokens = [s["token"] for s in g["seats"]]
        for i in range(400):
            r = c.post(f"/v1/games/{g['id']}/commands?wait=1",
                       json={"id": uuid.uuid4().hex, "type": "race.roll", "args": {}},
                       headers={"Authorization": f"Bearer {tokens[i % 2]}"})
            if r.status_code == 409:
                return str(g["id"])
    raise RuntimeError("the race did not end")


async def one_run(base: str, gid: str, seconds: float, auditors: int) -> tuple[float, int, int]:
    """The health p99 (ms) over `seconds`, with `auditors` anonymous clients reading the audit;
    and how many of their reads were answered 200 and 429."""
    async def hammer(ac: httpx.AsyncClient, deadline: float) -> list[int]:
        got: list[int] = []
        while time.monotonic() < deadline and len(got) < 50:
            got.append((await ac.get(f"/v1/games/{gid}/audit")).status_code)
        return got

    async with httpx.AsyncClient(base_url=base, timeout=30, limits=httpx.Limits(max_connections=40)) as many:
        await many.get("/v1/health")
        sampler = await asyncio.create_subprocess_exec(
            sys.executable, "-c", HEALTH_SAMPLER, base, str(seconds), stdout=asyncio.subprocess.PIPE)
        deadline = time.monotonic() + seconds
        statuses = await asyncio.gather(*(hammer(many, deadline) for _ in range(auditors)))
        out, _ = await sampler.communicate()
    took = orjson.loads(out)
    flat = [s for ss in statuses for s in ss]
    return statistics.quantiles(took, n=100)[98] * 1000, flat.count(200), flat.count(429)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    args = ap.parse_args()
    with served_redis("bench-limits-") as served, Stack(served.server.url, served.ns, workers=1, threads=4) as stack:
        base = f"http://127.0.0.1:{stack.port}"
        gid = finished_race(base)
        loaded: list[float] = []
        idle: list[float] = []
        for run in range(args.runs):
            p99, ok, limited = asyncio.run(one_run(base, gid, args.seconds, 20))
            loaded.append(p99)
            base_p99, _, _ = asyncio.run(one_run(base, gid, args.seconds, 0))
            idle.append(base_p99)
            print(f"run {run + 1}: health p99 {p99:.1f} ms with 20 auditors ({ok} audits, {limited} 429s), "
                  f"{base_p99:.1f} ms without")
            time.sleep(60 - time.time() % 60 + 0.5)  # the next run in a fresh rate-limit window
        with_, without = statistics.median(loaded), statistics.median(idle)
        verdict = "met" if with_ < TARGET_P99_MS else "MISSED"
        print(f"health p99, median of {args.runs}: {with_:.1f} ms with the auditors, {without:.1f} ms without "
              f"({with_ / without:.2f}x); target < {TARGET_P99_MS:.0f} ms: {verdict}")


if __name__ == "__main__":
    main()
