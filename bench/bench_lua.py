"""How fast a Lua append can be here: the shipped append script beside smaller scripts that do
only part of its work, each as a rate against a plain XADD of the same envelope over the same
connection, in alternating blocks (the machine is noisy).

Usage: .venv/bin/python -m bench.bench_lua [runs] [appends per run]

The issue's target is the Lua append at >= 80 % of a plain single-round-trip XADD. The smaller
scripts are not used anywhere: they show where the time goes (an EVALSHA with its arguments,
each write inside a script) and what the least script that still checks the seq and the
command id, appends, stores the result and announces the game would reach.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

# Run as a script, sys.path[0] is bench/: put the repository root there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import redis  # noqa: E402

from events.link import Links, checked  # noqa: E402
from events.store import APPEND_LUA  # noqa: E402
from service.embedded import EmbeddedRedis  # noqa: E402

ENVELOPE = (b'{"at":"2026-11-29T23:00:00.000Z","command":"c0b1a5e2-9f4e-4c1b-8d7a-3e2f1a0b9c8d",'
            b'"data":{"bonus":0,"die":3},"game":"p01-benchappend01","hash":"' + b"a" * 64
            + b'","prev":"' + b"b" * 64 + b'","seat":0,"seq":1234,"type":"race.DieRolled"}')
RESULT = b'{"http":200,"id":"c0b1a5e2-9f4e-4c1b-8d7a-3e2f1a0b9c8d","seq":[1234,1234],"status":"accepted"}'

# The five duties and nothing else: the command id not applied (results hash), the
# expected seq (the stream's length: seq counts from 1 and a stream is never trimmed), the
# XADD, the result stored, the game announced on the feed. No head hash, no pending entry to
# drop, no reply published to a waiter.
REQUIRED_ONLY = """
local e = tonumber(ARGV[1])
local prior = redis.call('HGET', KEYS[2], ARGV[2])
if prior then return prior end
if redis.call('XLEN', KEYS[1]) ~= e then return -1 end
redis.call('XADD', KEYS[1], (e + 1) .. '-0', 'e', ARGV[5])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('XADD', KEYS[3], '*', 'g', ARGV[4], 's', e + 1)
return e + 1
"""
# A redesign that keeps what the shipped script does beyond the duties, as cheaply as found:
# the queued body kept in the results hash (so storing the result replaces it, no HDEL), the
# head's status written only when it changes, the seq from XLEN, the feed trimmed elsewhere,
# and the reply still published to a waiter.
DUTIES_AND_REPLY = """
local e = tonumber(ARGV[1])
local prior = redis.call('HGET', KEYS[2], ARGV[2])
if prior and string.byte(prior, 1) ~= 80 then return prior end
local cur = redis.call('XLEN', KEYS[1])
if cur ~= e then return -1 - cur end
local n = #ARGV - 6
for i = 1, n do
  redis.call('XADD', KEYS[1], (e + i) .. '-0', 'e', ARGV[6 + i])
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[4] .. ' ' .. ARGV[3]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[4], 'status', ARGV[5]) end
redis.call('XADD', KEYS[3], '*', 'g', ARGV[4], 's', e + n)
return e + n
"""
ONE_XADD = """
redis.call('XADD', KEYS[1], (tonumber(ARGV[1]) + 1) .. '-0', 'e', ARGV[5])
return 1
"""
EMPTY = "return 1"


def measure(links: Links, client: redis.Redis, n: int) -> dict[str, float]:
    """Each script's rate over the plain XADD's, appending n one-event commands to a new game."""
    ratios: dict[str, float] = {}
    for name, source in (("shipped append.lua", APPEND_LUA), ("the duties, a reply, status on change", DUTIES_AND_REPLY),
                         ("the five duties only", REQUIRED_ONLY),
                         ("one XADD in a script", ONE_XADD), ("empty script, same arguments", EMPTY)):
        sha = client.script_load(source)
        ns = f"bl{uuid.uuid4().hex[:8]}:{{p01}}"
        events, meta, results, feed, pending, plain = (f"{ns}:{k}" for k in ("ev", "meta", "res", "feed", "pend", "x"))

        if name == "shipped append.lua":  # as the worker calls it, with a reply channel
            calls = [("EVALSHA", sha, 5, events, meta, results, feed, pending, i, f"c{i}", RESULT,
                      "p01-benchappend01", "h" * 64, 0, "active", "t", f"{ns}:reply", ENVELOPE) for i in range(n)]
        elif source is DUTIES_AND_REPLY:
            calls = [("EVALSHA", sha, 4, events, results, feed, meta, i, f"c{i}", RESULT, "p01-benchappend01",
                      "", f"{ns}:reply", ENVELOPE) for i in range(n)]
        else:
            calls = [("EVALSHA", sha, 3, events, results, feed, i, f"c{i}", RESULT, "p01-benchappend01", ENVELOPE)
                     for i in range(n)]
        lua_s = plain_s = 0.0
        for at in range(0, n, 100):
            t0 = time.perf_counter()
            for c in calls[at:at + 100]:
                checked(links.run([c]))
            t1 = time.perf_counter()
            for _ in range(at, at + 100):
                checked(links.run([("XADD", plain, "*", "e", ENVELOPE)]))
            lua_s += t1 - t0
            plain_s += time.perf_counter() - t1
        ratios[name] = plain_s / lua_s
        for key in client.scan_iter(match=f"{ns}:*"):
            client.delete(key)
    return ratios


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="boardlog-lua-")) / "redis", appendonly=True).start()
    client = redis.Redis.from_url(server.url)
    links = Links.for_client(client)
    assert links is not None
    try:
        got = [measure(links, client, n) for _ in range(runs)]
        print(f"Lua scripts against a plain XADD, one event a round trip over the worker's own connection "
              f"({runs} runs of {n}, embedded Redis with AOF):")
        for name in got[0]:
            xs = [g[name] for g in got]
            print(f"  {name}: {statistics.median(xs):.0%} (runs: {', '.join(f'{x:.0%}' for x in xs)})")
    finally:
        client.close()
        server.stop()


if __name__ == "__main__":
    main()
