-- Append all events of one command, atomically: DESIGN.md's five duties and nothing else.
-- KEYS: 1 events stream, 2 results hash, 3 partition feed, 4 the game's archive record (optional)
-- ARGV: 1 expected seq, 2 command id ('' for none), 3 result json, 4 game id, 5.. envelopes
-- Returns the new seq; -1 - seq when the stream is not at the expected seq (seq counts from 1
-- and an event stream is never trimmed, so its length is its seq); the stored result when
-- the command id was applied before.
-- Waking the command's waiter and dropping its queued body are the caller's next round trip:
-- neither has to be atomic with the append (a waiter also polls the results; a body left
-- behind is answered from the results), and each write inside a script costs more than one
-- outside it.
local e = tonumber(ARGV[1])
local cid = ARGV[2]
if cid ~= '' then
  local prior = redis.call('HGET', KEYS[2], cid)
  if prior then return prior end
end
local cur = redis.call('XLEN', KEYS[1])
if cur ~= e then
  -- An archived game's stream is gone (its length 0, never the seq expected of a game that has
  -- events): the caller puts it back (restore.lua) and appends again.
  if cur == 0 and KEYS[4] and redis.call('EXISTS', KEYS[4]) == 1 then return redis.error_reply('ARCHIVED game') end
  return -1 - cur
end
local n = #ARGV - 4
for i = 1, n do
  redis.call('XADD', KEYS[1], (e + i) .. '-0', 'e', ARGV[4 + i])
end
if cid ~= '' then redis.call('HSET', KEYS[2], cid, ARGV[3]) end
redis.call('XADD', KEYS[3], '*', 'g', ARGV[4])
return e + n
