-- Append all events of one command, atomically.
-- KEYS: 1 events stream, 2 meta hash, 3 results hash, 4 partition feed, 5 pending hash, 6 wait list
-- ARGV: 1 expected seq, 2 command id ('' for none), 3 result json, 4 game id,
--       5 new head hash, 6 draws, 7 status, 8 updated-at, 9 event count, 10.. envelopes
local expected = tonumber(ARGV[1])
local cid = ARGV[2]
if cid ~= '' then
  local prior = redis.call('HGET', KEYS[3], cid)
  if prior then return {'dup', prior} end
end
local cur = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
if cur ~= expected then return {'conflict', tostring(cur)} end
local n = tonumber(ARGV[9])
for i = 1, n do
  redis.call('XADD', KEYS[1], (expected + i) .. '-0', 'e', ARGV[9 + i])
end
redis.call('HSET', KEYS[2], 'seq', expected + n, 'hash', ARGV[5], 'draws', ARGV[6],
  'status', ARGV[7], 'updated', ARGV[8])
if cid ~= '' then
  redis.call('HSET', KEYS[3], cid, ARGV[3])
  redis.call('HDEL', KEYS[5], cid)
  redis.call('RPUSH', KEYS[6], ARGV[3])
  redis.call('EXPIRE', KEYS[6], 300)
end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', '1000000', '*', 'g', ARGV[4], 's', tostring(expected + n))
return {'ok', tostring(expected + n)}
