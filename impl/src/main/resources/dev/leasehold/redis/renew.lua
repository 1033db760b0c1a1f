#!lua
-- RENEW (RedisLeaseHandle.renew; spec action Renew).
-- KEYS[1] lease key. ARGV[1] ownership, ARGV[2] ttl ms (may be shorter than what is left).
-- Replies: 1 extended, 0 absent, -1 another value. Safe to replay: it only ever touches the
-- value of the same attempt.
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return 0
end
if kind ~= 'string' or redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return -1
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
