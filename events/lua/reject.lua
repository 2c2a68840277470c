-- Store a command's rejection once; a command already answered keeps its first answer.
-- KEYS: 1 results hash, 2 pending hash, 3 wait list. ARGV: 1 command id, 2 result json
local prior = redis.call('HGET', KEYS[1], ARGV[1])
if prior then return prior end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('EXPIRE', KEYS[3], 300)
return ARGV[2]
