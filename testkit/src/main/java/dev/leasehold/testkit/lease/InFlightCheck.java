package dev.leasehold.testkit.lease;

import dev.leasehold.testkit.runner.PropertyViolation;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The hook the gateway runs inside every call, between the server's step and the reply: what
 * state() and remainingValidity() say then (another thread may ask) must already be within what
 * the server holds. This is the spec's Observed(a) while a call is in flight: a renew(ttl) caps the
 * deadline at start + ttl - drift, a release makes an ACTIVE handle UNKNOWN.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class InFlightCheck {
  private final Supplier<Snapshot> snapshot;
  private final Set<LeaseProperty> waived;
  /** The first invariant broken while a call was in flight; rethrown after the step (the adapter must not swallow it). */
  private PropertyViolation broken;

  InFlightCheck(Supplier<Snapshot> snapshot, Set<LeaseProperty> waived) {
    this.snapshot = snapshot;
    this.waived = waived;
  }

  /** Runs inside a call of {@code kind}; remembers the first violation. */
  void check(String kind) {
    if (broken != null) {
      return;
    }
    Snapshot now = snapshot.get();
    try {
      LeaseInvariants.holding(now, waived);
    } catch (PropertyViolation v) {
      broken = new PropertyViolation(v.property(),
          "while a " + kind + " was in flight, " + v.getMessage().substring(v.property().length() + 2));
    }
  }

  /** Throws what {@link #check} found since the last step, once. */
  void rethrow() {
    if (broken != null) {
      PropertyViolation v = broken;
      broken = null;
      throw v;
    }
  }
}
