#!lua
-- ACQUIRE (RedisLeaseAdapter.tryAcquire; spec action TryAcquire / Replay).
-- KEYS[1] lease key, KEYS[2] fencing counter (same hash slot).
-- ARGV[1] ownership "ownerToken:operationId", ARGV[2] "ownerToken:", ARGV[3] ttl ms,
-- ARGV[4] fence mode: "counter" or "clock", ARGV[5] the counter's retention in ms ("0": no TTL).
-- Replies: {1, token} granted (the key lives ARGV[3] ms: SET PX just set it); {2, token, pttl} replay, nothing changed;
-- {0, 0, pttl, sameOwner} held by another value (of any type). Safe to replay: a second run of a
-- granted request finds its own value and changes nothing.
-- A grant is GET (counter), TIME (clock mode), SET NX PX and SET (counter): one write fewer
-- than INCR and a raise to the floor, and no TYPE or PTTL (bench/README.md). With a retention
-- the counter's SET carries PX ttl + retention: a resource nobody holds leaves no key for long.
-- Every command this script may run, checked before anything is written: a user that the ACL
-- rule (docs/operations.md, "ACL") does not fully cover is refused with nothing changed (NOPERM: not
-- applied), never half-way. TIME only in clock mode: a COUNTER user needs no +time. Redis 6.2 has
-- no acl_check_cmd: there the rule must be complete.
if redis.acl_check_cmd then
  -- One call per command, no table: a loop over a table of checks cost twice as much (bench/README.md).
  local denied = (not redis.acl_check_cmd('get', KEYS[2]) and 'get')
    or (not redis.acl_check_cmd('set', KEYS[1], '0') and 'set')
    or (ARGV[4] == 'clock' and not redis.acl_check_cmd('time') and 'time')
    or (not redis.acl_check_cmd('set', KEYS[2], '0') and 'set')
    or (not redis.acl_check_cmd('get', KEYS[1]) and 'get')
    or (not redis.acl_check_cmd('pttl', KEYS[1]) and 'pttl')
  if denied then
    return redis.error_reply('NOPERM this user has no permission to run ' .. denied
      .. ' on the lease keys or the server clock; nothing was changed')
  end
end
-- The counter first: a grant writes the lease and then the counter, so a counter it could not
-- raise as INCR would (a decimal integer; below 2^53, where Lua's doubles are exact) must stop
-- the grant before anything is written. A held key never needed the counter to be valid.
local counter = redis.pcall('GET', KEYS[2])
local raisable = counter == false or counter == '0' or (type(counter) == 'string'
  and string.find(counter, '^%-?[1-9]%d*$') ~= nil and math.abs(tonumber(counter)) < 2^53)
-- TIME before the first write too: on Redis 6.2 (no pre-check) a rule without +time then fails
-- with nothing written.
local now = ARGV[4] == 'clock' and raisable and redis.call('TIME')
if raisable and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then
  local token = tonumber(counter or '0') + 1
  if now then
    -- A floor from the server clock keeps tokens rising even when a restart or failover lost
    -- the counter. Microseconds since the epoch stay below 2^53, so Lua's doubles are exact.
    token = math.max(token, tonumber(now[1]) * 1000000 + tonumber(now[2]))
  end
  -- Cannot fail where the SET above did not: Redis 7 checked it first (a rule may let a user
  -- read the counter but not write it), and on 6.2 a key a user may GET it may also SET, since
  -- 6.2 grants keys to all commands alike. Not out of memory either: once a script has written,
  -- Redis lets it go on writing.
  if now and ARGV[5] ~= '0' then
    -- Only in clock mode: a token floored by the clock needs no memory of the last one once the
    -- clock has passed it, while a plain counter is that memory and must never expire.
    redis.call('SET', KEYS[2], string.format('%d', token), 'PX',
      string.format('%d', tonumber(ARGV[3]) + tonumber(ARGV[5])))
  else
    redis.call('SET', KEYS[2], string.format('%d', token))
  end
  -- No PTTL: SET PX just set it to the TTL the request asked for, which the client already knows.
  return {1, token}
end
local holder = redis.pcall('GET', KEYS[1])
if not holder then
  -- Free, and the counter cannot be raised: refused, nothing written (its own error if reading
  -- it failed, WRONGTYPE for a hash, as INCR answered).
  if type(counter) == 'table' then
    return counter
  end
  return redis.error_reply('ERR value is not an integer or out of range: the fencing counter; nothing was changed')
end
-- Held. GET answers WRONGTYPE for a value of another type: someone else's, like any other value.
if type(holder) == 'table' and not string.find(holder['err'], '^WRONGTYPE') then
  return holder
end
local pttl = redis.call('PTTL', KEYS[1])
if holder == ARGV[1] then
  -- A replay: report what is left; never extend, so a late replay cannot outlive the lease.
  if type(counter) == 'table' then
    return counter
  end
  return {2, tonumber(counter or '0') or 0, pttl}
end
local sameOwner = 0
if type(holder) == 'string' and string.sub(holder, 1, #ARGV[2]) == ARGV[2] then
  sameOwner = 1
end
return {0, 0, pttl, sameOwner}
