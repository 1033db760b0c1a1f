package dev.leasehold.lease;

/**
 * What {@link LeaseRunner#withLease} returned. Every variant but {@link NotAcquired} carries the
 * outcome of the release the runner always attempts after the work.
 *
 * <p>Every variant is immutable (the value and exception it carries are the caller's).
 *
 * @param <T> the work's result type
 */
public sealed interface LeaseResult<T> {
  /** The work returned {@code value} while the lease stayed {@code ACTIVE}. */
  record Completed<T>(T value, ReleaseOutcome release) implements LeaseResult<T> {}

  /**
   * The lease was not acquired, so the work did not run. {@code outcome} is the last try's, except
   * that a replay refused before it ran ({@code Unavailable}, {@code Overloaded}) after an
   * {@code Indeterminate} try leaves it {@code Indeterminate}. After an {@code Indeterminate} outcome
   * the lease may be held by this attempt until its TTL runs out.
   */
  record NotAcquired<T>(AcquireOutcome outcome) implements LeaseResult<T> {}

  /**
   * The lease became {@code LOST} or {@code UNKNOWN} while the work ran: its effects may have
   * raced another holder's, so only fenced writes are safe. Or it was so already when the work
   * would have begun (the thread got to it only after the lease's validity ran out): the work was
   * not run, and {@code failure} is null.
   *
   * @param state {@code LOST} or {@code UNKNOWN}
   * @param reason why
   * @param failure what the work threw, or null if it returned
   * @param release the release attempted afterwards
   */
  record LeaseLostDuringWork<T>(LeaseState state, String reason, Throwable failure, ReleaseOutcome release)
      implements LeaseResult<T> {}

  /** The work threw {@code exception} while the lease was {@code ACTIVE} (or could not be watched). */
  record Failed<T>(Exception exception, ReleaseOutcome release) implements LeaseResult<T> {}
}
