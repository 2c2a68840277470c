-- Append all events of one command, atomically: DESIGN.md's five duties, and the command's
-- settling when the caller asks for it here.
-- KEYS: 1 events stream, 2 results hash, 3 partition feed, 4 the game's archive record (optional),
--       5 the game's private hash (optional: the answer then says whether it exists),
--       6 pending hash (optional: the command is settled here)
-- ARGV: 1 expected seq, 2 command id ('' for none), 3 result as stored, 4 game id, 5.. envelopes;
--       with KEYS[6], the last two are the reply channel ('' for none) and the result's JSON
-- Returns the new seq (with KEYS[5], {seq, 1 if the private hash exists else 0}); -1 - seq when
-- the stream is not at the expected seq (seq counts from 1 and an event stream is never
-- trimmed, so its length is its seq); the stored result when the command id was applied before.
-- Settling (drop the queued body, wake the waiter) does not have to be atomic with the append
-- (a waiter also polls the results; a body left behind is answered from the results), and a
-- write inside a script costs more than one outside it; it is done here because with
-- `appendfsync always` Redis fsyncs before it answers a batch that wrote, and the waiter's
-- message leaves with that batch: settled in a second batch, the answer waits on two fsyncs.
-- The private hash is read here, after the append, so that the worker looks for a seat's
-- queued answer only in a game where a seat has written one (or muted its chat).
local e = tonumber(ARGV[1])
local cid = ARGV[2]
if cid ~= '' then
  local prior = redis.call('HGET', KEYS[2], cid)
  if prior then return prior end
end
local cur = redis.call('XLEN', KEYS[1])
if cur ~= e then
  -- An archived game's stream is gone (its length 0, never the seq expected of a game that has
  -- events): the caller puts it back (restore.lua) and appends again.
  if cur == 0 and KEYS[4] and redis.call('EXISTS', KEYS[4]) == 1 then return redis.error_reply('ARCHIVED game') end
  return -1 - cur
end
local settle = KEYS[6] ~= nil
local n = #ARGV - 4
if settle then n = n - 2 end
for i = 1, n do
  redis.call('XADD', KEYS[1], (e + i) .. '-0', 'e', ARGV[4 + i])
end
if cid ~= '' then redis.call('HSET', KEYS[2], cid, ARGV[3]) end
redis.call('XADD', KEYS[3], '*', 'g', ARGV[4])
if settle then
  if cid ~= '' then redis.call('HDEL', KEYS[6], cid) end
  if ARGV[#ARGV - 1] ~= '' then redis.call('PUBLISH', ARGV[#ARGV - 1], ARGV[4] .. ' ' .. ARGV[#ARGV]) end
end
if KEYS[5] then return {e + n, redis.call('EXISTS', KEYS[5])} end
return e + n
