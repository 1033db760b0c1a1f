#!lua flags=no-writes
-- INSPECT (RedisLeaseAdapter.inspect; spec action Inspect). Read-only, so it may run on a replica.
-- KEYS[1] lease key, KEYS[2] fencing counter. ARGV[1] ownership.
-- Replies: {0} absent; {1, thisAttempt, pttl, token}.
-- Every command this script may run, checked before anything is written: a user that the ACL
-- rule (README, "ACL") does not fully cover is refused with nothing changed (NOPERM: not
-- applied), never half-way. Redis 6.2 has no acl_check_cmd: there the rule must be complete.
if redis.acl_check_cmd then
  for _, c in ipairs({{'type', KEYS[1]}, {'get', KEYS[1]}, {'pttl', KEYS[1]}, {'get', KEYS[2]}}) do
    if not redis.acl_check_cmd(unpack(c)) then
      return redis.error_reply('NOPERM this user has no permission to run ' .. c[1]
        .. ' on the lease keys; nothing was changed')
    end
  end
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return {0}
end
local mine = 0
if kind == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then
  mine = 1
end
return {1, mine, redis.call('PTTL', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or '0') or 0}
