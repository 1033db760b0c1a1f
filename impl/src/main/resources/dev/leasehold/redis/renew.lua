#!lua
-- RENEW (RedisLeaseHandle.renew; spec action Renew).
-- KEYS[1] lease key, KEYS[2] fencing counter (same hash slot). ARGV[1] ownership, ARGV[2] ttl ms
-- (may be shorter than what is left), ARGV[3] the counter's retention in ms ("0": the counter is
-- left alone; clock mode sends more, so the counter keeps outliving the key it fences).
-- Replies: 1 extended, 0 absent, -1 another value (of any type). Safe to replay: it only ever
-- touches the value of the same attempt.
-- Every command this script may run, checked before anything is written: a user that the ACL
-- rule (docs/operations.md, "ACL") does not fully cover is refused with nothing changed (NOPERM: not
-- applied), never half-way. Redis 6.2 has no acl_check_cmd: there the rule must be complete.
if redis.acl_check_cmd then
  -- One call per command, no table: a loop over a table of checks cost twice as much (bench/README.md).
  local denied = (not redis.acl_check_cmd('get', KEYS[1]) and 'get')
    or (not redis.acl_check_cmd('pexpire', KEYS[1], '1') and 'pexpire')
    or (ARGV[3] ~= '0' and not redis.acl_check_cmd('pexpire', KEYS[2], '1') and 'pexpire')
  if denied then
    return redis.error_reply('NOPERM this user has no permission to run ' .. denied
      .. ' on the lease keys; nothing was changed')
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
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if ARGV[3] ~= '0' then
  -- A no-op where the counter is gone (a restart or failover lost it): the next grant's clock
  -- floor keeps tokens rising, as it does after any loss of the counter.
  redis.call('PEXPIRE', KEYS[2], string.format('%d', tonumber(ARGV[2]) + tonumber(ARGV[3])))
end
return 1
