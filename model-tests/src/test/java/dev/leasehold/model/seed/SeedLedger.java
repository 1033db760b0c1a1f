package dev.leasehold.model.seed;

/**
 * The fixture's per-attempt bookkeeping (the fixed adapter's AttemptLedger is package-private):
 * the smallest TTL of an ambiguous renew, whether a release was ambiguous, the newest handle.
 *
 * <p>This class is threadsafe.
 */
final class SeedLedger {
  private long minPendingTtlMs = Long.MAX_VALUE;
  private boolean releasePending;
  private SeedLeaseHandle handle;

  synchronized void ambiguousRenew(long ttlMs) {
    minPendingTtlMs = Math.min(minPendingTtlMs, ttlMs);
  }

  synchronized long minPendingTtlMs() {
    return minPendingTtlMs;
  }

  synchronized void ambiguousRelease() {
    releasePending = true;
  }

  synchronized boolean releasePending() {
    return releasePending;
  }

  synchronized SeedLeaseHandle handle() {
    return handle;
  }

  synchronized void handle(SeedLeaseHandle h) {
    handle = h;
  }
}
