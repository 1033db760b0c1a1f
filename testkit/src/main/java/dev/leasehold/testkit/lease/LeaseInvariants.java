package dev.leasehold.testkit.lease;

import dev.leasehold.lease.LeaseState;
import dev.leasehold.testkit.lease.Snapshot.HandleObs;
import dev.leasehold.testkit.runner.PropertyViolation;
import java.util.Map;
import java.util.Set;

/**
 * The invariants of CONTRACT.md as {@code spec/tla/Lease.tla} states them, one definition shared by
 * every oracle.
 *
 * <p>The core of each property is a pure predicate over plain values, named exactly like the spec
 * property ({@link #activeHoldsKey(boolean, boolean)}, {@link #validityWithinServerLease},
 * {@link #mutualExclusion(long)}, {@link #noInheritance(int, int)}, {@link #terminalStays},
 * {@link #stateOutcomeAgreement(String, String, LeaseState, LeaseState, boolean)},
 * {@link #replayNeverExtends(boolean, long, long, long, long, long)}, {@link #fencedEffects(long, long)},
 * {@link #certaintyIsHonest(String, boolean)}, {@link #lossIsReported(String, LeaseState)}). Every oracle calls these: the snapshot checks
 * below (the simulated and the real-server properties check the implementation's snapshots and
 * the model's own with them), the Lincheck validation and the chaos checker. Each oracle only
 * reads its own world into those values.
 *
 * <p>The snapshot checks throw a {@link PropertyViolation}, one message per assertion. A run with
 * restarts waives the invariants a restart without persistence is known to break (the spec's
 * THEOREM excludes Restart); nothing else can be waived.
 *
 * <p>This class is stateless and threadsafe.
 */
public final class LeaseInvariants {
  /** The outcomes that promise the server was not changed (CertaintyIsHonest). */
  private static final Set<String> NOT_APPLIED = Set.of("Unavailable", "Overloaded", "IllegalArgumentException");

  private LeaseInvariants() {}

  // ---- The predicates: one per spec property, over plain values. ----

  /** ActiveHoldsKey: a handle that says ACTIVE belongs to the attempt whose value the server holds. */
  public static boolean activeHoldsKey(boolean active, boolean serverHoldsItsAttempt) {
    return !active || serverHoldsItsAttempt;
  }

  /**
   * ValidityWithinServerLease: an ACTIVE handle whose attempt the server holds is not valid past the
   * server's expiry. All three instants are on the server's clock (ns); {@code deadline} already
   * includes what the client clock may lag, and {@code slack} is how far the readings may be off.
   */
  public static boolean validityWithinServerLease(boolean active, boolean serverHoldsItsAttempt, long deadline,
      long serverExpiry, long slack) {
    return !(active && serverHoldsItsAttempt) || deadline <= serverExpiry + slack;
  }

  /** MutualExclusion: at most one handle of the resource says ACTIVE at any instant. */
  public static boolean mutualExclusion(long activeHandles) {
    return activeHandles <= 1;
  }

  /** NoInheritance: a handle just handed out belongs to the exact attempt the server holds. */
  public static boolean noInheritance(int attempt, int serverHolder) {
    return attempt == serverHolder;
  }

  /** TerminalStays: once a caller was told LOST or RELEASED ({@code told}; null if never), state() keeps saying so. */
  public static boolean terminalStays(LeaseState told, LeaseState now) {
    return told == null || told == now;
  }

  /** Whether an outcome promises that the call did not change the server. */
  public static boolean claimsNotApplied(String outcome) {
    return NOT_APPLIED.contains(outcome);
  }

  /**
   * StateOutcomeAgreement: the outcome {@code outcome} (its variant name; {@code detail} the state a
   * NotActive names) agrees with state() read right after it. {@code before} is the handle's state
   * before the call, null when unknown. {@code budgetSpent}: the handle's budget may have run out
   * between the reply and the read (a real clock), so a Renewed handle may already read LOST.
   */
  public static boolean stateOutcomeAgreement(String outcome, String detail, LeaseState before, LeaseState after,
      boolean budgetSpent) {
    return switch (outcome) {
      case "Renewed" -> after == LeaseState.ACTIVE || (budgetSpent && after == LeaseState.LOST);
      case "Lost", "NotOwner" -> after == LeaseState.LOST;
      case "Released", "AlreadyAbsent" -> after == LeaseState.RELEASED || after == LeaseState.LOST;
      case "NotActive" -> after.name().equals(detail);
      case "Indeterminate" -> after == LeaseState.UNKNOWN || after == LeaseState.LOST;
      case "Unavailable", "Overloaded" -> before == null || before == after;
      case "Acquired", "ReplayedSameOperation" -> after != LeaseState.RELEASED;
      default -> true;
    };
  }

  /**
   * ReplayNeverExtends: a replay that found its attempt holding the key leaves the key held and its
   * expiry where it was. Expiries are read windows [lo, hi] on the server's clock, off by up to
   * {@code slack}.
   */
  public static boolean replayNeverExtends(boolean stillHeld, long beforeLo, long beforeHi, long afterLo, long afterHi,
      long slack) {
    return stillHeld && sameExpiry(beforeLo, beforeHi, afterLo, afterHi, slack);
  }

  /**
   * FencedEffects: the store's last accepted write comes from the newest grant that ever wrote to
   * it ({@code storeMax}, counting the last write too). Grants are numbered in the order they were
   * granted. It breaks exactly when a store accepts an older grant's write after a newer one's: in
   * the fenced store, when a token was issued twice.
   */
  public static boolean fencedEffects(long storeLast, long storeMax) {
    return storeLast == storeMax;
  }

  /** CertaintyIsHonest: a call whose outcome claims it was not applied did not change the server. */
  public static boolean certaintyIsHonest(String outcome, boolean serverChanged) {
    return !claimsNotApplied(outcome) || !serverChanged;
  }

  /**
   * LossIsReported: a renew that returned {@code Lost} or {@code Indeterminate} leaves its handle
   * saying LOST or UNKNOWN, never ACTIVE ({@code after}: state() right after it). The watchdog's part
   * (it then tells the work and stops) is {@link CallerInvariants#lossIsReported}.
   */
  public static boolean lossIsReported(String renewOutcome, LeaseState after) {
    return !(renewOutcome.equals("Lost") || renewOutcome.equals("Indeterminate")) || after != LeaseState.ACTIVE;
  }

  /** Two read windows of one expiry that may be the same instant. */
  private static boolean sameExpiry(long aLo, long aHi, long bLo, long bHi, long slack) {
    return bLo <= aHi + slack && aLo <= bHi + slack;
  }

  // ---- The snapshot checks: each reads a Snapshot into the predicates above. ----

  /** Checks every invariant on the step from {@code event.before()} to {@code after}. */
  public static void checkAll(StepEvent event, Snapshot after, Map<Integer, LeaseState> terminalSeen,
      int storeLast, int storeMax, Set<LeaseProperty> waived) {
    holding(after, waived);
    lossIsReported(event, after);
    stateOutcomeAgreement(event, after, terminalSeen);
    replayNeverExtends(event, after);
    noInheritance(event, after);
    if (!waived.contains(LeaseProperty.FencedEffects)) {
      requireFencedEffects(storeLast, storeMax);
    }
    certaintyIsHonest(event, after);
  }

  /** The spec's ActiveHoldsKey, ValidityWithinServerLease and MutualExclusion, unless waived: what any reader of the handles may rely on at {@code s}. */
  public static void holding(Snapshot s, Set<LeaseProperty> waived) {
    if (!waived.contains(LeaseProperty.ActiveHoldsKey)) {
      activeHoldsKey(s);
    }
    if (!waived.contains(LeaseProperty.ValidityWithinServerLease)) {
      validity(s);
    }
    if (!waived.contains(LeaseProperty.MutualExclusion)) {
      mutualExclusion(s);
    }
  }

  /**
   * Whether {@code h} says ACTIVE and its deadline (on the server's clock) was still ahead when
   * {@code s}'s server was read. The handles answer at the step's frozen instant; on a real server
   * the server was read later, within the measured slack, and a handle whose deadline falls in
   * that window may have run out by then (it would have said LOST). Simulated, the slack is 0 and
   * this is ACTIVE. The slack is the chain's largest lateness, not this step's alone: judged on
   * this step's window, a loaded run (load 8 on 2 cores) still failed ActiveHoldsKey on a chain that
   * did not shrink, so a narrower window is not yet shown to be sound.
   */
  static boolean activeWhenRead(Snapshot s, HandleObs h) {
    return h.state() == LeaseState.ACTIVE && s.clientNow() + h.remaining() + s.lag() > s.trueNow() + s.slack();
  }

  /** ActiveHoldsKey on a snapshot. */
  public static void activeHoldsKey(Snapshot s) {
    for (HandleObs h : s.handles()) {
      LeaseProperty.ActiveHoldsKey.require(activeHoldsKey(activeWhenRead(s, h), s.holder() == h.attempt()),
          () -> "handle " + h.id() + " of attempt " + h.attempt() + " is ACTIVE but the server holds "
              + (s.holder() < 0 ? "nothing" : "attempt " + s.holder()));
    }
  }

  /** ValidityWithinServerLease on a snapshot. */
  public static void validity(Snapshot s) {
    for (HandleObs h : s.handles()) {
      // The deadline on the server's clock is the client deadline plus the client's lag.
      long deadline = s.clientNow() + h.remaining() + s.lag();
      LeaseProperty.ValidityWithinServerLease.require(validityWithinServerLease(h.state() == LeaseState.ACTIVE, s.holder() == h.attempt(), deadline,
              s.expiryHi(), s.slack()),
          () -> "handle " + h.id() + " is ACTIVE until " + ms(deadline) + " but the server expires it at "
              + ms(s.expiryHi()) + " (" + ms(deadline - s.expiryHi()) + " too long)");
    }
  }

  /** MutualExclusion on a snapshot. */
  public static void mutualExclusion(Snapshot s) {
    long active = s.handles().stream().filter(h -> activeWhenRead(s, h)).count();
    LeaseProperty.MutualExclusion.require(mutualExclusion(active), () -> active + " handles are ACTIVE at once: " + s.handles());
  }

  /** TerminalStays and StateOutcomeAgreement on a step (both reported as StateOutcomeAgreement). */
  static void stateOutcomeAgreement(StepEvent e, Snapshot after, Map<Integer, LeaseState> terminalSeen) {
    for (HandleObs h : after.handles()) {
      LeaseState seen = terminalSeen.get(h.id());
      LeaseProperty.StateOutcomeAgreement.require(terminalStays(seen, h.state()),
          () -> "handle " + h.id() + " was " + seen + " and now says " + h.state() + " (terminal states stay)");
    }
    if (e.handle() < 0 || e.handle() >= after.handles().size()) {
      return;
    }
    LeaseState st = after.handles().get(e.handle()).state();
    String v = e.outcome().variant();
    LeaseProperty.StateOutcomeAgreement.require(stateOutcomeAgreement(v, e.outcome().detail(), e.stateBefore(), st, false),
        () -> e.op() + " returned " + e.outcome() + " but state() is " + st
            + (claimsNotApplied(v) ? " (was " + e.stateBefore() + ": nothing was applied)" : ""));
  }

  /** LossIsReported on a renew step: checked before StateOutcomeAgreement, which would also reject it. */
  static void lossIsReported(StepEvent e, Snapshot after) {
    if (!e.op().equals("renew") || e.handle() < 0 || e.handle() >= after.handles().size()) {
      return;
    }
    LeaseState st = after.handles().get(e.handle()).state();
    LeaseProperty.LossIsReported.require(lossIsReported(e.outcome().variant(), st),
        () -> "renew returned " + e.outcome() + " but state() still says " + st);
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
    // Gone at its own expiry while a slow reply was on its way: the replay did not touch it. On a
    // real server the step's clock is read before the call, and a loaded machine may stall past the
    // expiry before the read after it: an absent key there is no sign of an extension.
    if (after.holder() == -1 && (after.slack() > 0 || after.trueNow() >= b.expiryLo())) {
      return;
    }
    LeaseProperty.ReplayNeverExtends.require(replayNeverExtends(after.holder() == e.attempt(), b.expiryLo(), b.expiryHi(), after.expiryLo(),
            after.expiryHi(), after.slack()),
        () -> "the replay moved the expiry from " + ms(b.expiryHi()) + " to " + ms(after.expiryHi()));
  }

  /** NoInheritance on a step that handed out a handle. */
  static void noInheritance(StepEvent e, Snapshot after) {
    String v = e.outcome().variant();
    if (!(v.equals("Acquired") || v.equals("ReplayedSameOperation"))) {
      return;
    }
    // The script answered at its Apply; a slow reply may arrive after the key expired, and then the
    // handle must already be LOST (ValidityWithinServerLease and the twin judge that), not inherited.
    // On a real server the key may also have expired (and been taken) between the frozen instant
    // and the read after, while the handle still answers for the frozen instant.
    if (e.handle() >= 0 && e.handle() < after.handles().size()) {
      HandleObs h = after.handles().get(e.handle());
      boolean lostWithTheKey = after.holder() == -1 && h.state() == LeaseState.LOST;
      // Lapsed in the window, and the server shows it: the key gone, or granted anew (a new token).
      boolean lapsedBeforeTheRead = h.state() == LeaseState.ACTIVE && !activeWhenRead(after, h)
          && (after.holder() == -1 || after.fence() != h.token());
      if (lostWithTheKey || lapsedBeforeTheRead) {
        return;
      }
    }
    LeaseProperty.NoInheritance.require(noInheritance(e.attempt(), after.holder()),
        () -> "attempt " + e.attempt() + " (owner " + after.ownerOf().get(e.attempt()) + ") got " + v
            + " while the server holds attempt " + after.holder()
            + (after.holder() >= 0 ? " (owner " + after.ownerOf().get(after.holder()) + ")" : ""));
  }

  /** FencedEffects on the grant numbers of the model's fenced store. */
  static void requireFencedEffects(int storeLast, int storeMax) {
    LeaseProperty.FencedEffects.require(fencedEffects((long) storeLast, (long) storeMax),
        () -> "the store accepted a write of grant #" + storeLast + " after one of grant #" + storeMax
            + ": a token was issued twice");
  }

  /** CertaintyIsHonest on a step: after Unavailable, Overloaded or an exception before any I/O the server did not change. */
  static void certaintyIsHonest(StepEvent e, Snapshot after) {
    String v = e.outcome().variant();
    if (!claimsNotApplied(v)) {
      return;
    }
    // A wait loop lets time pass: a key that expired meanwhile was not removed by the call. On a
    // real server the snapshot after is read up to the slack after the step's frozen instant, so a
    // key whose expiry falls in that window may be there or gone.
    Snapshot b = e.before().agedTo(after.trueNow() - after.slack());
    boolean same = unchanged(b, after) || unchanged(e.before().agedTo(after.trueNow() + after.slack()), after);
    LeaseProperty.CertaintyIsHonest.require(certaintyIsHonest(v, !same), () -> e.op() + " returned " + v
        + " but the server went from holder " + b.holder() + "/expiry " + ms(b.expiryHi()) + "/fence " + b.fence()
        + " to holder " + after.holder() + "/expiry " + ms(after.expiryHi()) + "/fence " + after.fence());
  }

  /** Whether the server {@code after} is {@code before}: the same holder, counter and (if held) expiry. */
  private static boolean unchanged(Snapshot before, Snapshot after) {
    return before.holder() == after.holder() && before.fence() == after.fence() && (before.holder() == -1
        || sameExpiry(before.expiryLo(), before.expiryHi(), after.expiryLo(), after.expiryHi(), after.slack()));
  }

  static String ms(long nanos) {
    return String.format("%.3fms", nanos / 1e6);
  }
}
