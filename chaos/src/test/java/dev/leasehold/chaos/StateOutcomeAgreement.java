package dev.leasehold.chaos;

import dev.leasehold.chaos.History.Complete;
import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.lease.LeaseInvariants;

/**
 * StateOutcomeAgreement on a history: an outcome that contradicts {@code state()} read right after
 * it (PROTOCOL.md). Real time passes between the reply and the read, so a Renewed handle whose
 * budget ran out meanwhile (less than {@link #BUDGET_SPENT_NS} left) may read LOST.
 *
 * <p>This class is stateless and threadsafe.
 */
final class StateOutcomeAgreement {
  /** A handle with less than this left when read may have expired since the reply. */
  static final long BUDGET_SPENT_NS = 2_000_000;

  private StateOutcomeAgreement() {}

  static Found check(Observed o) {
    Found found = new Found();
    for (Complete c : o.of(Complete.class)) {
      if (c.state() == null || c.state().equals("-")) {
        continue;  // no handle to ask
      }
      LeaseState after = LeaseState.valueOf(c.state());
      boolean budgetSpent = c.deadline() - c.at() < BUDGET_SPENT_NS;
      // state() was not read before the call: an Unavailable outcome is not judged here.
      if (!LeaseInvariants.stateOutcomeAgreement(c.variant(), c.named(), null, after, budgetSpent)) {
        found.add(c.actor() + "#" + c.seq(), 0, String.format(
            "state/outcome: %s of %s returned %s but state() said %s at t=%.3f s",
            c.op(), c.grant(), c.outcome(), c.state(), c.at() / 1e9));
      }
    }
    return found;
  }
}
