package dev.leasehold.testkit.lease;

/**
 * The names of {@link LeaseMachine}'s actions other than the faults ({@link
 * dev.leasehold.testkit.fault.Fault#action()}) and outside writes ({@link
 * dev.leasehold.testkit.fault.External#action()}): each the spec's action (spec/README.md's table)
 * in camel case, as chains, configs and statistics spell it.
 *
 * <p>This enum is immutable.
 */
public enum ActionName {
  NEW_ATTEMPT("newAttempt"),
  TRY_ACQUIRE("tryAcquire"),
  REPLAY("replay"),
  RENEW("renew"),
  RELEASE("release"),
  INSPECT("inspect"),
  STATE("state"),
  TICK("tick"),
  PAUSE("pause"),
  LAG("lag"),
  APPLY_LATE("applyLate"),
  FLUSH_SCRIPTS("flushScripts"),
  RESTART("restart"),
  /** Two threads: a replay beside a renew ({@link ConcurrentStep}). */
  RENEW_BESIDE_REPLAY("renewBesideReplay"),
  /** Two threads: a replay beside a release. */
  RELEASE_BESIDE_REPLAY("releaseBesideReplay"),
  /** The library's LeaseWatchdog ({@link Supervision}). */
  WATCH("watch"),
  /** The library's LeaseRunner ({@link Supervision}). */
  WITH_LEASE("withLease"),
  EFFECT("effect");

  private final String chainName;

  ActionName(String chainName) {
    this.chainName = chainName;
  }

  /** The name as chains spell it: {@code newAttempt}, {@code tryAcquire}, ... */
  public String chainName() {
    return chainName;
  }
}
