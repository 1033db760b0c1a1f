package dev.leasehold.lease;

import java.time.Duration;

/**
 * What {@link LeaseHandle#release()} returned. No variant contradicts the handle's state.
 *
 * <p>Every variant is immutable.
 */
public sealed interface ReleaseOutcome {
  /** The server deleted this attempt's lease; the handle is {@code RELEASED}. */
  record Released() implements ReleaseOutcome {}

  /** The lease had already expired or been deleted; the handle is {@code RELEASED}. */
  record AlreadyAbsent() implements ReleaseOutcome {}

  /** Another attempt holds the lease now; nothing was deleted and the handle is {@code LOST}. */
  record NotOwner() implements ReleaseOutcome {}

  /** Nothing was sent: the handle was already in {@code state}. */
  record NotActive(LeaseState state) implements ReleaseOutcome {}

  /** Definitely not applied; the handle is unchanged. */
  record Unavailable(String reason) implements ReleaseOutcome {}

  /** Definitely not applied (refused by a busy server); the handle is unchanged. */
  record Overloaded(Duration retryAfter) implements ReleaseOutcome {}

  /** May have been applied; the handle is {@code UNKNOWN} and will not become {@code ACTIVE} again. */
  record Indeterminate(String reason) implements ReleaseOutcome {}
}
