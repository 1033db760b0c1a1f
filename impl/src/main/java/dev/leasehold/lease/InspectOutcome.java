package dev.leasehold.lease;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * What {@link DistributedLeasePort#inspect(LeaseInspection)} returned. Inspecting never changes
 * the server.
 *
 * <p>Every variant is immutable.
 */
public sealed interface InspectOutcome {
  /**
   * Someone holds the lease.
   *
   * @param holderIsThisAttempt whether the holder is the inspected attempt
   * @param remaining the server's remaining TTL as it reported it
   * @param fencingToken the token of the current holder, when the server has one
   */
  record Held(boolean holderIsThisAttempt, Duration remaining, OptionalLong fencingToken) implements InspectOutcome {}

  /** Nobody holds the lease. */
  record Absent() implements InspectOutcome {}

  /** The question never reached the server, or the server refused it. */
  record Unavailable(String reason) implements InspectOutcome {}

  /** No answer came back in time. */
  record Indeterminate(String reason) implements InspectOutcome {}
}
