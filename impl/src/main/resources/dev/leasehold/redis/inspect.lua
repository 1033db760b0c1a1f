#!lua flags=no-writes
-- INSPECT (RedisLeaseAdapter.inspect; spec action Inspect). Read-only, so it may run on a replica.
-- KEYS[1] lease key, KEYS[2] fencing counter. ARGV[1] ownership.
-- Replies: {0} absent; {1, thisAttempt, pttl, token}.
-- Every command this script may run, checked before it runs any: a user that the ACL rule
-- (docs/operations.md, "ACL") does not fully cover is refused (NOPERM: not applied). Redis 6.2 has no
-- acl_check_cmd: there the rule must be complete.
if redis.acl_check_cmd then
  -- One call per command, no table: a loop over a table of checks cost twice as much (bench/README.md).
  local denied = (not redis.acl_check_cmd('get', KEYS[1]) and 'get')
    or (not redis.acl_check_cmd('pttl', KEYS[1]) and 'pttl')
    or (not redis.acl_check_cmd('get', KEYS[2]) and 'get')
  if denied then
    return redis.error_reply('NOPERM this user has no permission to run ' .. denied
      .. ' on the lease keys; nothing was changed')
  end
end
-- GET answers nil for no key and WRONGTYPE for a value of another type: someone else's.
local holder = redis.pcall('GET', KEYS[1])
if not holder then
  return {0}
end
if type(holder) == 'table' and not string.find(holder['err'], '^WRONGTYPE') then
  return holder
end
local mine = 0
if holder == ARGV[1] then
  mine = 1
end
return {1, mine, redis.call('PTTL', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or '0') or 0}
