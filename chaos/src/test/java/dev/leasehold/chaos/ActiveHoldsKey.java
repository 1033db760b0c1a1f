package dev.leasehold.chaos;

import dev.leasehold.chaos.History.Sample;
import dev.leasehold.testkit.lease.LeaseInvariants;

/**
 * ActiveHoldsKey on a history: a grant believed ACTIVE throughout a server sample that showed
 * another holder or no key. Counted once per grant; the excess is how long it was still believed
 * ACTIVE after the sample.
 *
 * <p>This class is stateless and threadsafe.
 */
final class ActiveHoldsKey {
  private ActiveHoldsKey() {}

  static Found check(Observed o) {
    Found found = new Found();
    o.eachSampleWhileActive((s, in) -> {
      if (!LeaseInvariants.activeHoldsKey(true, in.grant().equals(s.holder()))) {
        long over = in.end() - s.sentAt();
        String why = s.holder() == null ? "the key was absent" : "the server held " + s.holder();
        found.add(in.grant(), over, pastLease(in.grant(), s, over, why));
      }
    });
    return found;
  }

  /** The finding's words, shared with {@link ValidityWithinServerLease}: both count "ACTIVE past the server lease". */
  static String pastLease(String grant, Sample s, long overNs, String why) {
    return String.format("ACTIVE past the server lease: %s believed ACTIVE at t=%.3f s (up to %.1f ms more) but %s (server %s)",
        grant, s.sentAt() / 1e9, overNs / 1e6, why, s.server());
  }
}
