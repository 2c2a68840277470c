-- Write a game's read models and its checkpoint together; an older checkpoint is a no-op.
-- KEYS: 1 read-model hash, 2 lobby sorted set
-- ARGV: 1 game id, 2 checkpoint seq, 3 lobby score (last activity, ms), 4 notify channel,
--       5 notify message, 6 field count, then field, value pairs
local cur = tonumber(redis.call('HGET', KEYS[1], 'checkpoint') or '0')
local seq = tonumber(ARGV[2])
if seq <= cur then return 0 end
local n = tonumber(ARGV[6])
local args = {}
for i = 1, n * 2 do args[i] = ARGV[6 + i] end
redis.call('HSET', KEYS[1], 'checkpoint', seq, unpack(args))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
