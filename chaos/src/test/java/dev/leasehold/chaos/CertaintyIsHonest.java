package dev.leasehold.chaos;

import dev.leasehold.chaos.History.Complete;
import dev.leasehold.chaos.History.Fault;
import dev.leasehold.chaos.History.Invoke;
import dev.leasehold.chaos.History.Sample;
import dev.leasehold.testkit.lease.LeaseInvariants;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * CertaintyIsHonest on a history: a call whose outcome claims it was not applied
 * ({@code Unavailable}, {@code Overloaded}) after which the server showed its effect. The evidence,
 * by operation: an acquire whose attempt later held the key (unless another call of the same
 * attempt explains it); a release after which the key vanished before it could have expired; a
 * renew after which the expiry moved later. Neither counts across an earlier ambiguous renew or
 * release of the grant, nor across a fault that loses the server's data.
 *
 * <p>This class is stateless and threadsafe.
 */
final class CertaintyIsHonest {
  private CertaintyIsHonest() {}

  static Found check(Observed o) {
    List<Invoke> invokes = o.of(Invoke.class);
    Map<Long, Invoke> bySeq = new HashMap<>();
    invokes.forEach(i -> bySeq.put(i.seq(), i));
    Found found = new Found();
    for (Complete c : o.of(Complete.class)) {
      Invoke inv = bySeq.get(c.seq());
      if (inv == null || !LeaseInvariants.claimsNotApplied(c.variant())) {
        continue;
      }
      String effect = switch (c.op()) {
        case "acquire" -> acquireEffect(o, invokes, inv, c);
        case "release" -> releaseEffect(o, invokes, inv, c);
        case "renew" -> renewEffect(o, invokes, inv, c);
        default -> null;
      };
      if (!LeaseInvariants.certaintyIsHonest(c.variant(), effect != null)) {
        found.add(c.actor() + "#" + c.seq(), 0, String.format("certainty: %s of %s returned %s at t=%.3f s, yet %s",
            c.op(), c.grant(), c.outcome(), c.at() / 1e9, effect));
      }
    }
    return found;
  }

  /** The attempt held the key after the call was sent, and no other call of that attempt explains it. */
  private static String acquireEffect(Observed o, List<Invoke> invokes, Invoke inv, Complete c) {
    String g = c.grant();
    boolean otherCall = invokes.stream().anyMatch(i -> i.grant().equals(g) && i.op().equals("acquire") && i.seq() != inv.seq());
    if (otherCall) {
      return null;
    }
    return o.samples().stream().filter(s -> s.sentAt() > inv.at() && g.equals(s.holder())).findFirst()
        .map(s -> String.format("the server held %s at t=%.3f s", g, s.at() / 1e9)).orElse(null);
  }

  /** The key vanished after the call, before the next release and before it could have expired. */
  private static String releaseEffect(Observed o, List<Invoke> invokes, Invoke inv, Complete c) {
    Sample before = heldBefore(o, inv, c);
    if (before == null) {
      return null;
    }
    long expiry = Observed.expiry(before.sentAt(), before);
    return seenAfter(o, invokes, c, before, s -> s.holder() == null && s.at() < expiry - Observed.PTTL_TOLERANCE_NS)
        .map(s -> String.format("the key vanished at t=%.3f s, %.1f ms before it could expire", s.at() / 1e9,
            (expiry - s.at()) / 1e6))
        .orElse(null);
  }

  /** The key's expiry moved later after the call, before the next renew. */
  private static String renewEffect(Observed o, List<Invoke> invokes, Invoke inv, Complete c) {
    Sample before = heldBefore(o, inv, c);
    if (before == null) {
      return null;
    }
    long expiry = Observed.expiry(before.at(), before);
    return seenAfter(o, invokes, c, before, s -> c.grant().equals(s.holder())
            && Observed.expiry(s.sentAt(), s) > expiry + Observed.PTTL_TOLERANCE_NS)
        .map(s -> "the server's expiry moved later")
        .orElse(null);
  }

  /**
   * The first sample that shows {@code effect}, sent after call {@code c} returned and read before
   * the grant's next call of the same operation, with no fault since {@code before} that lost the
   * server's data.
   */
  private static Optional<Sample> seenAfter(Observed o, List<Invoke> invokes, Complete c, Sample before,
      Predicate<Sample> effect) {
    long next = invokes.stream().filter(i -> i.at() > c.at() && i.grant().equals(c.grant()) && i.op().equals(c.op()))
        .mapToLong(Invoke::at).findFirst().orElse(Long.MAX_VALUE);
    return o.samples().stream()
        .filter(s -> s.sentAt() > c.at() && s.at() < next && effect.test(s) && !dataLostBetween(o, before.sentAt(), s.at()))
        .findFirst();
  }

  /**
   * The last sample before the call that showed the grant holding the key, or null when there is
   * none or when an earlier renew or release of the grant was Indeterminate: its request may land
   * at any later time (a delayed request), so a change seen after this call is not this call's
   * doing. CertaintyIsHonest is a promise about the call itself.
   */
  private static Sample heldBefore(Observed o, Invoke inv, Complete c) {
    boolean earlierAmbiguous = o.of(Complete.class).stream().anyMatch(e -> e.seq() < inv.seq() && c.grant().equals(e.grant())
        && (e.op().equals("renew") || e.op().equals("release")) && e.variant().equals("Indeterminate"));
    if (earlierAmbiguous) {
      return null;
    }
    Sample found = null;
    for (Sample s : o.samples()) {
      if (s.at() < inv.at() && c.grant().equals(s.holder())) {
        found = s;
      }
    }
    return found;
  }

  /**
   * Faults that lose the server's data (a restart with no persistence, a failover): a key that
   * vanished across one says nothing about a release.
   */
  static boolean losesData(Fault f) {
    return f.name().contains("kill9") || f.name().contains("restart") || f.name().contains("failover");
  }

  private static boolean dataLostBetween(Observed o, long from, long to) {
    return o.of(Fault.class).stream().anyMatch(f -> losesData(f) && f.at() <= to && f.endAt() >= from);
  }
}
