package dev.leasehold.model.seed;

/**
 * The seed system's defects (shared/seed walkthrough, CONTRACT.md's table), each a switch of
 * {@link SeedLeaseAdapter}.
 *
 * <p>This enum is immutable.
 */
public enum SeedDefect {
  /** #3: a replay's budget is the full {@code ttl - drift}; the reply PTTL is thrown away. */
  REPLAY_BUDGET_FROM_FULL_TTL,
  /** #4: renew has no state precondition, and a success replaces the budget without restoring ACTIVE. */
  RENEW_WITHOUT_PRECONDITION,
  /** #4: {@code state()} returns LOST on local expiry without storing it. */
  LOCAL_EXPIRY_NOT_STORED,
  /** A TTL at or below the drift budget is rejected after the script ran, and reported Indeterminate. */
  TTL_CHECK_AFTER_SEND,
  /** #5: every exception becomes Indeterminate; Unavailable and Overloaded are never produced. */
  EVERY_EXCEPTION_INDETERMINATE,
  /** #6: observedServerExpiry is the send instant plus the local budget, not the reply PTTL. */
  OBSERVED_EXPIRY_FROM_BUDGET
}
