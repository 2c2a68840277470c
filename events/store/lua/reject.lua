-- Store a command's rejection once; a command already answered keeps its first answer.
-- KEYS: 1 results hash, 2 pending hash.
-- ARGV: 1 command id, 2 result json, 3 game id, 4 reply channel ('' for none), 5 the result as
--       stored (compact; absent: the JSON)
local prior = redis.call('HGET', KEYS[1], ARGV[1])
if prior then return prior end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[5] or ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[3] .. ' ' .. ARGV[2]) end
return ARGV[2]
