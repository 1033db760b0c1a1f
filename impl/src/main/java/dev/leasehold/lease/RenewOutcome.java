package dev.leasehold.lease;

import java.time.Duration;

/**
 * What {@link LeaseHandle#renew(Duration)} returned. No variant contradicts the handle's state.
 *
 * <p>Every variant is immutable.
 */
public sealed interface RenewOutcome {
  /** The server extended the lease; the handle is {@code ACTIVE} for {@code validity}. */
  record Renewed(Duration validity) implements RenewOutcome {}

  /** The lease is gone (absent, held by another attempt, or expired locally); the handle is {@code LOST}. */
  record Lost(String reason) implements RenewOutcome {}

  /** Nothing was sent: the handle is in {@code state}, where renewing makes no sense. */
  record NotActive(LeaseState state) implements RenewOutcome {}

  /** Definitely not applied; the handle is unchanged. */
  record Unavailable(String reason) implements RenewOutcome {}

  /** Definitely not applied (refused by a busy server); the handle is unchanged. */
  record Overloaded(Duration retryAfter) implements RenewOutcome {}

  /** May have been applied; the handle is {@code UNKNOWN} and its budget only shrank. */
  record Indeterminate(String reason) implements RenewOutcome {}
}
