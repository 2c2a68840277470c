"""The Lua append beside the previous one and two floors, each as a rate against a plain XADD
of the same envelope over the same connection, in alternating blocks (the machine is noisy).

Usage: .venv/bin/python -m bench.bench_lua [runs] [appends per run]

The issue's target is the Lua append at >= 80 % of a plain single-round-trip XADD. The floors
are used nowhere: one XADD inside a script (what any script with one write pays) and an empty
script with the same arguments (what EVALSHA itself costs).
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

from events.store.store import APPEND_LUA  # noqa: E402
from events.store.wire import Links, checked  # noqa: E402
from service.runtime.embedded import EmbeddedRedis  # noqa: E402

ENVELOPE = (b'{"at":"2026-11-29T23:00:00.000Z","command":"c0b1a5e2-9f4e-4c1b-8d7a-3e2f1a0b9c8d",'
            b'"data":{"bonus":0,"die":3},"game":"p01-benchappend01","hash":"' + b"a" * 64
            + b'","prev":"' + b"b" * 64 + b'","seat":0,"seq":1234,"type":"race.DieRolled"}')
RESULT = b'{"http":200,"id":"c0b1a5e2-9f4e-4c1b-8d7a-3e2f1a0b9c8d","seq":[1234,1234],"status":"accepted"}'

# The append script before 2026-11-29's fifth session: it also woke the waiter (PUBLISH),
# dropped the queued body (HDEL), kept a five-field head hash, read the seq from that hash
# and capped the feed (MAXLEN ~), all inside the script.
PREVIOUS = """
-- Append all events of one command, atomically.
-- KEYS: 1 events stream, 2 meta hash, 3 results hash, 4 partition feed, 5 pending hash
-- ARGV: 1 expected seq, 2 command id ('' for none), 3 result json, 4 game id,
--       5 new head hash, 6 draws, 7 status, 8 updated-at,
--       9 reply channel ('' for none: nobody waits), 10.. envelopes (one or more)
-- Reads two fields; writes only what must persist. The waiter is woken by PUBLISH, which
-- is not written to the AOF (a wake-up list cost a key, an RPUSH and an EXPIRE per command).
local expected = tonumber(ARGV[1])
local cid = ARGV[2]
if cid ~= '' then
  local prior = redis.call('HGET', KEYS[3], cid)
  if prior then return {'dup', prior} end
end
local cur = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
if cur ~= expected then return {'conflict', cur} end
local n = #ARGV - 9
for i = 1, n do
  redis.call('XADD', KEYS[1], (expected + i) .. '-0', 'e', ARGV[9 + i])
end
local seq = expected + n
redis.call('HSET', KEYS[2], 'seq', seq, 'hash', ARGV[5], 'draws', ARGV[6], 'status', ARGV[7],
  'updated', ARGV[8])
if cid ~= '' then
  redis.call('HSET', KEYS[3], cid, ARGV[3])
  redis.call('HDEL', KEYS[5], cid)
  if ARGV[9] ~= '' then redis.call('PUBLISH', ARGV[9], ARGV[4] .. ' ' .. ARGV[3]) end
end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', '1000000', '*', 'g', ARGV[4], 's', seq)
return {'ok', seq}
"""
ONE_XADD = """
redis.call('XADD', KEYS[1], (tonumber(ARGV[1]) + 1) .. '-0', 'e', ARGV[5])
return 1
"""
EMPTY = "return 1"


def measure(links: Links, client: redis.Redis, n: int) -> dict[str, float]:
    """Each script's rate over the plain XADD's, appending n one-event commands to a new game."""
    ratios: dict[str, float] = {}
    for name, source in (("shipped append.lua", APPEND_LUA), ("the previous append.lua", PREVIOUS),
                         ("one XADD in a script", ONE_XADD), ("empty script, same arguments", EMPTY)):
        sha = client.script_load(source)
        ns = f"bl{uuid.uuid4().hex[:8]}:{{p01}}"
        events, meta, results, feed, pending, plain = (f"{ns}:{k}" for k in ("ev", "meta", "res", "feed", "pend", "x"))

        if source is PREVIOUS:  # as the worker called it, with a reply channel
            calls = [("EVALSHA", sha, 5, events, meta, results, feed, pending, i, f"c{i}", RESULT,
                      "p01-benchappend01", "h" * 64, 0, "active", "t", f"{ns}:reply", ENVELOPE) for i in range(n)]
        else:  # as EventStore.append calls the shipped script

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
