-- Drop refused commands' answers listed in the partition's refused set since before a time.
-- An accepted command's answer is never listed (it stays with the log); a refusal listed again
-- since it was read (the same id refused anew after its answer was dropped) keeps its new entry.
-- KEYS: 1 the partition's refused set, then each listed game's results hash (as ARGV pairs them)
-- ARGV: 1 before (ms), 2 drop the answers (1) or only the listing (0: answers kept for ever),
--       then member, index of its results hash in KEYS pairs
local before = tonumber(ARGV[1])
local dropped = 0
for i = 3, #ARGV, 2 do
  local member = ARGV[i]
  local at = redis.call('ZSCORE', KEYS[1], member)
  if at and tonumber(at) <= before then
    redis.call('ZREM', KEYS[1], member)
    if ARGV[2] == '1' then
      local cid = string.sub(member, string.find(member, ' ', 1, true) + 1)
      dropped = dropped + redis.call('HDEL', KEYS[tonumber(ARGV[i + 1])], cid)
    end
  end
end
return dropped
