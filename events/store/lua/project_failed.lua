-- Mark a game whose projection failed (its rules raised): replace its summary with the one given
-- (the last good summary with a projection_failed marker) and leave its views and checkpoint as
-- they are. A no-op when the checkpoint moved since that summary was read: a newer good
-- projection stands.
-- KEYS: 1 read-model hash, 2 lobby sorted set
-- ARGV: 1 game id, 2 checkpoint the summary was read at (0: none), 3 lobby score (last activity,
--       ms; only for a game not in the lobby yet), 4 notify channel, 5 notify message, 6 summary
local cur = tonumber(redis.call('HGET', KEYS[1], 'checkpoint') or '0')
if cur ~= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'summary', ARGV[6])
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
