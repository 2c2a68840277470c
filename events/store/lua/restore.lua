-- Put an archived game's stream and results back (an event is to be appended to it), atomically;
-- a no-op when it is not archived under the record read (another process restored it first).
-- KEYS: 1 events stream, 2 results hash, 3 archive, 4 meta
-- ARGV: 1 meta's archived value the record was read under, 2 entry count n, 3.. n entries,
--       then (command id, result) pairs
if redis.call('HGET', KEYS[4], 'archived') ~= ARGV[1] then return 0 end
if redis.call('XLEN', KEYS[1]) ~= 0 then return 0 end
local n = tonumber(ARGV[2])
for i = 1, n do
  redis.call('XADD', KEYS[1], i .. '-0', 'e', ARGV[2 + i])
end
for i = 3 + n, #ARGV, 2 do
  redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('DEL', KEYS[3])
redis.call('HDEL', KEYS[4], 'archived')
return 1
