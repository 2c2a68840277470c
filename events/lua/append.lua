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
