#!lua
-- RELEASE (RedisLeaseHandle.release; spec action Release).
-- KEYS[1] lease key. ARGV[1] ownership. Publishes on KEYS[1]..':released' when it deletes.
-- Replies: 1 deleted, 0 absent, -1 another value (of any type). Safe to replay: it never deletes
-- another value.
-- Every command this script may run, checked before anything is written: a user that the ACL
-- rule (docs/operations.md, "ACL") does not fully cover is refused with nothing changed (NOPERM: not
-- applied), never half-way. Redis 6.2 has no acl_check_cmd: there the rule must be complete.
if redis.acl_check_cmd then
  -- One call per command, no table: a loop over a table of checks cost twice as much (bench/README.md).
  local denied = (not redis.acl_check_cmd('get', KEYS[1]) and 'get')
    or (not redis.acl_check_cmd('del', KEYS[1]) and 'del')
    or (not redis.acl_check_cmd('publish', KEYS[1] .. ':released', '1') and 'publish')
  if denied then
    return redis.error_reply('NOPERM this user has no permission to run ' .. denied
      .. ' on the lease key or its release channel; nothing was changed')
  end
end
-- GET answers nil for no key and WRONGTYPE for a value of another type: someone else's.
local holder = redis.pcall('GET', KEYS[1])
if not holder then
  return 0
end
if type(holder) == 'table' then
  if not string.find(holder['err'], '^WRONGTYPE') then
    return holder
  end
  return -1
end
if holder ~= ARGV[1] then
  return -1
end
redis.call('DEL', KEYS[1])
-- Wakes waiters at once instead of after their retryAfter; costs nothing without subscribers.
redis.call('PUBLISH', KEYS[1] .. ':released', '1')
return 1
