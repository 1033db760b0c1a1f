#!lua
-- ACQUIRE (RedisLeaseAdapter.tryAcquire; spec action TryAcquire / Replay).
-- KEYS[1] lease key, KEYS[2] fencing counter (same hash slot).
-- ARGV[1] ownership "ownerToken:operationId", ARGV[2] "ownerToken:", ARGV[3] ttl ms,
-- ARGV[4] fence mode: "counter" or "clock".
-- Replies: {1, token, pttl} granted; {2, token, pttl} replay, nothing changed;
-- {0, 0, pttl, sameOwner} held by another value. Safe to replay: a second run of a granted
-- request finds its own value and changes nothing.
-- Every command this script may run, checked before anything is written: a user that the ACL
-- rule (README, "ACL") does not fully cover is refused with nothing changed (NOPERM: not
-- applied), never half-way. Redis 6.2 has no acl_check_cmd: there the rule must be complete.
if redis.acl_check_cmd then
  for _, c in ipairs({{'type', KEYS[1]}, {'get', KEYS[1]}, {'pttl', KEYS[1]}, {'set', KEYS[1], '0'}, {'incr', KEYS[2]}, {'get', KEYS[2]}, {'set', KEYS[2], '0'}, {'time'}}) do
    if not redis.acl_check_cmd(unpack(c)) then
      return redis.error_reply('NOPERM this user has no permission to run ' .. c[1]
        .. ' on the lease keys or the server clock; nothing was changed')
    end
  end
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  local token = redis.call('INCR', KEYS[2])
  if ARGV[4] == 'clock' then
    -- A floor from the server clock keeps tokens rising even when a restart or failover lost
    -- the counter. Microseconds since the epoch stay below 2^53, so Lua's doubles are exact.
    local now = redis.call('TIME')
    local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
    if token < floor then
      token = floor
      redis.call('SET', KEYS[2], string.format('%d', token))
    end
  end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return {1, token, redis.call('PTTL', KEYS[1])}
end
local pttl = redis.call('PTTL', KEYS[1])
if kind ~= 'string' then
  return {0, 0, pttl, 0}
end
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  -- A replay: report what is left; never extend, so a late replay cannot outlive the lease.
  return {2, tonumber(redis.call('GET', KEYS[2]) or '0') or 0, pttl}
end
local sameOwner = 0
if string.sub(holder, 1, #ARGV[2]) == ARGV[2] then
  sameOwner = 1
end
return {0, 0, pttl, sameOwner}
