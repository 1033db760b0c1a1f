package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseState;

/**
 * Invariants of the library's own callers of the port, outside the spec (which models the port
 * alone): the guarantee a handle states, the watchdog's cadence and its loss reports, and what
 * {@code LeaseRunner.withLease} returns. Checked by {@link Supervision} and {@link LeaseWorld}, as
 * pure predicates like {@link LeaseInvariants}, whose {@code require} they share.
 *
 * <p>This class is stateless.
 */
public final class CallerInvariants {
  private CallerInvariants() {}

  /**
   * GuaranteeAsStated: a handle with a fencing token gives the guarantee its port states (no
   * replica acknowledgement is asked for in these chains), one without a token only EFFICIENCY_ONLY.
   */
  public static void guaranteeAsStated(LeaseGuarantee handle, LeaseGuarantee port, boolean hasToken) {
    LeaseGuarantee expected = hasToken ? port : LeaseGuarantee.EFFICIENCY_ONLY;
    LeaseInvariants.require(handle == expected, "GuaranteeAsStated", () -> "a handle " + (hasToken ? "with" : "without")
        + " a fencing token states " + handle + ", the port " + port);
  }

  /**
   * RenewsBeforeExpiry (the watchdog, not in the spec): the next renewal is planned {@code dueNanos}
   * from now, before the {@code remainingNanos} of validity run out, whenever there is time for one
   * at the watchdog's shortest interval.
   */
  public static void renewsBeforeExpiry(long dueNanos, long remainingNanos, long minIntervalNanos) {
    LeaseInvariants.require(remainingNanos <= minIntervalNanos || dueNanos < remainingNanos, "RenewsBeforeExpiry",
        () -> "the watchdog plans its next renewal in " + LeaseInvariants.ms(dueNanos) + " but the lease is valid for only "
            + LeaseInvariants.ms(remainingNanos));
  }

  /** LossIsReal (the watchdog): it reports a loss only when the lease is no longer ACTIVE. */
  public static void lossIsReal(LeaseState reported, LeaseState twin) {
    LeaseInvariants.require(reported != LeaseState.ACTIVE && twin != LeaseState.ACTIVE, "LossIsReal",
        () -> "the watchdog reported " + reported + " while the lease is " + twin);
  }

  /**
   * WorkResultAgreement (LeaseRunner.withLease): {@code Completed} only if the lease was ACTIVE when
   * the work ended and no loss was reported; {@code LeaseLostDuringWork} only if it was not, or one was.
   */
  public static void workResultAgreement(String result, LeaseState atEnd, boolean lossReported) {
    boolean held = atEnd == LeaseState.ACTIVE && !lossReported;
    LeaseInvariants.require(!(result.equals("Completed") && !held) && !(result.equals("LeaseLostDuringWork") && held),
        "WorkResultAgreement", () -> "withLease returned " + result + " but the lease was " + atEnd
            + " when the work ended" + (lossReported ? " and a loss was reported" : ""));
  }
}
