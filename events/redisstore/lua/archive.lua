-- Swap a finished game's stream, results and snapshots for its archive record, atomically; a
-- no-op when the game moved since the record was made and checked (an event appended, a result
-- stored): the archiver makes the record again later.
-- KEYS: 1 events stream, 2 results hash, 3 snapshots hash, 4 snapshot index, 5 archive, 6 meta,
--       7 the partition's ended set
-- ARGV: 1 head seq the record holds, 2 results it holds, 3 record, 4 meta's archived value, 5 game id
if redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('ZREM', KEYS[7], ARGV[5])
  return 0
end
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return -1 end
if redis.call('HLEN', KEYS[2]) ~= tonumber(ARGV[2]) then return -2 end
redis.call('SET', KEYS[5], ARGV[3])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[6], 'archived', ARGV[4])
redis.call('ZREM', KEYS[7], ARGV[5])
return 1
