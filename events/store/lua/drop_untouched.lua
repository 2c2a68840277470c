-- Remove a game no command reached since it was made: every key of it, and its lobby row.
-- A game whose log grew since (a seat moved, joined, or the platform acted) leaves the watch
-- for good; one with a command queued and not yet answered stays watched, for the next sweep.
-- KEYS: 1 the partition's untouched set, 2 events stream, 3 pending hash, 4 lobby set,
--       5 archive, 6.. the game's other keys (meta first)
-- ARGV: 1 the member (game id and opening seq), 2 the opening seq, 3 game id
if redis.call('XLEN', KEYS[2]) ~= tonumber(ARGV[2]) or redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
if redis.call('HLEN', KEYS[3]) > 0 then return -1 end
for i = 2, #KEYS do
  if i == 4 then redis.call('ZREM', KEYS[4], ARGV[3]) else redis.call('DEL', KEYS[i]) end
end
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
