package dev.leasehold.lease;

/**
 * A read-only question: who holds this lease, and is it this attempt?
 *
 * <p>This record is immutable.
 *
 * @param purpose as in {@link LeaseRequest}
 * @param resourceDigest as in {@link LeaseRequest}
 * @param attempt the attempt to compare the holder with
 */
public record LeaseInspection(String purpose, String resourceDigest, LeaseAttempt attempt) {
  /** @throws IllegalArgumentException naming the first field that is missing or malformed */
  public LeaseInspection {
    LeaseRequest.validPurpose(purpose);
    LeaseRequest.validDigest(resourceDigest);
    Checks.notNull("attempt", attempt);
  }

  /** The inspection of the lease a request asks for, by the same attempt. */
  public static LeaseInspection of(LeaseRequest request) {
    return new LeaseInspection(request.purpose(), request.resourceDigest(), request.attempt());
  }
}
