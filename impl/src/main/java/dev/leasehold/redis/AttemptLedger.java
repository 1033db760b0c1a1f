package dev.leasehold.redis;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/**
 * What one attempt has in flight or left ambiguous, shared by every handle of that attempt.
 *
 * <p>A request whose reply was lost can still be applied later. A late RENEW with a short TTL
 * would shorten the lease below a budget granted since, and a late RELEASE would delete a lease a
 * handle believes {@code ACTIVE}. Any later application of a RENEW(ttl) sets the expiry to at
 * least its send time plus ttl, so capping every later budget at the smallest such ttl keeps the
 * budget within the server lease without relying on the order in which requests arrive.
 *
 * <p>This class is threadsafe.
 */
final class AttemptLedger {
  private final List<Long> renewsInFlight = new ArrayList<>();
  private long ambiguousRenewFloorMs = Long.MAX_VALUE;
  private int releasesInFlight;
  private boolean releasePending;
  /** Weak, so that the adapter's map of ledgers does not keep handles (and their attempts) alive. */
  private WeakReference<RedisLeaseHandle> handle = new WeakReference<>(null);

  synchronized void beginRenew(long ttlMs) {
    renewsInFlight.add(ttlMs);
  }

  /** Ends a renew; an ambiguous one stays a floor for every later budget of this attempt. */
  synchronized void endRenew(long ttlMs, boolean ambiguous) {
    renewsInFlight.remove(Long.valueOf(ttlMs));
    if (ambiguous) {
      ambiguousRenewFloorMs = Math.min(ambiguousRenewFloorMs, ttlMs);
    }
  }

  /** The longest budget (ms) any success of this attempt may grant now. */
  synchronized long renewFloorMs() {
    long floor = ambiguousRenewFloorMs;
    for (long ttl : renewsInFlight) {
      floor = Math.min(floor, ttl);
    }
    return floor;
  }

  synchronized void beginRelease() {
    releasesInFlight++;
  }

  synchronized void endRelease(boolean ambiguous) {
    releasesInFlight--;
    releasePending |= ambiguous;
  }

  /** Whether a RELEASE of this attempt may still delete its lease: then no handle may be ACTIVE. */
  synchronized boolean releaseMayDelete() {
    return releasePending || releasesInFlight > 0;
  }

  /** The attempt's newest handle, if it is still referenced. */
  synchronized RedisLeaseHandle handle() {
    return handle.get();
  }

  synchronized void handle(RedisLeaseHandle handle) {
    this.handle = new WeakReference<>(handle);
  }
}
