package dev.leasehold.testkit.sim;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The four Lua scripts' semantics in Java over a {@link LeaseClock}, with Redis's millisecond
 * expiry, exactly as Redis expires: a key is gone when the server's ms clock is past its expiry
 * ({@code now > when}), so during its last millisecond it is still there with PTTL 0, which the
 * client treats as expired (a replay then gets no budget). The fencing counter has no TTL and
 * survives expiry, but not a restart.
 *
 * <p>This class is threadsafe: every script runs under the instance lock, like Redis runs one
 * script at a time.
 */
public final class SimulatedRedis {
  /** A lease key's value and absolute expiry (server ms). */
  public record Entry(String value, long expiryMs) {}

  private final LeaseClock clock;
  private final Map<String, Entry> leases = new HashMap<>();
  private final Map<String, Long> counters = new HashMap<>();
  /** Every token an ACQUIRE issued, in order: the ghost grant log the FencedEffects check uses. */
  private final List<Long> grantLog = new ArrayList<>();
  private boolean scriptsLoaded = true;
  private long scriptLoads;
  private long restarts;

  public SimulatedRedis(LeaseClock clock) {
    this.clock = clock;
  }

  public synchronized long nowMs() {
    return Math.floorDiv(clock.trueNanos(), 1_000_000L);
  }

  /** The live entry of {@code key}, forgetting it when expired (Redis's lazy expiry). */
  private Entry live(String key) {
    Entry e = leases.get(key);
    if (e != null && nowMs() > e.expiryMs()) {
      leases.remove(key);
      return null;
    }
    return e;
  }

  /** EVALSHA after SCRIPT FLUSH answers NOSCRIPT; the gateway then loads and retries once. */
  private void ensureScripts() {
    if (!scriptsLoaded) {
      scriptLoads++;
      scriptsLoaded = true;
    }
  }

  public synchronized GatewayReply.Acquire acquire(LeaseKeys keys, String ownership, String ownerPrefix, long ttl,
      FenceMode mode) {
    ensureScripts();
    Entry e = live(keys.lease());
    if (e == null) {
      long token = counters.getOrDefault(keys.fence(), 0L) + 1;
      if (mode == FenceMode.CLOCK_FLOOR) {
        token = Math.max(token, serverMicros());
      }
      counters.put(keys.fence(), token);
      leases.put(keys.lease(), new Entry(ownership, nowMs() + ttl));
      grantLog.add(token);
      return new GatewayReply.Granted(token, ttl);
    }
    long pttl = e.expiryMs() - nowMs();
    if (e.value().equals(ownership)) {
      return new GatewayReply.Replayed(counters.getOrDefault(keys.fence(), 0L), pttl);
    }
    return new GatewayReply.HeldByOther(pttl, e.value().startsWith(ownerPrefix));
  }

  public synchronized GatewayReply.Change renew(LeaseKeys keys, String ownership, long ttl) {
    ensureScripts();
    Entry e = live(keys.lease());
    if (e == null) {
      return GatewayReply.Change.ABSENT;
    }
    if (!e.value().equals(ownership)) {
      return GatewayReply.Change.OTHER;
    }
    leases.put(keys.lease(), new Entry(ownership, nowMs() + ttl));
    return GatewayReply.Change.APPLIED;
  }

  public synchronized GatewayReply.Change release(LeaseKeys keys, String ownership) {
    ensureScripts();
    Entry e = live(keys.lease());
    if (e == null) {
      return GatewayReply.Change.ABSENT;
    }
    if (!e.value().equals(ownership)) {
      return GatewayReply.Change.OTHER;
    }
    leases.remove(keys.lease());
    return GatewayReply.Change.APPLIED;
  }

  public synchronized GatewayReply.Inspect inspect(LeaseKeys keys, String ownership) {
    ensureScripts();
    Entry e = live(keys.lease());
    if (e == null) {
      return new GatewayReply.Vacant();
    }
    return new GatewayReply.Occupied(e.value().equals(ownership), e.expiryMs() - nowMs(),
        counters.getOrDefault(keys.fence(), 0L));
  }

  /** Server TIME in microseconds since the epoch, as the CLOCK_FLOOR script reads it. */
  public synchronized long serverMicros() {
    return (LeaseClock.EPOCH_NANOS + clock.trueNanos()) / 1_000L;
  }

  /** The live entry, for invariant checks (no side effect beyond lazy expiry). */
  public synchronized Entry entry(LeaseKeys keys) {
    return live(keys.lease());
  }

  public synchronized long counter(LeaseKeys keys) {
    return counters.getOrDefault(keys.fence(), 0L);
  }

  /** A restart without persistence: every key, counter and cached script is gone. */
  public synchronized void restart() {
    leases.clear();
    counters.clear();
    scriptsLoaded = false;
    restarts++;
  }

  /** SCRIPT FLUSH. */
  public synchronized void flushScripts() {
    scriptsLoaded = false;
  }

  public synchronized List<Long> grantLog() {
    return List.copyOf(grantLog);
  }

  public synchronized long scriptLoads() {
    return scriptLoads;
  }
}
