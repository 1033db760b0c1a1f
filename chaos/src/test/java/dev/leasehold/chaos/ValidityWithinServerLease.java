package dev.leasehold.chaos;

import dev.leasehold.testkit.lease.LeaseInvariants;

/**
 * ValidityWithinServerLease on a history: a grant believed ACTIVE throughout a server sample that
 * showed it holding the key, whose local deadline (as last reported before the sample) lay beyond
 * the expiry that sample's PTTL showed, by more than {@link Observed#PTTL_TOLERANCE_NS}. Counted
 * once per grant; the excess is how far beyond.
 *
 * <p>This class is stateless and threadsafe.
 */
final class ValidityWithinServerLease {
  private ValidityWithinServerLease() {}

  static Found check(Observed o) {
    Found found = new Found();
    o.eachSampleWhileActive((s, in) -> {
      if (!in.grant().equals(s.holder())) {
        return;  // ActiveHoldsKey's case; and the deadline below is costly to find
      }
      long deadline = Beliefs.deadlineAt(o.events(), in.grant(), s.sentAt());
      long serverExpiry = Observed.expiry(s.at(), s);
      if (!LeaseInvariants.validityWithinServerLease(true, true, deadline, serverExpiry, Observed.PTTL_TOLERANCE_NS)) {
        long over = deadline - serverExpiry;
        found.add(in.grant(), over, ActiveHoldsKey.pastLease(in.grant(), s, over,
            "local deadline beyond the server's PTTL " + s.pttl() + " ms"));
      }
    });
    return found;
  }
}
