package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.lease.Snapshot.HandleObs;
import dev.leasehold.testkit.runner.PropertyViolation;
import java.util.Map;
import java.util.Set;

/**
 * The seven invariants of CONTRACT.md (as {@code spec/Lease.tla} states them), one definition
 * shared by every oracle: the simulated and the real-server properties check the implementation's
 * snapshots with it, the model's own snapshots are checked with it too, and the Lincheck test
 * reuses {@link #validity} and {@link #mutualExclusion}. One message per assertion. A run with
 * restarts waives the invariants a restart without persistence is known to break (the spec's
 * THEOREM excludes Restart); nothing else can be waived.
 *
 * <p>This class is stateless and threadsafe.
 */
public final class LeaseInvariants {
  private LeaseInvariants() {}

  /** Checks every invariant on the step from {@code event.before()} to {@code after}. */
  public static void checkAll(StepEvent event, Snapshot after, Map<Integer, LeaseState> terminalSeen,
      int storeLast, int storeMax, Set<String> waived) {
    holding(after, waived);
    stateOutcomeAgreement(event, after, terminalSeen);
    replayNeverExtends(event, after);
    noInheritance(event, after);
    if (!waived.contains("FencedEffects")) {
      fencedEffects(storeLast, storeMax);
    }
    certaintyIsHonest(event, after);
  }

  /** The spec's ActiveHoldsKey, ValidityWithinServerLease and MutualExclusion, unless waived: what any reader of the handles may rely on at {@code s}. */
  public static void holding(Snapshot s, Set<String> waived) {
    if (!waived.contains("ActiveHoldsKey")) {
      activeHoldsKey(s);
    }
    if (!waived.contains("ValidityWithinServerLease")) {
      validity(s);
    }
    if (!waived.contains("MutualExclusion")) {
      mutualExclusion(s);
    }
  }

  /** ActiveHoldsKey: ACTIVE => the server holds this attempt's value. */
  public static void activeHoldsKey(Snapshot s) {
    for (HandleObs h : s.handles()) {
      PropertyViolation.check(h.state() != LeaseState.ACTIVE || s.holder() == h.attempt(), "ActiveHoldsKey",
          "handle " + h.id() + " of attempt " + h.attempt() + " is ACTIVE but the server holds "
              + (s.holder() < 0 ? "nothing" : "attempt " + s.holder()));
    }
  }

  /** ValidityWithinServerLease: ACTIVE and held => the server keeps it until at least the local deadline. */
  public static void validity(Snapshot s) {
    for (HandleObs h : s.handles()) {
      if (h.state() != LeaseState.ACTIVE || s.holder() != h.attempt()) {
        continue;
      }
      // The deadline on the server's clock is the client deadline plus the client's lag.
      long deadline = s.clientNow() + h.remaining() + s.lag();
      PropertyViolation.check(deadline <= s.expiryHi() + s.slack(), "ValidityWithinServerLease",
          "handle " + h.id() + " is ACTIVE until " + ms(deadline) + " but the server expires it at "
              + ms(s.expiryHi()) + " (" + ms(deadline - s.expiryHi()) + " too long)");
    }
  }

  /** 2. At most one handle is ACTIVE. */
  public static void mutualExclusion(Snapshot s) {
    long active = s.handles().stream().filter(h -> h.state() == LeaseState.ACTIVE).count();
    PropertyViolation.check(active <= 1, "MutualExclusion", active + " handles are ACTIVE at once: " + s.handles());
  }

  private static final Set<String> TIMEOUT_STATES = Set.of("UNKNOWN", "LOST");

  /** 3. The outcome agrees with state() right after it; LOST and RELEASED stay. */
  static void stateOutcomeAgreement(StepEvent e, Snapshot after, Map<Integer, LeaseState> terminalSeen) {
    for (HandleObs h : after.handles()) {
      LeaseState seen = terminalSeen.get(h.id());
      PropertyViolation.check(seen == null || seen == h.state(), "StateOutcomeAgreement",
          "handle " + h.id() + " was " + seen + " and now says " + h.state() + " (terminal states stay)");
    }
    if (e.handle() < 0 || e.handle() >= after.handles().size()) {
      return;
    }
    LeaseState st = after.handles().get(e.handle()).state();
    String v = e.outcome().variant();
    String where = e.op() + " returned " + e.outcome() + " but state() is " + st;
    switch (v) {
      case "Renewed" -> PropertyViolation.check(st == LeaseState.ACTIVE, "StateOutcomeAgreement", where);
      case "Lost", "NotOwner" -> PropertyViolation.check(st == LeaseState.LOST, "StateOutcomeAgreement", where);
      case "Released", "AlreadyAbsent" -> PropertyViolation.check(st == LeaseState.RELEASED || st == LeaseState.LOST,
          "StateOutcomeAgreement", where);
      case "NotActive" -> PropertyViolation.check(st.name().equals(e.outcome().detail()), "StateOutcomeAgreement", where);
      case "Indeterminate" -> PropertyViolation.check(TIMEOUT_STATES.contains(st.name()), "StateOutcomeAgreement", where);
      case "Unavailable", "Overloaded" -> PropertyViolation.check(e.stateBefore() == null || e.stateBefore() == st,
          "StateOutcomeAgreement", where + " (was " + e.stateBefore() + ": nothing was applied)");
      case "Acquired", "ReplayedSameOperation" -> PropertyViolation.check(st != LeaseState.RELEASED, "StateOutcomeAgreement", where);
      default -> { }
    }
  }

  /**
   * 4. A replay (the key already held this attempt) leaves the expiry alone. A step is a whole
   * call: when the wait loop's tries span the key's expiry, an earlier try may grant anew (the
   * fence moves) before a later one replays; the spec judges each try, so such a step is no replay
   * of the lease seen before it.
   */
  static void replayNeverExtends(StepEvent e, Snapshot after) {
    Snapshot b = e.before();
    if (!e.outcome().variant().equals("ReplayedSameOperation") || b.holder() != e.attempt() || after.fence() != b.fence()) {
      return;
    }
    PropertyViolation.check(after.holder() == e.attempt() && after.expiryLo() <= b.expiryHi() + after.slack()
            && b.expiryLo() <= after.expiryHi() + after.slack(),
        "ReplayNeverExtends", "the replay moved the expiry from " + ms(b.expiryHi()) + " to " + ms(after.expiryHi()));
  }

  /** 5. A handle is only ever given to the exact attempt holding the key, never to its owner's other operation. */
  static void noInheritance(StepEvent e, Snapshot after) {
    String v = e.outcome().variant();
    if (!(v.equals("Acquired") || v.equals("ReplayedSameOperation"))) {
      return;
    }
    PropertyViolation.check(after.holder() == e.attempt(), "NoInheritance",
        "attempt " + e.attempt() + " (owner " + after.ownerOf().get(e.attempt()) + ") got " + v
            + " while the server holds attempt " + after.holder()
            + (after.holder() >= 0 ? " (owner " + after.ownerOf().get(after.holder()) + ")" : ""));
  }

  /** 6. The fenced store's last accepted write comes from the newest grant that ever wrote. */
  static void fencedEffects(int storeLast, int storeMax) {
    PropertyViolation.check(storeLast == storeMax, "FencedEffects",
        "the store accepted a write of grant #" + storeLast + " after one of grant #" + storeMax
            + ": a token was issued twice");
  }

  /** 7. After Unavailable, Overloaded or an exception before any I/O the server did not change. */
  static void certaintyIsHonest(StepEvent e, Snapshot after) {
    String v = e.outcome().variant();
    if (!(v.equals("Unavailable") || v.equals("Overloaded") || v.equals("IllegalArgumentException"))) {
      return;
    }
    // A wait loop lets time pass: a key that expired meanwhile was not removed by the call.
    Snapshot b = e.before().agedTo(after.trueNow() - after.slack());
    boolean same = b.holder() == after.holder() && b.fence() == after.fence()
        && (b.holder() < 0 || (after.expiryLo() <= b.expiryHi() + after.slack()
            && b.expiryLo() <= after.expiryHi() + after.slack()));
    PropertyViolation.check(same, "CertaintyIsHonest", e.op() + " returned " + v + " but the server went from holder "
        + b.holder() + "/expiry " + ms(b.expiryHi()) + "/fence " + b.fence() + " to holder " + after.holder()
        + "/expiry " + ms(after.expiryHi()) + "/fence " + after.fence());
  }

  static String ms(long nanos) {
    return String.format("%.3fms", nanos / 1e6);
  }
}
