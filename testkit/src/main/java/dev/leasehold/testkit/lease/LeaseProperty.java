package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.runner.PropertyViolation;
import java.util.function.Supplier;

/**
 * The properties {@link LeaseMachine}'s chains check, named as in spec/tla/Lease.tla (the ones the
 * spec states) or after what they compare. A {@link PropertyViolation} carries the name.
 *
 * <p>This enum is immutable.
 */
public enum LeaseProperty {
  /** A handle that says ACTIVE belongs to the attempt whose value the server holds. */
  ActiveHoldsKey,
  /** An ACTIVE handle is not valid past the server's expiry of its key. */
  ValidityWithinServerLease,
  /** At most one handle of the resource says ACTIVE at any instant. */
  MutualExclusion,
  /** A handle just handed out belongs to the exact attempt the server holds. */
  NoInheritance,
  /** An outcome agrees with state() read right after it, and a terminal state stays. */
  StateOutcomeAgreement,
  /** A replay that returns the existing lease does not extend it. */
  ReplayNeverExtends,
  /** A fenced store never takes a write of an earlier grant after one of a later grant. */
  FencedEffects,
  /** An outcome that promises the server was not changed (Unavailable, Overloaded, a rejection) did not change it. */
  CertaintyIsHonest,
  /** A renew that says Lost or Indeterminate leaves the handle not ACTIVE; the watchdog reports every loss it met. */
  LossIsReported,
  /** The watchdog reports a loss only when the lease is really not ACTIVE. */
  LossIsReal,
  /** The watchdog plans its next renewal before the watched lease runs out. */
  RenewsBeforeExpiry,
  /** withLease returns Completed only if the lease was ACTIVE when the work ended. */
  WorkResultAgreement,
  /** withLease leaves the lease held only if its result says so, and never longer than the TTL asked for. */
  NoLeaseLeftBehind,
  /**
   * Liveness, bounded: a tryAcquire that no failing fault meets is granted when the lease is free as
   * it starts, and one that waits with no fault armed is granted when the lease falls free at least
   * a retry pause before its wait ends.
   */
  GrantedWhenFree,
  /**
   * Liveness, bounded (the watchdog): a watched lease ACTIVE with more than the watchdog's shortest
   * interval left stays ACTIVE through time that passes with no fault armed or pending, unless the
   * watchdog reports a loss.
   */
  WatchedStaysActive,
  /**
   * Liveness, bounded: no handle stays UNKNOWN through a fault-free stretch longer than the longest
   * TTL and the drift, and no renewal the watchdog sent still awaits its reply when a step ends.
   */
  SettlesWhenFaultFree,
  /** withLease replays its attempt once after an Indeterminate acquire, and sends nothing more otherwise. */
  IndeterminateIsReplayed,
  /** Every handle states the guarantee the port states, and has a token exactly when fenced. */
  GuaranteeAsStated,
  /** The adapter's outcomes, states, budgets and tokens are ones the twin (the spec's model) allows. */
  ModelAgreement;

  /** Fails this property with {@code message} unless {@code ok}; the message is only built for a failure. */
  public void require(boolean ok, Supplier<String> message) {
    if (!ok) {
      throw violated(message.get());
    }
  }

  public PropertyViolation violated(String message) {
    return new PropertyViolation(name(), message);
  }
}
