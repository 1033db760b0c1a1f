package dev.leasehold.chaos;

import dev.leasehold.chaos.Beliefs.Interval;
import dev.leasehold.testkit.lease.LeaseInvariants;
import java.util.ArrayList;
import java.util.List;

/**
 * MutualExclusion on a history: at the instant each believed-ACTIVE interval begins, how many
 * grants are believed ACTIVE. A pair counts once (its grants in name order), with the longest
 * overlap of any pair as the worst excess.
 *
 * <p>This class is stateless and threadsafe.
 */
final class MutualExclusion {
  private MutualExclusion() {}

  static Found check(Observed o) {
    List<Interval> all = new ArrayList<>();
    o.intervals().values().forEach(all::addAll);
    Found found = new Found();
    for (Interval next : all) {
      long t = next.start();
      if (!next.covers(t)) {
        continue;  // empty: never ACTIVE for any instant
      }
      List<Interval> others = all.stream().filter(in -> !in.grant().equals(next.grant()) && in.covers(t)).toList();
      long active = 1 + others.stream().map(Interval::grant).distinct().count();
      if (LeaseInvariants.mutualExclusion(active)) {
        continue;
      }
      for (Interval other : others) {
        long overlap = Math.min(other.end(), next.end()) - t;
        String pair = other.grant().compareTo(next.grant()) < 0
            ? other.grant() + "|" + next.grant() : next.grant() + "|" + other.grant();
        found.add(pair, overlap, String.format("two ACTIVE: %s (token %d) and %s (token %d) overlap %.1f ms from t=%.3f s",
            other.grant(), other.token(), next.grant(), next.token(), overlap / 1e6, t / 1e9));
      }
    }
    return found;
  }
}
