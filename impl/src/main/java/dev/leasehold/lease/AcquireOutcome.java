package dev.leasehold.lease;

import java.time.Duration;

/**
 * What {@link DistributedLeasePort#tryAcquire(LeaseRequest)} returned. Certainty is part of the
 * type: {@link Unavailable} and {@link Overloaded} mean nothing was applied; {@link Indeterminate}
 * means the request may have been applied, so replay the same attempt or inspect.
 *
 * <p>Every variant is immutable.
 */
public sealed interface AcquireOutcome {
  /** A new lease for this attempt. */
  record Acquired(LeaseHandle handle) implements AcquireOutcome {}

  /** This attempt already held the lease (a replay): the handle's budget is what the server has left. */
  record ReplayedSameOperation(LeaseHandle handle) implements AcquireOutcome {}

  /** Another attempt holds the lease; try again after {@code retryAfter}. */
  record Contended(Duration retryAfter) implements AcquireOutcome {}

  /** Another operation of this same owner holds the lease; it is never inherited. */
  record OwnerOperationConflict() implements AcquireOutcome {}

  /** Definitely not applied: the request never reached the server, or the server refused it unrun. */
  record Unavailable(String reason) implements AcquireOutcome {}

  /** Definitely not applied: the server was busy, out of memory, loading or similar. */
  record Overloaded(Duration retryAfter) implements AcquireOutcome {}

  /** May have been applied: replay the same attempt (never a new one) or inspect. */
  record Indeterminate(String operationId) implements AcquireOutcome {}
}
