package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseState;

/**
 * The port's bounded liveness: what must have happened once a stretch of a chain's virtual time
 * passed with no fault in it. The spec states safety only; these are the promises that a port
 * which answers nothing, never grants or leaves handles UNKNOWN would otherwise keep. Pure
 * predicates like {@link LeaseInvariants}, checked by {@link LeaseWorld} after every step; the
 * watchdog's and withLease's are in {@link CallerInvariants}.
 *
 * <p>This class is stateless.
 */
public final class LivenessInvariants {
  private LivenessInvariants() {}

  /**
   * Whether a tryAcquire must end in a grant: its first try meets no fault that fails a call (a
   * slow reply still answers), and the lease was free as it started ({@code freeInNanos} at most 0),
   * or, with no fault armed at all, falls free {@code freeInNanos} after the start, which leaves the
   * wait loop at least {@code retryNanos} (its longest pause once the key is gone) before its
   * {@code waitNanos} end.
   */
  public static boolean grantDue(long freeInNanos, long waitNanos, long retryNanos, boolean firstTryFails,
      boolean anyFaultArmed) {
    if (firstTryFails) {
      return false;
    }
    return freeInNanos <= 0 || !anyFaultArmed && freeInNanos <= waitNanos - retryNanos;
  }

  /**
   * GrantedWhenFree: a tryAcquire whose grant was due ({@link #grantDue}) returned Acquired or
   * ReplayedSameOperation; one the port rejected before any I/O (an IllegalArgumentException for a
   * TTL it cannot use) promised nothing.
   */
  public static void grantedWhenFree(String outcome, boolean due, String why) {
    boolean granted = outcome.equals("Acquired") || outcome.equals("ReplayedSameOperation")
        || outcome.equals("IllegalArgumentException");
    LeaseProperty.GrantedWhenFree.require(!due || granted, () -> "the acquire returned " + outcome + " although "
        + why + " and no fault met it");
  }

  /**
   * SettlesWhenFaultFree, for a handle: one that says UNKNOWN has said so for at most
   * {@code boundNanos} of a fault-free stretch ({@code unknownForNanos}); by then its budget, which
   * only a success of its own extends, has run out, or a reply has settled it.
   */
  public static void unknownSettles(int handle, LeaseState state, long unknownForNanos, long boundNanos) {
    LeaseProperty.SettlesWhenFaultFree.require(state != LeaseState.UNKNOWN || unknownForNanos <= boundNanos,
        () -> "handle " + handle + " has been UNKNOWN for " + LeaseInvariants.ms(unknownForNanos)
            + " with no fault armed or pending (at most " + LeaseInvariants.ms(boundNanos) + " allowed)");
  }

  /** SettlesWhenFaultFree, for calls: when a step ends, none of the {@code sent} renewals still awaits its reply. */
  public static void noCallRunning(int awaiting, int sent) {
    LeaseProperty.SettlesWhenFaultFree.require(awaiting == 0, () -> awaiting + " of the " + sent
        + " renewals the watchdog sent still await their replies when the step ends");
  }
}
