-- Store a command's rejection once; a command already answered keeps its first answer.
-- KEYS: 1 results hash, 2 pending hash, 3 the partition's refused set (optional: the rejection
--       is listed there by when, for the sweep that drops it once it has expired)
-- ARGV: 1 command id, 2 result json, 3 game id, 4 reply channel ('' for none), 5 the result as
--       stored (compact; absent: the JSON), 6 now (ms, with KEYS[3])
local prior = redis.call('HGET', KEYS[1], ARGV[1])
if prior then return prior end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[5] or ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[1])
if KEYS[3] then redis.call('ZADD', KEYS[3], ARGV[6], ARGV[3] .. ' ' .. ARGV[1]) end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[3] .. ' ' .. ARGV[2]) end
return ARGV[2]
