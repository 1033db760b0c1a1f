#!lua
-- RELEASE (RedisLeaseHandle.release; spec action Release).
-- KEYS[1] lease key. ARGV[1] ownership. Publishes on KEYS[1]..':released' when it deletes.
-- Replies: 1 deleted, 0 absent, -1 another value. Safe to replay: it never deletes another value.
-- Every command this script may run, checked before anything is written: a user that the ACL
-- rule (README, "ACL") does not fully cover is refused with nothing changed (NOPERM: not
-- applied), never half-way. Redis 6.2 has no acl_check_cmd: there the rule must be complete.
if redis.acl_check_cmd then
  for _, c in ipairs({{'type', KEYS[1]}, {'get', KEYS[1]}, {'del', KEYS[1]}, {'publish', KEYS[1] .. ':released', '1'}}) do
    if not redis.acl_check_cmd(unpack(c)) then
      return redis.error_reply('NOPERM this user has no permission to run ' .. c[1]
        .. ' on the lease key or its release channel; nothing was changed')
    end
  end
end
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
