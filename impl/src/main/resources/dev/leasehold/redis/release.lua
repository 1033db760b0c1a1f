#!lua
-- RELEASE (RedisLeaseHandle.release; spec action Release).
-- KEYS[1] lease key. ARGV[1] ownership. Publishes on KEYS[1]..':released' when it deletes.
-- Replies: 1 deleted, 0 absent, -1 another value. Safe to replay: it never deletes another value.
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return 0
end
if kind ~= 'string' or redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return -1
end
redis.call('DEL', KEYS[1])
-- Wakes waiters at once instead of after their retryAfter; costs nothing without subscribers.
redis.call('PUBLISH', KEYS[1] .. ':released', '1')
return 1
