package dev.leasehold.testkit.lease;

import java.util.ArrayList;
import java.util.List;

/**
 * Every "action:outcome variant" a few hundred chains of {@link LeaseMachine} must reach, so that a
 * change that makes a variant unreachable (a precondition too strict, a weight at zero) fails the
 * coverage test instead of silently testing less.
 *
 * <p>This class is stateless.
 */
final class ExpectedOutcomes {
  private ExpectedOutcomes() {}

  static List<String> all() {
    List<String> all = new ArrayList<>();
    // A first send replays only inside a wait loop (a retry after its own lost reply).
    for (String v : List.of("Acquired", "Contended", "OwnerOperationConflict",
        "Unavailable", "Overloaded", "Indeterminate", "IllegalArgumentException")) {
      all.add("tryAcquire:" + v);
    }
    for (String v : List.of("ReplayedSameOperation", "Acquired", "Contended", "Indeterminate")) {
      all.add("replay:" + v);
    }
    for (String v : List.of("Renewed", "Lost", "NotActive", "Unavailable", "Overloaded", "Indeterminate",
        "IllegalArgumentException")) {
      all.add("renew:" + v);
    }
    for (String v : List.of("Released", "AlreadyAbsent", "NotOwner", "NotActive", "Unavailable", "Overloaded",
        "Indeterminate")) {
      all.add("release:" + v);
    }
    for (String v : List.of("Held", "Absent", "Unavailable", "Indeterminate")) {
      all.add("inspect:" + v);
    }
    for (String v : List.of("ACTIVE", "UNKNOWN", "LOST", "RELEASED")) {
      all.add("state:" + v);
    }
    for (String v : List.of("Completed", "LeaseLostDuringWork", "NotAcquired")) {
      all.add("withLease:" + v);
    }
    // The watchdog's batches (Supervision.batchLabel), by the fault their one call met.
    for (String v : List.of("batchApplied", "batchLost", "batchDelayed", "batchRefused", "batchSlow")) {
      all.add("tick:" + v);
    }
    all.add("effect:accepted");
    all.add("effect:rejected");
    return all;
  }
}
