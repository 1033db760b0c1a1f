package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.twin.Outcome;

/**
 * What the last step did, for the invariants that relate an outcome to the state around it.
 *
 * <p>This record is immutable.
 *
 * @param op {@code tryAcquire}, {@code replay}, {@code renew}, {@code release}, {@code inspect} or
 *     another action name
 * @param attempt the attempt the call was for, or -1
 * @param handle the handle the call was on (renew, release) or returned (acquire), or -1
 * @param before the snapshot just before the call
 * @param stateBefore the handle's state just before (renew, release), else null
 */
public record StepEvent(String op, int attempt, int handle, Outcome outcome, Snapshot before, LeaseState stateBefore) {
  public static StepEvent none(String op, Snapshot before) {
    return new StepEvent(op, -1, -1, Outcome.of("none"), before, null);
  }
}
