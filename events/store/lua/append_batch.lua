-- One game's part of a batch of commands (workers/commands.py, handle_batch), all or nothing: the
-- events of its accepted commands appended in order, every command's answer stored, its queued
-- body dropped and its waiter told; or, when the stream is not at the expected seq or any of
-- the commands already has an answer, nothing at all (the worker then handles the game's
-- commands one by one, deciding again on the current state).
-- KEYS: 1 events stream, 2 results hash, 3 partition feed, 4 the game's archive record,
--       5 the game's private hash, 6 pending hash, 7 the partition's refused set, 8 meta hash,
--       9 the partition's ended set
-- ARGV: 1 expected seq, 2 game id, 3 now (ms), 4 the game's new status ('' unchanged),
--       5 '1' when that status ends the game (listed for the archiver),
--       then for each command: its id, 'a' (accepted: its events follow) or 'r' (refused: listed
--       for the refusals' sweep), its answer as stored, the reply channel ('' for none), the
--       answer's JSON to publish ('' with no channel), the number of events n, then n events
-- Returns {1, seq, 1 if the private hash exists else 0}; {0, seq} when the stream is at another
-- seq; {2, i} when the i-th command (from 1) already has an answer.
local e = tonumber(ARGV[1])
local cmds = {}
local i = 6
while i <= #ARGV do
  local n = tonumber(ARGV[i + 5])
  cmds[#cmds + 1] = {i, n}
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then return {2, #cmds} end
  i = i + 6 + n
end
local cur = redis.call('XLEN', KEYS[1])
if cur ~= e then
  -- An archived game's stream is gone: the caller puts it back (restore.lua) and calls again.
  if cur == 0 and redis.call('EXISTS', KEYS[4]) == 1 then return redis.error_reply('ARCHIVED game') end
  return {0, cur}
end
local seq = e
for _, c in ipairs(cmds) do
  local at, n = c[1], c[2]
  local cid = ARGV[at]
  for j = 1, n do
    seq = seq + 1
    redis.call('XADD', KEYS[1], seq .. '-0', 'e', ARGV[at + 5 + j])
  end
  redis.call('HSET', KEYS[2], cid, ARGV[at + 2])
  redis.call('HDEL', KEYS[6], cid)
  if ARGV[at + 1] == 'r' then redis.call('ZADD', KEYS[7], ARGV[3], ARGV[2] .. ' ' .. cid) end
  if ARGV[at + 3] ~= '' then redis.call('PUBLISH', ARGV[at + 3], ARGV[2] .. ' ' .. ARGV[at + 4]) end
end
if seq > e then redis.call('XADD', KEYS[3], '*', 'g', ARGV[2]) end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[8], 'status', ARGV[4])
  if ARGV[5] == '1' then redis.call('ZADD', KEYS[9], ARGV[3], ARGV[2]) end
end
return {1, seq, redis.call('EXISTS', KEYS[5])}
