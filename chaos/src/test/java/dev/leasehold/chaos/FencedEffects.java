package dev.leasehold.chaos;

import dev.leasehold.chaos.History.Complete;
import dev.leasehold.chaos.History.Effect;
import dev.leasehold.testkit.lease.LeaseInvariants;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * FencedEffects on a history, per store: a <b>stale write</b> is a write by grant g that the store
 * accepted after it had accepted a write by a grant granted later than g ("later" by completion
 * time, {@link Beliefs#grantedAt}). This does not use the tokens, so it also catches a token that
 * was issued twice, which {@link #tokensIssuedTwice} counts on its own. The unfenced control
 * breaks the property whenever a stale writer writes, which shows the check is not blind.
 *
 * <p>This class is stateless and threadsafe.
 */
final class FencedEffects {
  /**
   * The effects of a run. Stale writes on the fenced store are split by the guarantee the writer's
   * handle claimed; {@code stale} holds every stale write as "store#seq".
   */
  record Writes(int attempted, int fencedRejected, int controlStale, int fencedStaleClaimedFenced,
      int fencedStaleClaimedEfficiency, Found stale) {}

  private FencedEffects() {}

  static Writes check(Observed o) {
    int attempted = 0;
    int rejected = 0;
    Map<String, List<Effect>> accepted = new LinkedHashMap<>();
    for (Effect f : o.of(Effect.class)) {
      attempted++;
      if (f.accepted()) {
        accepted.computeIfAbsent(f.store(), k -> new ArrayList<>()).add(f);
      } else if (f.store().equals("fenced")) {
        rejected++;
      }
    }
    Found found = new Found();
    List<Effect> stale = new ArrayList<>();
    for (List<Effect> writes : accepted.values()) {
      stale.addAll(staleWrites(writes, o.grantedAt(), found));
    }
    int control = (int) stale.stream().filter(w -> w.store().equals("control")).count();
    int claimedFenced = (int) stale.stream().filter(w -> !w.store().equals("control") && "FENCED".equals(w.claimed())).count();
    return new Writes(attempted, rejected, control, claimedFenced, stale.size() - control - claimedFenced, found);
  }

  /** One store's accepted writes in the store's order, checked write by write; returns the stale ones. */
  private static List<Effect> staleWrites(List<Effect> writes, Map<String, Long> grantedAt, Found found) {
    List<Effect> stale = new ArrayList<>();
    List<Effect> inStoreOrder = new ArrayList<>(writes);
    inStoreOrder.sort(Comparator.comparingLong(Effect::storeSeq));
    long newest = Long.MIN_VALUE;
    String newestGrant = null;
    for (Effect w : inStoreOrder) {
      long mine = grantedAt.getOrDefault(w.grant(), Long.MIN_VALUE);
      if (!LeaseInvariants.fencedEffects(mine, Math.max(newest, mine))) {
        stale.add(w);
        found.add(w.store() + "#" + w.storeSeq(), 0, String.format(
            "stale write accepted by %s: %s (token %d, claimed %s) after %s (granted later) at t=%.3f s",
            w.store(), w.grant(), w.token(), w.claimed(), newestGrant, w.at() / 1e9));
      }
      if (mine > newest) {
        newest = mine;
        newestGrant = w.grant();
      }
    }
    return stale;
  }

  /** Tokens issued to more than one grant (a grant's token: the first one an acquire of it reported). */
  static Found tokensIssuedTwice(Observed o) {
    Map<String, Long> tokens = new HashMap<>();
    for (Complete c : o.of(Complete.class)) {
      if (c.op().equals("acquire") && c.token() > 0) {
        tokens.putIfAbsent(c.grant(), c.token());
      }
    }
    Map<Long, Set<String>> byToken = new HashMap<>();
    tokens.forEach((g, t) -> byToken.computeIfAbsent(t, k -> new TreeSet<>()).add(g));
    Found found = new Found();
    byToken.forEach((token, grants) -> {
      if (grants.size() > 1) {
        found.add("token " + token, 0, "token " + token + " issued to " + grants);
      }
    });
    return found;
  }
}
