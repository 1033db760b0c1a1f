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
  OBSERVED_EXPIRY_FROM_BUDGET,
  /**
   * The pre-fix adapter (MCRenewRace): a replay's budget is capped by the renews in flight when its
   * reply arrives, not by every renew during its flight; a shorter renew answered first is missed.
   */
  RENEW_CAP_AT_REPLY,
  /**
   * The pre-fix adapter (MCReleaseRace): whether a release may have deleted a replay's lease is read
   * when its reply arrives; a release that ran and returned meanwhile is missed.
   */
  RELEASE_CHECK_AT_REPLY;

  /**
   * Whether only two threads of one attempt show it (a concurrent step): sequential chains, the
   * conformance kit and spec-conformant traces (which record no lanes yet) pass it.
   */
  public boolean race() {
    return this == RENEW_CAP_AT_REPLY || this == RELEASE_CHECK_AT_REPLY;
  }
}
