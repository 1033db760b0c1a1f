#!lua
-- RENEW (RedisLeaseHandle.renew and the watchdog's batches; spec action Renew, once per lease).
-- For each lease i of the call (1..#KEYS/2): KEYS[2i-1] its lease key, KEYS[2i] its fencing counter
-- (same hash slot); ARGV[2i] its ownership, ARGV[2i+1] its ttl ms (may be shorter than what is left).
-- ARGV[1] the counters' retention in ms ("0": the counters are left alone; clock mode sends more,
-- so a counter keeps outliving the key it fences).
-- Replies: one integer per lease, in order: 1 extended, 0 absent, -1 another value (of any type).
-- Each lease is judged on its own two keys only, exactly as if it were renewed alone: a batch is
-- several RENEWs sent at one instant and answered together. Safe to replay: it only ever touches
-- the value of the same attempt.
-- Every command this script may run, checked before anything is written: a user that the ACL
-- rule (docs/operations.md, "ACL") does not fully cover is refused with nothing changed (NOPERM: not
-- applied), never half-way. Redis 6.2 has no acl_check_cmd: there the rule must be complete.
local leases = #KEYS / 2
-- Read once, not once per lease: the loops below are what a batch of 100 costs the server.
local retain = ARGV[1] ~= '0'
local retention = tonumber(ARGV[1])
if redis.acl_check_cmd then
  for i = 1, leases do
    -- One call per command, no table: a loop over a table of checks cost twice as much (bench/README.md).
    local lease = KEYS[2 * i - 1]
    local denied = (not redis.acl_check_cmd('get', lease) and 'get')
      or (not redis.acl_check_cmd('pexpire', lease, '1') and 'pexpire')
      or (retain and not redis.acl_check_cmd('pexpire', KEYS[2 * i], '1') and 'pexpire')
    if denied then
      return redis.error_reply('NOPERM this user has no permission to run ' .. denied
        .. ' on the lease keys; nothing was changed')
    end
  end
end
local replies = {}
for i = 1, leases do
  local lease = KEYS[2 * i - 1]
  -- GET answers nil for no key and WRONGTYPE for a value of another type: someone else's. Any
  -- other error stops the call as it is: the leases before it may have been renewed, and the
  -- client counts every lease of the call as unanswered.
  local holder = redis.pcall('GET', lease)
  if not holder then
    replies[i] = 0
  elseif type(holder) == 'table' then
    if not string.find(holder['err'], '^WRONGTYPE') then
      return holder
    end
    replies[i] = -1
  elseif holder ~= ARGV[2 * i] then
    replies[i] = -1
  else
    redis.call('PEXPIRE', lease, ARGV[2 * i + 1])
    if retain then
      -- A no-op where the counter is gone (a restart or failover lost it): the next grant's clock
      -- floor keeps tokens rising, as it does after any loss of the counter.
      redis.call('PEXPIRE', KEYS[2 * i], string.format('%d', tonumber(ARGV[2 * i + 1]) + retention))
    end
    replies[i] = 1
  end
end
return replies
