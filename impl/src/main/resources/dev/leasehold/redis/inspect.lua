#!lua flags=no-writes
-- INSPECT (RedisLeaseAdapter.inspect; spec action Inspect). Read-only, so it may run on a replica.
-- KEYS[1] lease key, KEYS[2] fencing counter. ARGV[1] ownership.
-- Replies: {0} absent; {1, thisAttempt, pttl, token}.
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return {0}
end
local mine = 0
if kind == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then
  mine = 1
end
return {1, mine, redis.call('PTTL', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or '0') or 0}
