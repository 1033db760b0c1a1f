package dev.leasehold.model.seed;

/**
 * The fixture's per-attempt bookkeeping (the fixed adapter's AttemptLedger is package-private):
 * the smallest TTL of an ambiguous renew, whether a release was ambiguous, the newest handle.
 *
 * <p>This class is threadsafe.
 */
final class SeedLedger {
  private long ambiguousRenewCapMs = Long.MAX_VALUE;
  private boolean ambiguousRelease;
  private SeedLeaseHandle handle;

  synchronized void ambiguousRenew(long ttlMs) {
    ambiguousRenewCapMs = Math.min(ambiguousRenewCapMs, ttlMs);
  }

  synchronized long ambiguousRenewCapMs() {
    return ambiguousRenewCapMs;
  }

  synchronized void releaseWasAmbiguous() {
    ambiguousRelease = true;
  }

  synchronized boolean ambiguousRelease() {
    return ambiguousRelease;
  }

  synchronized SeedLeaseHandle handle() {
    return handle;
  }

  synchronized void handle(SeedLeaseHandle h) {
    handle = h;
  }
}
