package dev.leasehold.chaos;

import dev.leasehold.chaos.History.Complete;
import dev.leasehold.chaos.History.Effect;
import dev.leasehold.chaos.History.Event;
import dev.leasehold.chaos.History.Fault;
import dev.leasehold.chaos.History.Invoke;
import dev.leasehold.chaos.History.Observe;
import dev.leasehold.chaos.History.Sample;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@link History} and counts what went wrong. Nothing here looks at the clock: every
 * count follows from the recorded events alone.
 *
 * <ul>
 *   <li><b>believed-ACTIVE interval</b> of a grant: from a completion or observation that saw the
 *       handle {@code ACTIVE} until the earliest of its local deadline (as last reported), the first
 *       completion or observation that saw it not {@code ACTIVE}, and the worker's release
 *       invocation (a worker does not act on a lease it is releasing).
 *   <li><b>two ACTIVE at once</b>: pairs of grants whose believed-ACTIVE intervals overlap.
 *   <li><b>ACTIVE past the server lease</b>: grants that were believed ACTIVE throughout a server
 *       sample that showed another holder or no key, or whose local deadline lay beyond the
 *       expiry that sample showed (PTTL, plus {@link #PTTL_TOLERANCE_NS}). Samples slower than
 *       {@link #MAX_SAMPLE_RTT_NS} are not used.
 *   <li><b>stale write</b>: a write by grant g accepted by a store after that store had accepted a
 *       write by a grant that was granted later than g (by completion time). This does not use the
 *       tokens, so it also catches a token that was issued twice.
 *   <li><b>certainty contradiction</b>: an {@code Unavailable}/{@code Overloaded} outcome after
 *       which the server showed its effect: an acquire whose attempt later held the key; a release
 *       after which the key vanished before it could have expired; a renew after which the
 *       expiry moved later.
 *   <li><b>state/outcome disagreement</b>: an outcome that contradicts {@code state()} read right
 *       after it (PROTOCOL.md, StateOutcomeAgreement).
 * </ul>
 *
 * <p>This class is stateless and threadsafe.
 */
public final class Checker {
  /** PTTL is whole ms and both reads are bracketed by the sample's round trip. */
  static final long PTTL_TOLERANCE_NS = 2_000_000;
  /** A sample that took longer than this says too little about one instant. */
  static final long MAX_SAMPLE_RTT_NS = 15_000_000;

  /** The counts of one run. */
  public record Counts(
      int operations,
      int faults,
      int grants,
      int twoActivePairs,
      long twoActiveMaxMs,
      int activePastLease,
      long activePastLeaseMaxMs,
      int effectsAttempted,
      int controlStaleAccepted,
      int fencedStaleAcceptedClaimedFenced,
      int fencedStaleAcceptedClaimedEfficiency,
      int fencedRejected,
      int duplicateTokens,
      int certaintyContradictions,
      int stateOutcomeDisagreements,
      int samples,
      List<String> findings,
      /** "store#seq" of every stale write accepted, for the timeline. */
      Set<String> staleWrites) {

    public int fencedStaleAccepted() {
      return fencedStaleAcceptedClaimedFenced + fencedStaleAcceptedClaimedEfficiency;
    }
  }

  /** A believed-ACTIVE interval. */
  public record Interval(String grant, String actor, long start, long end, long token) {}

  private Checker() {}

  public static Counts check(History history) {
    List<Event> events = history.events();
    List<String> findings = new ArrayList<>();
    Map<String, List<Interval>> intervals = intervals(events);
    Map<String, Long> grantedAt = grantedAt(events);
    Map<String, Long> tokens = new HashMap<>();
    Map<String, String> guarantees = new HashMap<>();
    for (Event e : events) {
      if (e instanceof Complete c && c.op().equals("acquire") && c.token() > 0) {
        tokens.putIfAbsent(c.grant(), c.token());
        guarantees.putIfAbsent(c.grant(), c.guarantee());
      }
    }

    // Two handles believed ACTIVE at once.
    List<Interval> all = new ArrayList<>();
    intervals.values().forEach(all::addAll);
    all.sort(Comparator.comparingLong(Interval::start));
    Set<String> pairs = new HashSet<>();
    long maxOverlap = 0;
    for (int i = 0; i < all.size(); i++) {
      Interval a = all.get(i);
      for (int j = i + 1; j < all.size() && all.get(j).start() < a.end(); j++) {
        Interval b = all.get(j);
        if (a.grant().equals(b.grant())) {
          continue;
        }
        long overlap = Math.min(a.end(), b.end()) - Math.max(a.start(), b.start());
        if (overlap > 0) {
          String key = a.grant().compareTo(b.grant()) < 0 ? a.grant() + "|" + b.grant() : b.grant() + "|" + a.grant();
          if (pairs.add(key)) {
            findings.add(String.format("two ACTIVE: %s (token %d) and %s (token %d) overlap %.1f ms from t=%.3f s",
                a.grant(), a.token(), b.grant(), b.token(), overlap / 1e6, Math.max(a.start(), b.start()) / 1e9));
          }
          maxOverlap = Math.max(maxOverlap, overlap);
        }
      }
    }

    // ACTIVE past the server lease.
    List<Sample> samples = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof Sample s && s.at() - s.sentAt() <= MAX_SAMPLE_RTT_NS) {
        samples.add(s);
      }
    }
    Set<String> pastLease = new HashSet<>();
    long maxPast = 0;
    for (Sample s : samples) {
      for (Map.Entry<String, List<Interval>> entry : intervals.entrySet()) {
        String grant = entry.getKey();
        for (Interval in : entry.getValue()) {
          if (in.start() > s.sentAt() || in.end() < s.at()) {
            continue;
          }
          long over = -1;
          String why = null;
          if (!grant.equals(s.holder())) {
            over = in.end() - s.sentAt();
            why = s.holder() == null ? "the key was absent" : "the server held " + s.holder();
          } else {
            long deadline = deadlineAt(events, grant, s.sentAt());
            long serverExpiry = s.at() + s.pttl() * 1_000_000L;
            if (deadline > serverExpiry + PTTL_TOLERANCE_NS) {
              over = deadline - serverExpiry;
              why = "local deadline beyond the server's PTTL " + s.pttl() + " ms";
            }
          }
          if (over >= 0) {
            maxPast = Math.max(maxPast, over);
            if (pastLease.add(grant)) {
              findings.add(String.format("ACTIVE past the server lease: %s believed ACTIVE at t=%.3f s (up to %.1f ms more) but %s (server %s)",
                  grant, s.sentAt() / 1e9, over / 1e6, why, s.server()));
            }
          }
        }
      }
    }

    // Effects.
    int attempted = 0;
    int rejected = 0;
    int controlStale = 0;
    int fencedStaleF = 0;
    int fencedStaleE = 0;
    Map<String, List<Effect>> accepted = new LinkedHashMap<>();
    Set<String> staleWrites = new HashSet<>();
    for (Event e : events) {
      if (e instanceof Effect f) {
        attempted++;
        if (f.accepted()) {
          accepted.computeIfAbsent(f.store(), k -> new ArrayList<>()).add(f);
        } else if (f.store().equals("fenced")) {
          rejected++;
        }
      }
    }
    for (Map.Entry<String, List<Effect>> entry : accepted.entrySet()) {
      List<Effect> writes = entry.getValue();
      writes.sort(Comparator.comparingLong(Effect::storeSeq));
      long latestGrantSeen = Long.MIN_VALUE;
      String latestGrant = null;
      for (Effect w : writes) {
        long mine = grantedAt.getOrDefault(w.grant(), Long.MIN_VALUE);
        if (latestGrant != null && !latestGrant.equals(w.grant()) && latestGrantSeen > mine) {
          findings.add(String.format("stale write accepted by %s: %s (token %d, claimed %s) after %s (granted later) at t=%.3f s",
              w.store(), w.grant(), w.token(), w.claimed(), latestGrant, w.at() / 1e9));
          staleWrites.add(w.store() + "#" + w.storeSeq());
          if (w.store().equals("control")) {
            controlStale++;
          } else if ("FENCED".equals(w.claimed())) {
            fencedStaleF++;
          } else {
            fencedStaleE++;
          }
        }
        if (mine > latestGrantSeen) {
          latestGrantSeen = mine;
          latestGrant = w.grant();
        }
      }
    }

    // Tokens issued to more than one grant.
    Map<Long, Set<String>> byToken = new HashMap<>();
    tokens.forEach((g, t) -> byToken.computeIfAbsent(t, k -> new HashSet<>()).add(g));
    int duplicates = 0;
    for (Map.Entry<Long, Set<String>> entry : byToken.entrySet()) {
      if (entry.getValue().size() > 1) {
        duplicates++;
        findings.add("token " + entry.getKey() + " issued to " + entry.getValue());
      }
    }

    int certainty = certainty(events, samples, findings);
    int disagreements = stateOutcome(events, findings);

    int operations = 0;
    int faults = 0;
    for (Event e : events) {
      if (e instanceof Complete) {
        operations++;
      } else if (e instanceof Fault) {
        faults++;
      }
    }
    return new Counts(operations, faults, grantedAt.size(), pairs.size(), maxOverlap / 1_000_000, pastLease.size(),
        maxPast / 1_000_000, attempted, controlStale, fencedStaleF, fencedStaleE, rejected, duplicates, certainty,
        disagreements, samples.size(), List.copyOf(findings), Set.copyOf(staleWrites));
  }

  /** The completion time of each grant's first ACTIVE acquire: the order in which leases were granted. */
  static Map<String, Long> grantedAt(List<Event> events) {
    Map<String, Long> out = new HashMap<>();
    for (Event e : events) {
      if (e instanceof Complete c && c.op().equals("acquire") && "ACTIVE".equals(c.state())) {
        out.putIfAbsent(c.grant(), c.at());
      }
    }
    return out;
  }

  /** The believed-ACTIVE intervals of every grant. */
  public static Map<String, List<Interval>> intervals(List<Event> events) {
    Map<String, List<Event>> byGrant = new LinkedHashMap<>();
    Map<String, String> actors = new HashMap<>();
    Map<String, Long> tokens = new HashMap<>();
    for (Event e : events) {
      String grant = null;
      if (e instanceof Complete c) {
        grant = c.grant();
        actors.putIfAbsent(grant, c.actor());
        if (c.token() > 0) {
          tokens.putIfAbsent(grant, c.token());
        }
      } else if (e instanceof Observe o) {
        grant = o.grant();
      } else if (e instanceof Invoke i && i.op().equals("release")) {
        grant = i.grant();
      }
      if (grant != null) {
        byGrant.computeIfAbsent(grant, k -> new ArrayList<>()).add(e);
      }
    }
    Map<String, List<Interval>> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<Event>> entry : byGrant.entrySet()) {
      String grant = entry.getKey();
      List<Interval> list = new ArrayList<>();
      long start = -1;
      long end = -1;
      for (Event e : entry.getValue()) {
        boolean release = e instanceof Invoke;
        String state = e instanceof Complete c ? c.state() : e instanceof Observe o ? o.state() : null;
        long deadline = e instanceof Complete c ? c.deadline() : e instanceof Observe o ? o.deadline() : -1;
        if (!release && "ACTIVE".equals(state) && deadline > e.at()) {
          if (start < 0 || e.at() > end) {
            if (start >= 0) {
              list.add(new Interval(grant, actors.get(grant), start, end, tokens.getOrDefault(grant, 0L)));
            }
            start = e.at();
          }
          end = deadline;
        } else if (start >= 0 && (release || state != null)) {
          list.add(new Interval(grant, actors.get(grant), start, Math.min(end, e.at()), tokens.getOrDefault(grant, 0L)));
          start = -1;
        }
      }
      if (start >= 0) {
        list.add(new Interval(grant, actors.get(grant), start, end, tokens.getOrDefault(grant, 0L)));
      }
      if (!list.isEmpty()) {
        out.put(grant, list);
      }
    }
    return out;
  }

  /** The local deadline the grant's handle had at {@code t}: from its last ACTIVE report before t. */
  static long deadlineAt(List<Event> events, String grant, long t) {
    long deadline = -1;
    for (Event e : events) {
      if (e.at() > t) {
        break;
      }
      if (e instanceof Complete c && c.grant().equals(grant) && "ACTIVE".equals(c.state())) {
        deadline = c.deadline();
      } else if (e instanceof Observe o && o.grant().equals(grant) && "ACTIVE".equals(o.state())) {
        deadline = o.deadline();
      }
    }
    return deadline;
  }

  private static boolean notApplied(String outcome) {
    return outcome.startsWith("Unavailable") || outcome.startsWith("Overloaded");
  }

  /**
   * Faults that lose the server's data (a restart with no persistence, a failover): a key that
   * vanished across one says nothing about a release.
   */
  static boolean losesData(Fault f) {
    return f.name().contains("kill9") || f.name().contains("restart") || f.name().contains("failover");
  }

  private static boolean dataLostBetween(List<Event> events, long from, long to) {
    for (Event e : events) {
      if (e instanceof Fault f && losesData(f) && f.at() <= to && f.endAt() >= from) {
        return true;
      }
    }
    return false;
  }

  private static int certainty(List<Event> events, List<Sample> samples, List<String> findings) {
    int count = 0;
    Map<String, Invoke> invokes = new HashMap<>();
    for (Event e : events) {
      if (e instanceof Invoke i) {
        invokes.put(i.seq() + "", i);
      }
    }
    List<Invoke> allInvokes = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof Invoke i) {
        allInvokes.add(i);
      }
    }
    for (Event e : events) {
      if (!(e instanceof Complete c) || !notApplied(c.outcome())) {
        continue;
      }
      Invoke inv = invokes.get(c.seq() + "");
      if (inv == null) {
        continue;
      }
      String g = c.grant();
      switch (c.op()) {
        case "acquire" -> {
          // Another call of the same attempt (a replay, or an earlier ambiguous one) explains a holding.
          boolean otherCall = false;
          for (Invoke other : allInvokes) {
            if (other.grant().equals(g) && other.op().equals("acquire") && other.seq() != inv.seq()) {
              otherCall = true;
            }
          }
          if (otherCall) {
            continue;
          }
          for (Sample s : samples) {
            if (s.sentAt() > inv.at() && g.equals(s.holder())) {
              count++;
              findings.add(String.format("certainty: acquire of %s returned %s at t=%.3f s, yet the server held %s at t=%.3f s",
                  g, c.outcome(), c.at() / 1e9, g, s.at() / 1e9));
              break;
            }
          }
        }
        case "release" -> {
          if (earlierAmbiguous(events, g, inv.seq())) {
            continue;
          }
          Sample before = lastSampleBefore(samples, inv.at(), g);
          if (before == null) {
            continue;
          }
          long expiry = before.sentAt() + before.pttl() * 1_000_000L;
          long nextRelease = nextInvoke(allInvokes, g, "release", c.at());
          for (Sample s : samples) {
            if (s.sentAt() > c.at() && s.at() < nextRelease && s.holder() == null
                && s.at() < expiry - PTTL_TOLERANCE_NS && !dataLostBetween(events, before.sentAt(), s.at())) {
              count++;
              findings.add(String.format("certainty: release of %s returned %s at t=%.3f s, yet the key vanished at t=%.3f s, %.1f ms before it could expire",
                  g, c.outcome(), c.at() / 1e9, s.at() / 1e9, (expiry - s.at()) / 1e6));
              break;
            }
          }
        }
        case "renew" -> {
          if (earlierAmbiguous(events, g, inv.seq())) {
            continue;
          }
          Sample before = lastSampleBefore(samples, inv.at(), g);
          if (before == null) {
            continue;
          }
          long expiry = before.at() + before.pttl() * 1_000_000L;
          long nextRenew = nextInvoke(allInvokes, g, "renew", c.at());
          for (Sample s : samples) {
            if (s.sentAt() > c.at() && s.at() < nextRenew && g.equals(s.holder())
                && s.sentAt() + s.pttl() * 1_000_000L > expiry + PTTL_TOLERANCE_NS
                && !dataLostBetween(events, before.sentAt(), s.at())) {
              count++;
              findings.add(String.format("certainty: renew of %s returned %s at t=%.3f s, yet the server's expiry moved later",
                  g, c.outcome(), c.at() / 1e9));
              break;
            }
          }
        }
        default -> { }
      }
    }
    return count;
  }

  /**
   * Whether an earlier renew or release of the grant was Indeterminate: its request may land at
   * any later time (a delayed request), so a change seen after a later Unavailable call is not
   * that call's doing. CertaintyIsHonest is a promise about the call itself.
   */
  private static boolean earlierAmbiguous(List<Event> events, String grant, long beforeSeq) {
    for (Event e : events) {
      if (e instanceof Complete c && c.seq() < beforeSeq && grant.equals(c.grant())
          && (c.op().equals("renew") || c.op().equals("release")) && c.outcome().startsWith("Indeterminate")) {
        return true;
      }
    }
    return false;
  }

  private static Sample lastSampleBefore(List<Sample> samples, long t, String holder) {
    Sample found = null;
    for (Sample s : samples) {
      if (s.at() < t && holder.equals(s.holder())) {
        found = s;
      }
    }
    return found;
  }

  private static long nextInvoke(List<Invoke> invokes, String grant, String op, long after) {
    for (Invoke i : invokes) {
      if (i.at() > after && i.grant().equals(grant) && i.op().equals(op)) {
        return i.at();
      }
    }
    return Long.MAX_VALUE;
  }

  private static int stateOutcome(List<Event> events, List<String> findings) {
    int count = 0;
    for (Event e : events) {
      if (!(e instanceof Complete c) || c.state() == null || c.state().equals("-")) {
        continue;
      }
      String o = c.outcome();
      String s = c.state();
      boolean ok;
      if (o.startsWith("NotActive(")) {
        ok = o.equals("NotActive(" + s + ")");
      } else {
        ok = switch (o) {
          case "Acquired", "ReplayedSameOperation" -> s.equals("ACTIVE") || s.equals("UNKNOWN") || s.equals("LOST");
          case "Renewed" -> s.equals("ACTIVE") || (s.equals("LOST") && c.deadline() - c.at() < 2_000_000);
          case "Lost", "NotOwner" -> s.equals("LOST");
          case "Released", "AlreadyAbsent" -> s.equals("RELEASED") || s.equals("LOST");
          case "Indeterminate" -> c.op().equals("acquire") || s.equals("UNKNOWN") || s.equals("LOST");
          default -> true;
        };
      }
      if (!ok) {
        count++;
        findings.add(String.format("state/outcome: %s of %s returned %s but state() said %s at t=%.3f s",
            c.op(), c.grant(), o, s, c.at() / 1e9));
      }
    }
    return count;
  }
}
