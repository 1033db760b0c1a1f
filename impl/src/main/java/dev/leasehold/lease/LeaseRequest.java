package dev.leasehold.lease;

import java.time.Duration;

/**
 * A request to acquire one lease, validated in its constructor so that bad input never reaches the
 * server.
 *
 * <p>This record is immutable.
 *
 * @param purpose what the lease is for, {@code [a-z0-9][a-z0-9-]{0,63}}; part of the key
 * @param resourceDigest {@code sha256:} and 64 lowercase hex characters; never a raw id
 * @param waitTimeout how long {@code tryAcquire} may wait for a holder to go; {@link Duration#ZERO}
 *     tries once
 * @param leaseTtl how long the server keeps the lease unless renewed; sent in whole milliseconds
 *     (the sub-millisecond part is dropped), and what is sent must be above the adapter's drift budget
 * @param attempt the attempt from {@link DistributedLeasePort#newAttempt(String)}
 */
public record LeaseRequest(
    String purpose, String resourceDigest, Duration waitTimeout, Duration leaseTtl, LeaseAttempt attempt) {
  /** The longest wait a request may ask for. */
  public static final Duration MAX_WAIT_TIMEOUT = Duration.ofMinutes(10);
  /** The longest TTL a request may ask for. */
  public static final Duration MAX_LEASE_TTL = Duration.ofDays(1);

  static final Shape PURPOSE = Shape.of("", "a-z0-9", "a-z0-9-", 0, 63);
  static final Shape DIGEST = Shape.of("sha256:", "0-9a-f", "0-9a-f", 63, 63);

  /** @throws IllegalArgumentException naming the first field that is missing or malformed */
  public LeaseRequest {
    validPurpose(purpose);
    validDigest(resourceDigest);
    Checks.within("waitTimeout", waitTimeout, Duration.ZERO, true, MAX_WAIT_TIMEOUT);
    Checks.within("leaseTtl", leaseTtl, Duration.ZERO, false, MAX_LEASE_TTL);
    if (leaseTtl.toMillis() < 1) {
      throw new IllegalArgumentException("leaseTtl must be at least 1 ms but was " + leaseTtl);
    }
    Checks.notNull("attempt", attempt);
  }

  /** A request that tries once. */
  public static LeaseRequest once(String purpose, String resourceDigest, Duration leaseTtl, LeaseAttempt attempt) {
    return new LeaseRequest(purpose, resourceDigest, Duration.ZERO, leaseTtl, attempt);
  }

  /** @throws IllegalArgumentException naming {@code purpose} (never showing it) when it is malformed */
  public static String validPurpose(String purpose) {
    return Checks.matches("purpose", purpose, PURPOSE, "[a-z0-9][a-z0-9-]{0,63}");
  }

  /** @throws IllegalArgumentException naming {@code resourceDigest} (never showing it) when it is malformed */
  public static String validDigest(String resourceDigest) {
    return Checks.matches("resourceDigest", resourceDigest, DIGEST, "sha256:<64 lowercase hex>");
  }
}
