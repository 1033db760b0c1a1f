package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseState;
import java.util.List;

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
   * WatchedStaysActive (the watchdog, bounded liveness): a watched lease that was ACTIVE with more
   * than {@code marginNanos} left when time began to pass ({@code remainingBefore}: its validity
   * then, or what each renewal gives if that is less), with no fault armed or pending, is still
   * ACTIVE when that time has passed ({@code passedNanos}), unless the watchdog reported a loss. The margin is the watchdog's shortest interval (and the grid its renewals are sent on):
   * with less left, no renewal can be planned in time (RenewsBeforeExpiry allows that).
   */
  public static void watchedStaysActive(int handle, LeaseState before, long remainingBefore, long marginNanos,
      long passedNanos, boolean reported, LeaseState now) {
    boolean watchable = before == LeaseState.ACTIVE && remainingBefore > marginNanos;
    LeaseProperty.WatchedStaysActive.require(!watchable || reported || now == LeaseState.ACTIVE,
        () -> "the watched handle " + handle + " had " + LeaseInvariants.ms(remainingBefore) + " left; after "
            + LeaseInvariants.ms(passedNanos) + " with no fault it is " + now + " and the watchdog reported no loss");
  }

  /**
   * IndeterminateIsReplayed (LeaseRunner.withLease): after a first try that came back
   * Indeterminate, withLease replays the attempt once ({@code tries}: the outcomes of its tries, in
   * order), so the lease it may have been granted is used and released, or shown not to be ours;
   * after any other first try it sends nothing more.
   */
  public static void indeterminateIsReplayed(List<String> tries) {
    boolean ambiguous = !tries.isEmpty() && tries.get(0).equals("Indeterminate");
    int expected = ambiguous ? 2 : 1;
    LeaseProperty.IndeterminateIsReplayed.require(tries.size() == expected, () -> "withLease tried " + tries
        + (ambiguous ? ": an Indeterminate acquire must be replayed once" : ": only an Indeterminate acquire is replayed"));
  }

  /**
   * NoLeaseLeftBehind (LeaseRunner.withLease): when withLease returns and the attempt still holds
   * the lease on the server, the result says that it may ({@code mayHold}: the replay of an
   * Indeterminate try was Indeterminate too or refused unrun, the lease came back no longer ACTIVE,
   * or the release may not have deleted it), and the key lives at most the TTL asked for.
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
