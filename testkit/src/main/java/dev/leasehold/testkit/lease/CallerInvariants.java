package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseState;

/**
 * Invariants of the library's own callers of the port, outside the spec (which models the port
 * alone): the guarantee a handle states, the watchdog's cadence and its loss reports, and what
 * {@code LeaseRunner.withLease} returns and leaves on the server. Checked by {@link Supervision} and {@link LeaseWorld}, as
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
    LeaseProperty.GuaranteeAsStated.require(handle == expected, () -> "a handle " + (hasToken ? "with" : "without")
        + " a fencing token states " + handle + ", the port " + port);
  }

  /**
   * RenewsBeforeExpiry (the watchdog, not in the spec): the next renewal is planned {@code dueNanos}
   * from now, before the {@code remainingNanos} of validity run out, whenever there is time for one
   * at the watchdog's shortest interval.
   */
  public static void renewsBeforeExpiry(long dueNanos, long remainingNanos, long minIntervalNanos) {
    LeaseProperty.RenewsBeforeExpiry.require(remainingNanos <= minIntervalNanos || dueNanos < remainingNanos,
        () -> "the watchdog plans its next renewal in " + LeaseInvariants.ms(dueNanos) + " but the lease is valid for only "
            + LeaseInvariants.ms(remainingNanos));
  }

  /** LossIsReal (the watchdog): it reports a loss only when the lease is no longer ACTIVE. */
  public static void lossIsReal(LeaseState reported, LeaseState twin) {
    LeaseProperty.LossIsReal.require(reported != LeaseState.ACTIVE && twin != LeaseState.ACTIVE,
        () -> "the watchdog reported " + reported + " while the lease is " + twin);
  }

  /**
   * LossIsReported (the watchdog), the converse of LossIsReal: after a renewal that found the handle
   * LOST, or whose renew came back {@code Lost}, {@code Indeterminate} or {@code NotActive} (unless
   * the handle is RELEASED, which ends quietly), the watchdog has told its listener and stopped. A
   * watchdog that keeps renewing a lease it can no longer rely on leaves the work running on it.
   *
   * @param renewed the simple name of the renew's outcome, or null if the renewal sent none
   */
  public static void lossIsReported(String renewed, LeaseState handle, boolean reported, boolean watching) {
    boolean lost = handle == LeaseState.LOST || handle != LeaseState.RELEASED
        && ("Lost".equals(renewed) || "Indeterminate".equals(renewed) || "NotActive".equals(renewed));
    LeaseProperty.LossIsReported.require(!lost || reported && !watching, () -> "after the watchdog's renewal"
        + (renewed == null ? "" : " (" + renewed + ")") + " the handle is " + handle + ", but the watchdog "
        + (reported ? "still watches it" : "did not report a loss"));
  }

  /**
   * NoLeaseLeftBehind (LeaseRunner.withLease): when withLease returns and the attempt still holds
   * the lease on the server, the result says that it may ({@code mayHold}: the last try was
   * Indeterminate, the lease came back no longer ACTIVE, or the release may not have deleted it),
   * and the key lives at most the TTL asked for.
   *
   * @param pttlNanos how long the key still lives
   * @param ttlMs the TTL asked for
   * @param boundNanos how long the key may live: the TTL, Redis's last millisecond and the readings' slack
   */
  public static void noLeaseLeftBehind(String result, boolean mayHold, long pttlNanos, long ttlMs, long boundNanos) {
    LeaseProperty.NoLeaseLeftBehind.require(mayHold, () -> "withLease returned " + result
        + ", which says nothing is held, but the attempt still holds the lease on the server for "
        + LeaseInvariants.ms(pttlNanos));
    LeaseProperty.NoLeaseLeftBehind.require(pttlNanos <= boundNanos, () -> "after withLease the attempt's lease"
        + " lives " + LeaseInvariants.ms(pttlNanos) + " more, beyond the TTL asked for (" + ttlMs + " ms; at most "
        + LeaseInvariants.ms(boundNanos) + " allowed)");
  }

  /**
   * WorkResultAgreement (LeaseRunner.withLease): {@code Completed} only if the lease was ACTIVE when
   * the work ended and no loss was reported; {@code LeaseLostDuringWork} only if it was not, or one was.
   */
  public static void workResultAgreement(String result, LeaseState atEnd, boolean lossReported) {
    boolean held = atEnd == LeaseState.ACTIVE && !lossReported;
    LeaseProperty.WorkResultAgreement.require(
        !(result.equals("Completed") && !held) && !(result.equals("LeaseLostDuringWork") && held), () -> "withLease returned " + result + " but the lease was " + atEnd
            + " when the work ended" + (lossReported ? " and a loss was reported" : ""));
  }
}
