-- Swap a finished game's stream, results and snapshots for its archive record, atomically; a
-- no-op when the game moved since the record was made and checked (an event appended, a result
-- stored): the archiver makes the record again later.
-- The game's large read models (its views) are replaced by their zstd-compressed bytes in the
-- same script, when the read models are still those the compressed ones were made from (the
-- same checkpoint); readers tell them by zstd's magic number.
-- KEYS: 1 events stream, 2 results hash, 3 snapshots hash, 4 snapshot index, 5 archive, 6 meta,
--       7 the partition's ended set, 8 read models hash
-- ARGV: 1 head seq the record holds, 2 results it holds, 3 record, 4 meta's archived value, 5 game id,
--       6 the read models' checkpoint they were compressed at, then field, compressed value pairs
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
if #ARGV > 6 and redis.call('HGET', KEYS[8], 'checkpoint') == ARGV[6] then
  for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[8], ARGV[i], ARGV[i + 1]) end
end
return 1
