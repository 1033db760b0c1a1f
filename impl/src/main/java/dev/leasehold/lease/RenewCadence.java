package dev.leasehold.lease;

import java.time.Duration;

/**
 * When the {@link LeaseWatchdog} renews a handle next, in nanoseconds from now.
 *
 * <p>This class is stateless and threadsafe.
 */
final class RenewCadence {
  private RenewCadence() {}

  /**
   * {@code ttl / }{@link LeaseWatchdog#DEFAULT_RENEW_DIVISOR}, but no later than half of what is
   * left, so that one missed renewal still leaves time for another, and not below the minimum.
   */
  static long regular(Duration ttl, Duration remaining) {
    long regular = ttl.toNanos() / LeaseWatchdog.DEFAULT_RENEW_DIVISOR;
    long safe = remaining.toNanos() / 2;
    return Math.max(LeaseWatchdog.DEFAULT_MIN_INTERVAL.toNanos(), Math.min(regular, safe));
  }

  /**
   * After a definite failure: soon, a third of what is left, at most {@code ttl / 10}, and no
   * later than the server's {@code hint} (null for none).
   */
  static long retry(Duration ttl, Duration remaining, Duration hint) {
    long soon = Math.min(ttl.toNanos() / 10, remaining.toNanos() / 3);
    if (hint != null) {
      soon = Math.min(soon, hint.toNanos());
    }
    return Math.max(LeaseWatchdog.DEFAULT_MIN_INTERVAL.toNanos(), soon);
  }
}
