package dev.leasehold.lease;

/**
 * The provider-neutral lease port. Make an attempt first, keep it, and send the same attempt
 * again after an {@code Indeterminate} outcome: that replay is recognised by the server and never
 * grants more than the server still holds.
 *
 * <p>Implementations are threadsafe.
 */
public interface DistributedLeasePort {
  /**
   * A new attempt: a fresh secret owner token bound to {@code operationId}. Does no I/O.
   *
   * @throws IllegalArgumentException if the operation id is malformed
   */
  LeaseAttempt newAttempt(String operationId);

  /**
   * Acquires the lease, waiting up to {@link LeaseRequest#waitTimeout()} for a holder to go.
   * Between tries it pauses for between half and all of the {@code retryAfter} the last try
   * reported (the configured contention retry-after when it reported none; at least 1 ms), never
   * past the wait timeout; a release of the lease may end a pause early. A caller interrupted
   * before or during the call gets the outcome of the try in progress (the first is always sent)
   * at once, its interrupt flag still set: no further try is sent.
   *
   * @throws IllegalArgumentException before any I/O, if the request cannot be served (for example
   *     a TTL whose whole milliseconds, as sent, are not above the drift budget)
   */
  AcquireOutcome tryAcquire(LeaseRequest request);

  /** Reads who holds the lease without changing anything. */
  InspectOutcome inspect(LeaseInspection inspection);

  /** The strongest guarantee a handle of this port can carry. */
  LeaseGuarantee guarantee();
}
