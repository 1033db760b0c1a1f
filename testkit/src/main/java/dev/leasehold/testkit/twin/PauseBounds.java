package dev.leasehold.testkit.twin;

/**
 * The documented bound of a wait-loop pause (DistributedLeasePort.tryAcquire, RedisLeaseAdapter's
 * jitter): between half and all of the retry-after, at least 1 ms, never past the wait left. One
 * rule for every oracle that judges pauses: the twin's wait loop and the settings property.
 *
 * <p>This class is stateless.
 */
public final class PauseBounds {
  private PauseBounds() {}

  /** What is wrong with a pause of {@code pause} ns, or null when it is within the bound. */
  public static String problem(long pause, long retryAfter, long left) {
    long full = Math.max(retryAfter, 1_000_000L);
    long lo = Math.min(left, full / 2);
    long hi = Math.min(left, full);
    return pause < lo || pause > hi
        ? "paused " + pause + " ns, outside [" + lo + ", " + hi + "] (retry-after " + retryAfter + ", left " + left + ")"
        : null;
  }
}
